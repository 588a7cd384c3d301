/**
 * `tiers`: memory split into tiers with capacities; overflow migrates turns down the chain.
 *
 * Each tier is a fifo index of the one collection (its membership and age order); one BM25 text
 * index and one hnsw vector index hold every turn. New turns enter the first tier's fifo. When a
 * tier's fifo reports an overflow, the evicted turns are added (insertToIndex) to the next tier's
 * fifo, whose own overflow migrates on in turn; what overflows a bounded last tier is forgotten
 * (it leaves the vector index and every tier; counted in stats()). Retrieval asks the text and
 * vector index once and merges the hits of every tier
 * them on one scale (or by rank, `fusion: 'rrf'`), each turn scaled by its tier's weight. One text index for all
 * tiers, rather than one per tier, also means migration never removes text documents, which
 * currently trips a flexsearch bug (a term emptied by removal makes its search return undefined).
 *
 * Layouts: 'two-tier' (working -> long-term, unbounded), 'three-tier' (working -> episodic ->
 * archive, unbounded), 'functional' (working -> one store per speaker, chosen by who spoke the
 * turn; a question naming a speaker weights that speaker's store up), or an explicit chain
 * `[{name, capacity, weight}]`.
 *
 * Summaries need an LLM (the run's `memory.llm`); without one they are off and notes() says so.
 * With one, turns leaving the first tier are collected and every `summaryBatch` of them is
 * summarised by the LLM into a few lines, kept beside the tiers; the `summaryTopK` summaries that
 * best match a question join its retrieved memories (in place of the last turns). A summary
 * outlives the verbatim turns it was written from when a bounded last tier forgets them.
 */
import { WINK_EMBEDDER_NAME } from '../retrieval/embedder';
import { z } from 'zod';
import type { Packet } from '../../../../src-shared/dataset';
import type { MemoryHit } from '../request';
import { fuse, type Hit, type HybridCollection, type RankedList } from '../../collection';
import type { MemoryPresetDefinition, MemoryServiceFactory } from '../registry';
import { mentionedSpeakers, stripQuestionWords } from '../retrieval/query';
import { asTurnMetadata } from '../retrieval/turns';
import type { MemoryService, MemoryServiceContext } from '../types';
import { LlmNotes } from './llm-notes';
import {
  NO_LLM,
  TurnEncoder,
  normalizeMinMax,
  openPresetCollection,
  parsePresetConfig,
  turnHit,
} from './shared';

export const TIERS_PRESET = 'tiers';
/** A fifo needs a capacity; an unbounded tier gets the largest one the collection accepts. */
const UNBOUNDED = 1_000_000_000;

const tierSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'must be 1-40 characters of a-z, 0-9 and -'),
  /** Turns the tier holds; null = unbounded (only the last tier of a chain). */
  capacity: z.number().int().min(1).max(UNBOUNDED).nullable(),
  /** Multiplies the tier's contribution to the fused ranking. */
  weight: z.number().min(0).max(100).default(1),
});
export type TierConfig = z.output<typeof tierSchema>;

export const tiersPresetConfigSchema = z
  .strictObject({
    /** A named layout, or an explicit chain of tiers (overflow of tier i migrates to tier i+1). */
    tiers: z
      .union([z.enum(['two-tier', 'three-tier', 'functional']), z.array(tierSchema).min(1).max(8)])
      .default('two-tier'),
    /** Capacity of the first tier of the named layouts. */
    workingCapacity: z.number().int().min(1).max(UNBOUNDED).default(20),
    /** Capacity of the episodic tier of 'three-tier'. */
    episodicCapacity: z.number().int().min(1).max(UNBOUNDED).default(200),
    /** 'functional': a named speaker's store weighs (1 + speakerBoost) times its weight. */
    speakerBoost: z.number().min(0).max(100).default(0.5),
    /**
     * 'score' (default): text and vector scores min-max normalised over all turns, weighted, then
     * times the turn's tier weight. 'rrf': one ranked list per tier and index, fused by rank; it
     * gives a small tier's best turns as much credit as a large tier's.
     */
    fusion: z.enum(['score', 'rrf']).default('score'),
    rrfK: z.number().min(0).max(1_000_000).default(60),
    /** Hits taken from each index before fusion. */
    candidates: z.number().int().min(1).max(10_000).default(50),
    textWeight: z.number().min(0).max(100).default(1),
    vectorWeight: z.number().min(0).max(100).default(0.5),
    previousTurnVector: z.number().min(0).max(10).default(0.5),
    dropQuestionWords: z.boolean().default(true),
    /** Summaries (with a memory LLM): turns leaving the first tier per summary. */
    summaryBatch: z.number().int().min(1).max(10_000).default(10),
    /** Summaries: lines the LLM may write per summary. */
    summaryLines: z.number().int().min(1).max(20).default(3),
    /** Summaries added to each retrieval (they take the place of the last turns). */
    summaryTopK: z.number().int().min(0).max(100).default(2),
  })
  .superRefine((value, ctx) => {
    if (!Array.isArray(value.tiers)) return;
    const seen = new Set<string>();
    value.tiers.forEach((tier, i) => {
      if (seen.has(tier.name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['tiers', i, 'name'],
          message: `duplicate tier name "${tier.name}"`,
        });
      }
      seen.add(tier.name);
      if (tier.capacity === null && i < value.tiers.length - 1) {
        ctx.addIssue({
          code: 'custom',
          path: ['tiers', i, 'capacity'],
          message: 'only the last tier may be unbounded (null): nothing would ever migrate past it',
        });
      }
    });
  });
