import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiEvent } from '../../../src-shared/api';
import type { Sample, Turn } from '../../../src-shared/dataset';
import type { CollectionDesign, PlaygroundResult } from '../../../src-shared/designs';
import { WorkbenchError, toErrorPayload } from '../../../src-shared/errors';
import { DesignedCollection } from './engine';
import { dataCacheDir } from '../embed/cache';
import { ApiKeySource, designApiKeys } from '../keys';
import { joinIds } from '../path-component';
import { listEvidenceRecall } from '../memory/retrieval/evaluate';

/** Turns inserted between two yields to the event loop (and two progress events). */
export const PLAYGROUND_BATCH = 64;
/** Playgrounds kept alive; building another disposes the oldest. */
export const MAX_PLAYGROUNDS = 3;

interface Playground {
  id: string;
  /** The sample built from: its questions' evidence is what a query is scored against. */
  sample: Sample;
  dir: string;
  total: number;
  inserted: number;
  collection: DesignedCollection | null;
  /** Settles when the build has finished (rejects when it failed). */
  ready: Promise<void>;
  disposed: boolean;
}

/**
 * Temporary collections built from a design over one sample's turns, for trying a design by hand.
 * Each lives in `<dataDir>/playground/<id>/` and is deleted on dispose (and, for leftovers of a
 * previous process, on the first build). Builds run on the main thread: ~700 turns embed and
 * insert in well under a second, and the build yields between batches so other calls and
 * progress events are not held up.
 */
export class PlaygroundManager {
  private readonly playgrounds = new Map<string, Playground>();
  private readonly root: string;
  private readonly cacheDir: string;
  private cleaned = false;

  constructor(
    dataDir: string,
    private readonly emit: (event: ApiEvent) => void,
    /** Where the keys of the designs' OpenAI embedders come from (see core/keys.ts). */
    private readonly apiKeys: ApiKeySource = new ApiKeySource(),
    /** False when designs come from the network (core/trust.ts isLocalUser): see NOT_QUOTED. */
    private readonly quoteReplies = true,
  ) {
    this.root = join(dataDir, 'playground');
    this.cacheDir = dataCacheDir(dataDir);
  }

  /** Starts building and returns at once; progress and the end arrive as events. */
  build(sample: Sample, design: CollectionDesign): { playgroundId: string; total: number } {
    if (!this.cleaned) {
      // Playgrounds never outlive their process; whatever is here is a crash's leftover.
      rmSync(this.root, { recursive: true, force: true });
      this.cleaned = true;
    }
    while (this.playgrounds.size >= MAX_PLAYGROUNDS) {
      const oldest = this.playgrounds.keys().next().value;
      if (oldest === undefined) break;
      this.dispose(oldest);
    }
    const id = `pg-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
    const turns = sample.sessions.flatMap((s) => s.turns);
    const playground: Playground = {
      id,
      sample,
      dir: joinIds(this.root, id),
      total: turns.length,
      inserted: 0,
      collection: null,
      ready: Promise.resolve(),
      disposed: false,
    };
    playground.ready = this.run(playground, sample, design, turns);
    // Failures are reported as events and by query; this keeps them from being "unhandled".
    playground.ready.catch(() => {});
    this.playgrounds.set(id, playground);
    return { playgroundId: id, total: turns.length };
  }

  /**
   * The query's hits, per index and fused; with `questionIndex`, each list's evidence recall
   * against that question of the playground's sample (the core's recall, as `cli retrieve`'s).
   */
  async query(
    playgroundId: string,
    query: string,
    topK: number,
    questionIndex: number | null = null,
  ): Promise<PlaygroundResult> {
    const playground = this.require(playgroundId);
    const evidence = questionIndex === null ? null : evidenceOf(playground.sample, questionIndex);
    await playground.ready;
    const collection = playground.collection;
    if (playground.disposed || collection === null || collection.isClosed) {
      throw new WorkbenchError('NOT_FOUND', `playground ${playgroundId} was disposed`, {
        path: ['playgroundId'],
      });
    }
    const t0 = performance.now();
    const result = await collection.retrieve(query, topK, { perIndex: true });
    const ms = performance.now() - t0;
    const recallOf = (hits: ReadonlyArray<{ diaId: string | null }>) =>
      evidence === null
        ? null
        : listEvidenceRecall(
            evidence,
            hits.flatMap((h) => h.diaId ?? []),
          );
    return {
      playgroundId,
      query,
      topK,
      fused: result.fused,
      perIndex: result.perIndex.map((column) => ({ ...column, recall: recallOf(column.hits) })),
      questionIndex,
      fusedRecall: recallOf(result.fused),
      namedSpeakers: result.namedSpeakers,
      ms,
    };
  }

  dispose(playgroundId: string): boolean {
    const playground = this.playgrounds.get(playgroundId);
    if (!playground) return false;
    this.playgrounds.delete(playgroundId);
    playground.disposed = true;
    playground.collection?.close();
    rmSync(playground.dir, { recursive: true, force: true });
    return true;
  }

  close(): void {
    for (const id of [...this.playgrounds.keys()]) this.dispose(id);
  }

  private async run(
    playground: Playground,
    sample: Sample,
    design: CollectionDesign,
    turns: Turn[],
  ): Promise<void> {
    const progress = (done: boolean, error?: unknown) =>
      this.emit({
        type: 'playground-progress',
        playgroundId: playground.id,
        inserted: playground.inserted,
        total: playground.total,
        done,
        ...(error === undefined ? {} : { error: toErrorPayload(error) }),
      });
    try {
      // Let build() return its id before the first event, so a UI can match events to it.
      await yieldToLoop();
      const collection = await DesignedCollection.open(design, {
        dir: playground.dir,
        sample,
        name: `playground "${design.name}" ${sample.sampleId}`,
        cacheDir: this.cacheDir,
        apiKeys: designApiKeys(design as unknown as Record<string, unknown>, this.apiKeys),
        quoteReplies: this.quoteReplies,
      });
      playground.collection = collection;
      if (playground.disposed) {
        collection.close();
        rmSync(playground.dir, { recursive: true, force: true });
        return;
      }
      progress(false);
      for (let i = 0; i < turns.length; i += PLAYGROUND_BATCH) {
        await collection.insertTurns(turns.slice(i, i + PLAYGROUND_BATCH));
        playground.inserted = Math.min(turns.length, i + PLAYGROUND_BATCH);
        progress(false);
        await yieldToLoop();
        if (playground.disposed) return;
      }
      progress(true);
    } catch (error) {
      if (playground.disposed) return;
      progress(true, error);
      throw error;
    }
  }

  private require(playgroundId: string): Playground {
    const playground = this.playgrounds.get(playgroundId);
    if (!playground) {
      throw new WorkbenchError(
        'NOT_FOUND',
        `playground ${playgroundId} does not exist (it was disposed, or replaced by a newer one: at most ${MAX_PLAYGROUNDS} are kept)`,
        { path: ['playgroundId'] },
      );
    }
    return playground;
  }
}

function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A question's evidence turns, by its index in the sample; refused when it has none. */
function evidenceOf(sample: Sample, questionIndex: number): string[] {
  const qa = sample.qa.find((q) => q.index === questionIndex);
  if (!qa || qa.evidence.length === 0) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `question ${questionIndex} of sample ${sample.sampleId} ${qa ? 'has no evidence to score against' : 'does not exist'}`,
      { path: ['questionIndex'] },
    );
  }
  return qa.evidence;
}
