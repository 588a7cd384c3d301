/**
 * `stm`: short-term memory only, a FIFO window of the last `capacity` turns.
 *
 * Every turn goes into a fifo index plus a BM25 text index and an hnsw vector index. When the fifo
 * reports an overflow, the evicted turns are kept OUT OF RETRIEVAL: they leave the vector index
 * and text hits are filtered to the window, so nothing outside the window can be returned. They
 * stay stored (and in the text index, because removing documents from it currently makes
 * flexsearch return undefined for emptied terms and the search throw). Retrieval ranks the
 * window's turns by similarity to the question (BM25 and SIF cosine, min-max normalised and
 * weighted); window turns that match nothing follow, most recent first, so a small window is
 * returned whole and in a useful order.
 */
import { WINK_EMBEDDER_NAME } from '../retrieval/embedder';
import { z } from 'zod';
import type { Packet } from '../../../../src-shared/dataset';
import type { MemoryHit } from '../request';
import { fuse, type HybridCollection, type RankedList } from '../../collection';
import type { MemoryPresetDefinition, MemoryServiceFactory } from '../registry';
import { stripQuestionWords } from '../retrieval/query';
import type { MemoryService } from '../types';
import { TurnEncoder, openPresetCollection, parsePresetConfig, turnHit } from './shared';

export const STM_PRESET = 'stm';
export const DEFAULT_STM_CAPACITY = 40;

export const stmPresetConfigSchema = z.strictObject({
  /** Turns kept in the window (about two LoCoMo sessions' worth at 40). */
  capacity: z.number().int().min(1).max(100_000).default(DEFAULT_STM_CAPACITY),
  textWeight: z.number().min(0).max(100).default(1),
  vectorWeight: z.number().min(0).max(100).default(0.5),
  /** A turn's vector mixes in the previous turn of its session with this weight. */
  previousTurnVector: z.number().min(0).max(10).default(0.5),
  /** Drop question boilerplate ("what kind of", "when did") from the text query. */
  dropQuestionWords: z.boolean().default(true),
});
export type StmPresetConfig = z.output<typeof stmPresetConfigSchema>;

const WINDOW = 'window';
const TEXT = 'text';
const VECTOR = 'vector';

export class StmMemory implements MemoryService {
  readonly preset = STM_PRESET;
  // Every vector index here holds SIF vectors from the shared wink embedder.
  readonly embedderName = WINK_EMBEDDER_NAME;
  private evicted = 0;
  private closed = false;

  private constructor(
    private readonly config: StmPresetConfig,
    private readonly collection: HybridCollection,
    private readonly encoder: TurnEncoder,
  ) {}

  static async open(
    config: StmPresetConfig,
    ctx: Parameters<MemoryServiceFactory>[1],
  ): Promise<StmMemory> {
    const { collection, embedder } = await openPresetCollection(STM_PRESET, ctx);
    collection.createIndex(WINDOW, {
      type: 'fifo',
      capacity: config.capacity,
      overflow: 'evict-oldest',
    });
    collection.createIndex(TEXT, { type: 'text' });
    collection.createIndex(VECTOR, { type: 'vector', dim: embedder.dim, space: 'cosine' });
    return new StmMemory(
      config,
      collection,
      new TurnEncoder(embedder, ctx.sample, config.previousTurnVector),
    );
  }

  async insert(packet: Packet): Promise<void> {
    this.assertOpen();
    const turns = this.encoder.encode(packet);
    if (turns.length === 0) return;
    const result = await this.collection.insert(
      turns.map((t) => ({ ...t.item, vectors: { [VECTOR]: t.vector } })),
    );
    // The fifo only reports what left the window; keeping it out of retrieval is this preset's
    // call. It leaves the vector index; it stays stored and in the text index, whose hits are
    // filtered to the window (see the header: removing from the text index is avoided).
    const gone = result.overflow.flatMap((o) => o.evicted);
    if (gone.length > 0) {
      this.collection.removeFromIndex(VECTOR, gone);
      this.evicted += gone.length;
    }
  }

  async retrieve(question: string, topK: number): Promise<MemoryHit[]> {
    this.assertOpen();
    // Oldest first (fifo order = insertion order).
    const window = this.collection.memberIds(WINDOW);
    if (window.length === 0 || topK <= 0) return [];
    const inWindow = new Set(window);
    const c = this.config;
    const lists: Array<RankedList<string>> = [];
    if (c.textWeight > 0) {
      const text = c.dropQuestionWords ? stripQuestionWords(question) : question;
      const hits = await this.collection.retrieve(TEXT, text, { topK: this.collection.count() });
      lists.push({
        index: TEXT,
        weight: c.textWeight,
        hits: hits.filter((h) => inWindow.has(h.id)).map((h) => ({ key: h.id, score: h.score })),
      });
    }
    if (c.vectorWeight > 0) {
      const hits = await this.collection.retrieve(VECTOR, question, { topK: window.length });
      lists.push({
        index: VECTOR,
        weight: c.vectorWeight,
        hits: hits.map((h) => ({ key: h.id, score: h.score })),
      });
    }
    const ranked: Array<[string, number]> = fuse(lists, 'weighted')
      .filter((f) => f.score > 0)
      .map((f) => [f.key, f.score]);
    const seen = new Set(ranked.map(([id]) => id));
    for (let i = window.length - 1; i >= 0; i--) {
      const id = window[i] as string;
      if (!seen.has(id)) ranked.push([id, 0]);
    }
    const top = ranked.slice(0, topK);
    const stored = this.collection.get(top.map(([id]) => id));
    const hits: MemoryHit[] = [];
    top.forEach(([, score], i) => {
      const item = stored[i];
      if (item) hits.push(turnHit(item, score));
    });
    return hits;
  }

  stats(): Record<string, number> {
    if (this.closed) return { evicted: this.evicted };
    return {
      items: this.collection.count(),
      window: this.collection.count(WINDOW),
      evicted: this.evicted,
    };
  }

  notes(): string[] {
    const c = this.config;
    return [
      `stm: fifo window of the last ${c.capacity} turns; turns leaving the window are kept out of retrieval; ` +
        `window ranked by BM25 (weight ${c.textWeight}) + SIF cosine (weight ${c.vectorWeight}), then most recent first`,
    ];
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.collection.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`memory preset ${STM_PRESET}: used after close`);
  }
}

export const stmPreset: MemoryServiceFactory = async (config, ctx) =>
  StmMemory.open(parsePresetConfig(STM_PRESET, stmPresetConfigSchema, config), ctx);

export const stmPresetDefinition: MemoryPresetDefinition = {
  name: STM_PRESET,
  create: stmPreset,
  configSchema: stmPresetConfigSchema,
};