export type TiersPresetConfig = z.output<typeof tiersPresetConfigSchema>;

interface Tier extends TierConfig {
  /** The speaker whose turns this tier takes ('functional' stores), else null. */
  speaker: string | null;
  fifo: string;
}

const TEXT = 'text';
const VECTOR = 'vector';

/** The tiers a config describes, in chain order. */
export function resolveTiers(config: TiersPresetConfig, speakers: readonly string[]): Tier[] {
  const make = (
    name: string,
    capacity: number | null,
    speaker: string | null = null,
    weight = 1,
  ): Tier => ({
    name,
    capacity,
    weight,
    speaker,
    fifo: `tier-${name}`,
  });
  const t = config.tiers;
  if (Array.isArray(t)) return t.map((tier) => make(tier.name, tier.capacity, null, tier.weight));
  if (t === 'two-tier') return [make('working', config.workingCapacity), make('long-term', null)];
  if (t === 'three-tier') {
    return [
      make('working', config.workingCapacity),
      make('episodic', config.episodicCapacity),
      make('archive', null),
    ];
  }
  return [
    make('working', config.workingCapacity),
    ...speakers.map((speaker, i) => make(`speaker-${i + 1}`, null, speaker)),
  ];
}

export class TiersMemory implements MemoryService {
  readonly preset = TIERS_PRESET;
  // Every vector index here holds SIF vectors from the shared wink embedder.
  readonly embedderName = WINK_EMBEDDER_NAME;
  /** Tier (position in the chain) of every retrievable turn. */
  private readonly tierOf = new Map<string, number>();
  /** Insertion order of every turn: the tie-breaker of the ranking. */
  private readonly order = new Map<string, number>();
  private readonly migrations = new Map<string, number>();
  /** Turns that left the first tier and wait for the next summary. */
  private unsummarised: string[] = [];
  private forgotten = 0;
  private closed = false;

  private constructor(
    private readonly config: TiersPresetConfig,
    private readonly tiers: Tier[],
    private readonly collection: HybridCollection,
    private readonly encoder: TurnEncoder,
    private readonly speakers: readonly string[],
    /** Summaries of turns that left the first tier; null when the run has no memory LLM. */
    private readonly summaries: LlmNotes | null,
  ) {}

  static async open(config: TiersPresetConfig, ctx: MemoryServiceContext): Promise<TiersMemory> {
    const tiers = resolveTiers(config, ctx.sample.speakers);
    const { collection, embedder } = await openPresetCollection(TIERS_PRESET, ctx);
    for (const tier of tiers) {
      collection.createIndex(tier.fifo, {
        type: 'fifo',
        capacity: tier.capacity ?? UNBOUNDED,
        overflow: 'evict-oldest',
      });
    }
    collection.createIndex(TEXT, { type: 'text' });
    collection.createIndex(VECTOR, { type: 'vector', dim: embedder.dim, space: 'cosine' });
    const encoder = new TurnEncoder(embedder, ctx.sample, config.previousTurnVector);
    const summaries = ctx.llm
      ? LlmNotes.create(collection, encoder, ctx.llm, {
          prefix: 'summary',
          label: 'Summary',
          system: summaryPrompt(ctx.sample.speakers, config.summaryLines),
          maxNotes: config.summaryLines,
          seed: ctx.seed ?? 0,
        })
      : null;
    return new TiersMemory(config, tiers, collection, encoder, ctx.sample.speakers, summaries);
  }

