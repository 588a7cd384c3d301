/**
 * `designed`: runs a collection design (the Collections view's CollectionDesign, as config) in
 * experiments. Insert and retrieval are exactly the playground's (core/designs/engine.ts), so a
 * design behaves in a run as it did when tried by hand. To use a saved design, pass
 * `memory: {preset: 'designed', config: <design from designs.list>}`.
 */
import type { Packet } from '../../../../src-shared/dataset';
import { CollectionDesignSchema, DESIGNED_PRESET } from '../../../../src-shared/designs';
import { embedderName } from '../../../../src-shared/embedders';
import type { MemoryHit } from '../request';
import { DesignedCollection } from '../../designs/engine';
import type { MemoryPresetDefinition, MemoryServiceFactory } from '../registry';
import type { MemoryService } from '../types';
import { parsePresetConfig } from './shared';

export { DESIGNED_PRESET };

export class DesignedMemory implements MemoryService {
  readonly preset = DESIGNED_PRESET;

  constructor(private readonly engine: DesignedCollection) {}

  get embedderName(): string | null {
    for (const index of this.engine.design.indexes)
      if (index.type === 'vector') return embedderName(index.embedder);
    return null;
  }

  async insert(packet: Packet, signal?: AbortSignal): Promise<void> {
    await this.engine.insertTurns(packet.dialogs, signal);
  }

  async retrieve(question: string, topK: number): Promise<MemoryHit[]> {
    const { fused } = await this.engine.retrieve(question, topK);
    return fused.map((hit) => ({
      id: hit.id,
      diaId: hit.diaId,
      text: hit.text,
      speaker: hit.speaker,
      score: hit.score,
      sessionDateTime: this.engine.sessionDateTimeOf(hit.id),
    }));
  }

  stats(): Record<string, number> {
    return this.engine.stats();
  }

  notes(): string[] {
    const d = this.engine.design;
    const indexes = d.indexes.map((i) => `${i.name} (${i.type})`).join(', ');
    const weights = Object.entries(d.fusion.weights)
      .map(([name, w]) => `${name} ${w}`)
      .join(', ');
    const r = d.retrieval;
    return [
      `designed "${d.name}"${d.basePreset ? ` (from ${d.basePreset})` : ''}: one item per turn; ` +
        `indexes ${indexes}; fusion ${d.fusion.method}${weights ? ` weights ${weights}` : ''}` +
        `${d.fusion.method === 'rrf' ? ` rrfK ${d.fusion.rrfK}` : ''}; candidates ${r.candidates}; ` +
        `neighbour scores prev ${r.previousTurnScore} next ${r.nextTurnScore}; ` +
        `named-speaker boost ${r.speakerBoost}; question words ${r.dropQuestionWords ? 'dropped' : 'kept'}`,
    ];
  }

  async close(): Promise<void> {
    this.engine.close();
  }
}

export const designedPreset: MemoryServiceFactory = async (config, ctx) => {
  const design = parsePresetConfig(DESIGNED_PRESET, CollectionDesignSchema, config);
  const engine = await DesignedCollection.open(design, {
    dir: ctx.dir,
    sample: ctx.sample,
    cacheDir: ctx.cacheDir,
    ...(ctx.logger ? { logger: ctx.logger } : {}),
    apiKeys: ctx.apiKeys,
    embedderMeter: ctx.embedderMeter,
    quoteReplies: ctx.quoteReplies,
  });
  return new DesignedMemory(engine);
};

export const designedPresetDefinition: MemoryPresetDefinition = {
  name: DESIGNED_PRESET,
  create: designedPreset,
  configSchema: CollectionDesignSchema,
};
