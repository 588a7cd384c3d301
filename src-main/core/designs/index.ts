import type { ApiEvent } from '../../../src-shared/api';
import type { Sample } from '../../../src-shared/dataset';
import type {
  CollectionDesign,
  DesignBasePreset,
  DesignList,
  PlaygroundResult,
  SavedDesign,
} from '../../../src-shared/designs';
import type { DomainHandlers } from '../handlers';
import type { ApiKeySource } from '../keys';
import { PlaygroundManager } from './playground';
import { designFromPreset } from './presetDesigns';
import { DesignStore } from './store';

export { DesignedCollection, collectionConfig, type DesignedRetrieval } from './engine';
export { PlaygroundManager, MAX_PLAYGROUNDS, PLAYGROUND_BATCH } from './playground';
export { designFromPreset } from './presetDesigns';
export { DesignStore, DESIGNS_FILE, readDesigns } from './store';

/** The Collections view's engine side: saved designs, preset prefills and playgrounds. */
export class DesignsService {
  private readonly store: DesignStore;
  private readonly playgrounds: PlaygroundManager;

  constructor(
    dataDir: string,
    emit: (event: ApiEvent) => void,
    private readonly sampleOf: (datasetId: string, sampleId: string) => Promise<Sample>,
    apiKeys?: ApiKeySource,
    /** False when designs come from the network (core/trust.ts isLocalUser). */
    quoteReplies = true,
  ) {
    this.store = new DesignStore(dataDir);
    this.playgrounds = new PlaygroundManager(dataDir, emit, apiKeys, quoteReplies);
  }

  list(): DesignList {
    return this.store.list();
  }

  save(design: CollectionDesign): SavedDesign {
    return this.store.save(design);
  }

  delete(name: string): boolean {
    return this.store.delete(name);
  }

  fromPreset(preset: DesignBasePreset): CollectionDesign {
    return designFromPreset(preset);
  }

  async build(
    datasetId: string,
    sampleId: string,
    design: CollectionDesign,
  ): Promise<{ playgroundId: string; total: number }> {
    const sample = await this.sampleOf(datasetId, sampleId);
    return this.playgrounds.build(sample, design);
  }

  query(
    playgroundId: string,
    query: string,
    topK: number,
    questionIndex: number | null = null,
  ): Promise<PlaygroundResult> {
    return this.playgrounds.query(playgroundId, query, topK, questionIndex);
  }

  dispose(playgroundId: string): boolean {
    return this.playgrounds.dispose(playgroundId);
  }

  close(): void {
    this.playgrounds.close();
  }
}

/** The Collections view's handlers: saved designs and playgrounds. */
export function designsHandlers(designs: DesignsService): DomainHandlers<'designs' | 'playground'> {
  return {
    'designs.list': async () => designs.list(),
    'designs.save': async ({ design }) => designs.save(design),
    'designs.delete': async ({ name }) => ({ deleted: designs.delete(name) }),
    'designs.fromPreset': async ({ preset }) => designs.fromPreset(preset),
    'playground.build': ({ datasetId, sampleId, design }) =>
      designs.build(datasetId, sampleId, design),
    'playground.query': ({ playgroundId, query, topK, questionIndex }) =>
      designs.query(playgroundId, query, topK, questionIndex ?? null),
    'playground.dispose': async ({ playgroundId }) => ({
      disposed: designs.dispose(playgroundId),
    }),
  };
}