  async insert(packet: Packet, signal?: AbortSignal): Promise<void> {
    this.assertOpen();
    const turns = this.encoder.encode(packet);
    if (turns.length === 0) return;
    const first = this.tiers[0] as Tier;
    const result = await this.collection.insert(
      turns.map((t) => ({ ...t.item, vectors: { [VECTOR]: t.vector } })),
      { indexes: [first.fifo, TEXT, VECTOR] },
    );
    for (const t of turns) {
      this.tierOf.set(t.item.id, 0);
      this.order.set(t.item.id, this.order.size);
    }
    const leaving = result.overflow.flatMap((o) => o.evicted);
    await this.migrate(0, leaving);
    if (this.summaries) {
      this.unsummarised.push(...leaving);
      while (this.unsummarised.length >= this.config.summaryBatch) {
        const batch = this.unsummarised.slice(0, this.config.summaryBatch);
        this.unsummarised = this.unsummarised.slice(this.config.summaryBatch);
        await this.summaries.write(batch, signal);
      }
    }
  }

  /** Moves turns the fifo of tier `from` evicted into the tier after it (recursively). */
  private async migrate(from: number, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const source = this.tiers[from] as Tier;
    const byTarget = new Map<number, string[]>();
    const lost: string[] = [];
    for (const id of ids) {
      const target = this.nextTier(from, id);
      if (target === null) {
        lost.push(id);
        continue;
      }
      const list = byTarget.get(target) ?? [];
      list.push(id);
      byTarget.set(target, list);
    }
    if (lost.length > 0) {
      this.collection.removeFromIndex(VECTOR, lost);
      for (const id of lost) this.tierOf.delete(id);
      this.forgotten += lost.length;
    }
    for (const [index, moved] of [...byTarget].sort((a, b) => a[0] - b[0])) {
      const target = this.tiers[index] as Tier;
      const key = `migrated.${source.name}->${target.name}`;
      this.migrations.set(key, (this.migrations.get(key) ?? 0) + moved.length);
      for (const id of moved) this.tierOf.set(id, index);
      const result = await this.collection.insertToIndex(target.fifo, moved);
      await this.migrate(
        index,
        result.overflow.flatMap((o) => o.evicted),
      );
    }
  }

  /** Where a turn leaving tier `from` goes: the next tier, the speaker's store, or nowhere. */
  private nextTier(from: number, id: string): number | null {
    const speakerTiers = this.tiers.flatMap((t, i) => (t.speaker !== null ? [i] : []));
    if (from === 0 && speakerTiers.length > 0) {
      const [item] = this.collection.get([id]);
      const speaker = item ? asTurnMetadata(item.metadata, id).speaker : '';
      // A speaker the sample does not list (none in LoCoMo) goes to the last store.
      const match = speakerTiers.find((i) => this.tiers[i]?.speaker === speaker);
      return match ?? (speakerTiers[speakerTiers.length - 1] as number);
    }
    if (this.tiers[from]?.speaker !== null) return null;
    return from + 1 < this.tiers.length ? from + 1 : null;
  }

  async retrieve(question: string, topK: number): Promise<MemoryHit[]> {
    this.assertOpen();
    const all = this.tierOf.size;
    if (topK <= 0 || all === 0) return [];
    const c = this.config;
    const named = new Set(mentionedSpeakers(question, this.speakers));
    const searches: Array<{ index: string; weight: number; hits: Hit[] }> = [];
    const text = c.dropQuestionWords ? stripQuestionWords(question) : question;
    const summaries = this.summaries
      ? await this.summaries.retrieve(
          text,
          this.encoder.embedQuery(question),
          Math.min(c.summaryTopK, topK),
        )
      : [];
    if (c.textWeight > 0) {
      const hits = await this.collection.retrieve(TEXT, text, { topK: this.collection.count() });
      searches.push({ index: TEXT, weight: c.textWeight, hits });
    }
    if (c.vectorWeight > 0) {
      const q = this.encoder.embedQuery(question);
      searches.push({
        index: VECTOR,
        weight: c.vectorWeight,
        hits: await this.collection.retrieve(VECTOR, q, { topK: all }),
      });
    }
    const weightOf = this.tiers.map(
      (tier) =>
        tier.weight * (tier.speaker !== null && named.has(tier.speaker) ? 1 + c.speakerBoost : 1),
    );
    let fused: Array<{ key: string; score: number }>;
    if (c.fusion === 'rrf') {
      // One ranked list per tier and index: each tier's best turn gets the same rank credit.
      const lists: Array<RankedList<string>> = [];
      this.tiers.forEach((tier, t) => {
        for (const search of searches) {
          const hits = search.hits
            .filter((h) => this.tierOf.get(h.id) === t)
            .slice(0, c.candidates)
            .map((h) => ({ key: h.id, score: h.score }));
          if (hits.length > 0) {
            const weight = (weightOf[t] ?? 1) * search.weight;
            lists.push({ index: `${tier.name}/${search.index}`, weight, hits });
          }
        }
      });
      fused = fuse(lists, 'rrf', c.rrfK);
    } else {
      // One scale for all tiers: scores normalised over the whole index, then the tier's weight.
      const score = new Map<string, number>();
      for (const search of searches) {
        const live = search.hits.filter((h) => this.tierOf.has(h.id));
        for (const [id, norm] of normalizeMinMax(live)) {
          score.set(id, (score.get(id) ?? 0) + search.weight * norm);
        }
      }
      fused = [...score]
        .map(([key, s]) => ({ key, score: s * (weightOf[this.tierOf.get(key) ?? 0] ?? 1) }))
        .filter((f) => f.score > 0)
        .sort((a, b) => b.score - a.score || this.orderOf(a.key) - this.orderOf(b.key));
    }
    fused = fused.slice(0, topK - summaries.length);
    const stored = this.collection.get(fused.map((f) => f.key));
    const hits: MemoryHit[] = [];
    fused.forEach((f, i) => {
      const item = stored[i];
      if (item) hits.push(turnHit(item, f.score));
    });
    return [...hits, ...summaries];
  }

  private orderOf(id: string): number {
    return this.order.get(id) ?? 0;
  }

  stats(): Record<string, number> {
    const out: Record<string, number> = { forgotten: this.forgotten, ...this.summaries?.stats() };
    for (const [key, n] of this.migrations) out[key] = n;
    if (!this.closed) {
      out['items'] = this.collection.count();
      for (const tier of this.tiers) out[`tier.${tier.name}`] = this.collection.count(tier.fifo);
    }
    return out;
  }

  notes(): string[] {
    const chain = this.tiers
      .map(
        (t) =>
          `${t.name}(${t.capacity ?? 'unbounded'}${t.weight !== 1 ? `, weight ${t.weight}` : ''})`,
      )
      .join(this.tiers.some((t) => t.speaker !== null) ? ' | ' : ' -> ');
    const layout = Array.isArray(this.config.tiers) ? 'custom' : this.config.tiers;
    return [
      `tiers: ${layout} ${chain}; fifo overflow migrates verbatim turns (forgotten past a bounded last tier); retrieval fuses every tier (${this.config.fusion})`,
      ...(this.summaries
        ? [
            `tiers: summaries on (${this.summaries.llm.model}): every ${this.config.summaryBatch} turns leaving ` +
              `${this.tiers[0]?.name ?? 'the first tier'} are summarised in up to ${this.config.summaryLines} lines; ` +
              `${this.config.summaryTopK} summaries per retrieval`,
            ...this.summaries.failureNote(TIERS_PRESET),
          ]
        : [`tiers: summarisation on migration off: ${NO_LLM}`]),
    ];
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.collection.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`memory preset ${TIERS_PRESET}: used after close`);
  }
}

/** What the summarising LLM is asked. */
export function summaryPrompt(speakers: readonly string[], maxLines: number): string {
  return (
    `You keep the memory of a conversation between ${speakers.join(' and ')}. Summarise the turns ` +
    `below in at most ${maxLines} short lines: who did, felt, planned or said what, keeping names, ` +
    `numbers and places, and turning relative dates ("yesterday", "last week") into dates using ` +
    `the session date in brackets. One line per point, no numbering.`
  );
}

export const tiersPreset: MemoryServiceFactory = async (config, ctx) =>
  TiersMemory.open(parsePresetConfig(TIERS_PRESET, tiersPresetConfigSchema, config), ctx);

export const tiersPresetDefinition: MemoryPresetDefinition = {
  name: TIERS_PRESET,
  create: tiersPreset,
  configSchema: tiersPresetConfigSchema,
  llmStage: 'summaries',
};
