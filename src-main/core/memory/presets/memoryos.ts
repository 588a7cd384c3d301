/**
 * `memoryos`: the short-term / mid-term / long-term hierarchy of MemoryOS (Kang et al. 2025).
 *
 * - Short-term: a fifo of the last `shortTermCapacity` pages. A page is one turn (so evidence
 *   recall, counted on turns, stays exact); its vector mixes in the previous turn, so it carries
 *   the exchange it belongs to, close to MemoryOS's question/answer page.
 * - Mid-term: a page the fifo evicts joins the most similar segment when their similarity is at
 *   least `segmentThreshold`, else it seeds a new one. A segment is an item in the `segments`
 *   vector index whose vector is the running mean of its pages' vectors; its pages are linked to it
 *   in the `links` graph index. Similarity here is cosine after centring on the mean of the turns
 *   seen so far (raw SIF vectors are all alike; see RunningMean).
 * - Heat = alpha * visits + beta * pages + gamma * exp(-age / recencyTauHours), where age is
 *   measured in CONVERSATION time: the sessions' date-times (read as UTC), never the wall clock.
 *   A segment is touched when a page joins it and when retrieval uses it. Over `midTermCapacity`
 *   segments, the coldest is evicted with its pages (counted in stats()).
 * - Long-term knowledge needs an LLM (the run's `memory.llm`); without one it is off and notes()
 *   says so. With one, a segment whose heat reaches `longTermHeatThreshold` and that has at least
 *   `longTermMinPages` pages not yet read has them read by the LLM, which writes facts about the
 *   speakers (persona, preferences, events with dates); a segment about to be evicted has its
 *   unread pages read first, so what mid-term forgets long-term keeps. The `longTermTopK` facts
 *   that best match a question join its retrieved memories (in place of the last turns).
 *
 * Retrieval scores pages by BM25 and SIF cosine (normalised, weighted): every short-term page,
 * plus the pages of the `topSegments` segments that best match the question (segment score =
 * vector similarity + the best text score of its pages, times 1 + heatWeight * heat / max heat).
 * A question's retrieval changes nothing (issue 12 item 5): re-asking a question, or asking it at
 * another test, gives the same answer from the same packets. MemoryOS itself counts a segment a
 * question used as a visit (heat rises); `learnsFromQueries: true` turns that on, and the run's
 * notes say so: then the same packets and questions in the same order give the same state, but
 * re-asking changes it, and a resumed run (which replays packets without re-asking the questions
 * of committed tests) starts those segments with fewer visits.
 */
import { WINK_EMBEDDER_NAME } from '../retrieval/embedder';
import { z } from 'zod';
import type { Packet } from '../../../../src-shared/dataset';
import type { MemoryHit } from '../request';
import type { HybridCollection } from '../../collection';
import type { MemoryPresetDefinition, MemoryServiceFactory } from '../registry';
import { stripQuestionWords } from '../retrieval/query';
import type { MemoryService, MemoryServiceContext } from '../types';
import { LlmNotes } from './llm-notes';
import {
  NO_LLM,
  RunningMean,
  TurnEncoder,
  conversationHours,
  cosineOf,
  normalizeByMax,
  normalizeMinMax,
  openPresetCollection,
  parsePresetConfig,
  turnHit,
} from './shared';

export const MEMORYOS_PRESET = 'memoryos';
export const LONG_TERM_OFF_NOTE = `memoryos: long-term persona stage off: ${NO_LLM}`;

export const memoryosPresetConfigSchema = z.strictObject({
  /** Pages (turns) in the short-term fifo. */
  shortTermCapacity: z.number().int().min(1).max(10_000).default(10),
  /** Centred cosine a page needs with a segment to join it (else it starts a new segment). */
  segmentThreshold: z.number().min(-1).max(1).default(0.45),
  /** Segments kept in mid-term; beyond this the coldest is evicted with its pages. */
  midTermCapacity: z.number().int().min(1).max(1_000_000).default(200),
  /** Heat = alpha * visits + beta * pages + gamma * recency. */
  alpha: z.number().min(0).max(100).default(1),
  beta: z.number().min(0).max(100).default(1),
  gamma: z.number().min(0).max(100).default(1),
  /** Recency = exp(-conversation hours since the segment was last touched / recencyTauHours). */
  recencyTauHours: z.number().gt(0).max(1_000_000).default(168),
  /** Segments whose pages retrieval considers. */
  topSegments: z.number().int().min(0).max(1000).default(5),
  /** Segments taken from the vector index before heat re-ranks them. */
  segmentCandidates: z.number().int().min(1).max(10_000).default(20),
  /** A segment's score is multiplied by 1 + heatWeight * heat / (hottest candidate's heat). */
  heatWeight: z.number().min(0).max(100).default(0.2),
  /** Pages taken from the text index for lexical scores. */
  candidates: z.number().int().min(1).max(10_000).default(100),
  textWeight: z.number().min(0).max(100).default(1),
  vectorWeight: z.number().min(0).max(100).default(0.5),
  previousTurnVector: z.number().min(0).max(10).default(0.5),
  dropQuestionWords: z.boolean().default(true),
  /** Long-term (with a memory LLM): heat at which a segment's new pages are read. */
  longTermHeatThreshold: z.number().min(0).max(1_000_000).default(5),
  /** Long-term: unread pages a hot segment needs before the LLM reads them (batches the calls). */
  longTermMinPages: z.number().int().min(1).max(10_000).default(4),
  /** Long-term: facts the LLM may write per call. */
  longTermFactsPerCall: z.number().int().min(1).max(50).default(8),
  /** Long-term: facts added to each retrieval (they take the place of the last turns). */
  longTermTopK: z.number().int().min(0).max(100).default(2),
  /** MemoryOS's own behaviour: a segment a question's answer used counts as a visit (heat). */
  learnsFromQueries: z.boolean().default(false),
});

export const LEARNS_FROM_QUERIES_NOTE =
  'memoryos: learns from queries: a segment a question used counts as a visit, so asking changes memory state (re-asking can change answers)';
export type MemoryosPresetConfig = z.output<typeof memoryosPresetConfigSchema>;

const SHORT_TERM = 'short-term';
const PAGES_TEXT = 'pages-text';
const SEGMENTS = 'segments';
const LINKS = 'links';

/** Conversation time: hours from the session date-time, and the packet index as a tie-breaker. */
export interface ConversationClock {
  hours: number;
  packet: number;
}

export interface SegmentState {
  id: string;
  /** Creation order, the tie-breaker wherever heat or similarity ties. */
  order: number;
  pages: string[];
  visits: number;
  lastTouched: ConversationClock;
  /** Sum of the pages' vectors (the index holds sum / pages). */
  sum: Float32Array;
  /** Sum of the pages' centred vectors, for the join threshold. */
  centredSum: Float32Array;
  /** pages[0..readPages) were read by the long-term LLM. */
  readPages: number;
}

export interface HeatParams {
  alpha: number;
  beta: number;
  gamma: number;
  recencyTauHours: number;
}

/** MemoryOS heat of a segment at conversation time `now`. */
export function segmentHeat(
  s: Pick<SegmentState, 'visits' | 'pages' | 'lastTouched'>,
  now: ConversationClock,
  p: HeatParams,
): number {
  const age = Math.max(0, now.hours - s.lastTouched.hours);
  return (
    p.alpha * s.visits + p.beta * s.pages.length + p.gamma * Math.exp(-age / p.recencyTauHours)
  );
}

export interface MidTermSnapshot {
  id: string;
  pages: string[];
  visits: number;
  heat: number;
}

export class MemoryosMemory implements MemoryService {
  readonly preset = MEMORYOS_PRESET;
  // Every vector index here holds SIF vectors from the shared wink embedder.
  readonly embedderName = WINK_EMBEDDER_NAME;
  private readonly segments = new Map<string, SegmentState>();
  private readonly segmentOfPage = new Map<string, string>();
  private readonly pageVectors = new Map<string, Float32Array>();
  private readonly pageOrder = new Map<string, number>();
  private readonly mean: RunningMean;
  private nextSegment = 1;
  private now: ConversationClock = { hours: 0, packet: -1 };
  private readonly counters = {
    promoted: 0,
    segmentsCreated: 0,
    evictedSegments: 0,
    evictedPages: 0,
    visits: 0,
  };
  private closed = false;

  private constructor(
    private readonly config: MemoryosPresetConfig,
    private readonly collection: HybridCollection,
    private readonly encoder: TurnEncoder,
    private readonly sessionHours: Map<number, number | null>,
    dim: number,
    /** Long-term facts; null when the run has no memory LLM. */
    private readonly longTerm: LlmNotes | null,
  ) {
    this.mean = new RunningMean(dim);
  }

  static async open(
    config: MemoryosPresetConfig,
    ctx: MemoryServiceContext,
  ): Promise<MemoryosMemory> {
    const { collection, embedder } = await openPresetCollection(MEMORYOS_PRESET, ctx);
    collection.createIndex(SHORT_TERM, {
      type: 'fifo',
      capacity: config.shortTermCapacity,
      overflow: 'evict-oldest',
    });
    collection.createIndex(PAGES_TEXT, { type: 'text' });
    collection.createIndex(SEGMENTS, { type: 'vector', dim: embedder.dim, space: 'cosine' });
    collection.createIndex(LINKS, { type: 'graph', directed: true, weighted: false });
    const hours = new Map(ctx.sample.sessions.map((s) => [s.index, conversationHours(s.dateTime)]));
    const encoder = new TurnEncoder(embedder, ctx.sample, config.previousTurnVector);
    const longTerm = ctx.llm
      ? LlmNotes.create(collection, encoder, ctx.llm, {
          prefix: 'long-term',
          label: 'Fact',
          system: longTermPrompt(ctx.sample.speakers, config.longTermFactsPerCall),
          maxNotes: config.longTermFactsPerCall,
          seed: ctx.seed ?? 0,
        })
      : null;
    return new MemoryosMemory(config, collection, encoder, hours, embedder.dim, longTerm);
  }

  async insert(packet: Packet, signal?: AbortSignal): Promise<void> {
    this.assertOpen();
    // A session without a date keeps the last known time; the packet index still moves on.
    const hours = this.sessionHours.get(packet.session_id) ?? null;
    this.now = { hours: hours ?? this.now.hours, packet: packet.packet_idx };
    const pages = this.encoder.encode(packet);
    if (pages.length === 0) return;
    const result = await this.collection.insert(
      pages.map((p) => p.item),
      { indexes: [SHORT_TERM, PAGES_TEXT] },
    );
    for (const p of pages) {
      this.pageVectors.set(p.item.id, p.vector);
      this.pageOrder.set(p.item.id, this.pageOrder.size);
    }
    for (const overflow of result.overflow) {
      for (const id of overflow.evicted) await this.promote(id);
    }
    // The mean moves after promotion so a page is compared against the turns before it.
    for (const p of pages) this.mean.add(p.vector);
    if (this.longTerm) {
      const c = this.config;
      for (const s of this.segments.values()) {
        if (
          s.pages.length - s.readPages >= c.longTermMinPages &&
          this.heat(s) >= c.longTermHeatThreshold
        )
          await this.readIntoLongTerm(s, signal);
      }
    }
    while (this.segments.size > this.config.midTermCapacity) await this.evictColdest(signal);
  }

  /** Has the long-term LLM read a segment's unread pages and keep its facts. */
  private async readIntoLongTerm(s: SegmentState, signal?: AbortSignal): Promise<void> {
    if (!this.longTerm || s.readPages >= s.pages.length) return;
    const unread = s.pages.slice(s.readPages);
    s.readPages = s.pages.length;
    await this.longTerm.write(unread, signal);
  }

  /** Moves a page the short-term fifo evicted into mid-term. */
  private async promote(pageId: string): Promise<void> {
    const vector = this.pageVectors.get(pageId);
    if (!vector) return;
    const centred = this.mean.center(vector);
    let best: SegmentState | null = null;
    let bestSim = -Infinity;
    // Exact scan: an approximate top-1 from hnsw could file a page in a different segment than
    // its true nearest, and the scan over at most midTermCapacity means is cheap.
    for (const s of this.segments.values()) {
      const sim = cosineOf(centred, s.centredSum);
      if (sim > bestSim) {
        bestSim = sim;
        best = s;
      }
    }
    this.counters.promoted++;
    if (best && bestSim >= this.config.segmentThreshold) {
      addInto(best.sum, vector);
      addInto(best.centredSum, centred);
      best.pages.push(pageId);
      best.lastTouched = this.now;
      this.collection.removeFromIndex(SEGMENTS, [best.id]);
      await this.collection.insertToIndex(SEGMENTS, [best.id], { vectors: [meanOf(best)] });
      await this.collection.insertToIndex(LINKS, [pageId]);
      this.collection.addEdges(LINKS, [{ from: best.id, to: pageId }]);
      this.segmentOfPage.set(pageId, best.id);
      return;
    }
    const id = `segment-${this.nextSegment++}`;
    const segment: SegmentState = {
      id,
      order: this.nextSegment,
      pages: [pageId],
      visits: 0,
      lastTouched: this.now,
      sum: Float32Array.from(vector),
      centredSum: centred,
      readPages: 0,
    };
    const [page] = this.collection.get([pageId]);
    await this.collection.insert(
      {
        id,
        // What the segment began with; its pages hold the rest.
        text: `segment started by ${page?.text ?? pageId}`,
        metadata: { kind: 'segment', startedBy: pageId },
        vectors: { [SEGMENTS]: vector },
      },
      { indexes: [SEGMENTS, LINKS] },
    );
    await this.collection.insertToIndex(LINKS, [pageId]);
    this.collection.addEdges(LINKS, [{ from: id, to: pageId }]);
    this.segments.set(id, segment);
    this.segmentOfPage.set(pageId, id);
    this.counters.segmentsCreated++;
  }

  private async evictColdest(signal?: AbortSignal): Promise<void> {
    let coldest: SegmentState | null = null;
    let coldestHeat = Infinity;
    for (const s of this.segments.values()) {
      const heat = this.heat(s);
      if (
        heat < coldestHeat ||
        (heat === coldestHeat && coldest !== null && s.order < coldest.order)
      ) {
        coldest = s;
        coldestHeat = heat;
      }
    }
    if (!coldest) return;
    // Long-term keeps what the LLM reads of it; the segment and its pages are then forgotten:
    // the segment item is deleted and its pages leave the graph and retrieval. The pages stay
    // stored and in the text index (removing from it trips a flexsearch bug); their hits are
    // dropped because they no longer have a vector here.
    await this.readIntoLongTerm(coldest, signal);
    this.collection.delete([coldest.id]);
    this.collection.removeFromIndex(LINKS, coldest.pages);
    this.segments.delete(coldest.id);
    for (const page of coldest.pages) {
      this.segmentOfPage.delete(page);
      this.pageVectors.delete(page);
    }
    this.counters.evictedSegments++;
    this.counters.evictedPages += coldest.pages.length;
  }

  private heat(s: SegmentState): number {
    return segmentHeat(s, this.now, this.config);
  }

  async retrieve(question: string, topK: number): Promise<MemoryHit[]> {
    this.assertOpen();
    if (topK <= 0 || this.pageVectors.size === 0) return [];
    const c = this.config;
    const q = this.encoder.embedQuery(question);
    const textQuery = c.dropQuestionWords ? stripQuestionWords(question) : question;
    const text =
      c.textWeight > 0
        ? normalizeByMax(
            (await this.collection.retrieve(PAGES_TEXT, textQuery, { topK: c.candidates })).filter(
              (h) => this.pageVectors.has(h.id),
            ),
          )
        : new Map<string, number>();

    // Segments: vector candidates plus the segments of lexically matching pages.
    const chosen: SegmentState[] = [];
    if (this.segments.size > 0 && c.topSegments > 0) {
      const vectorHits = await this.collection.retrieve(SEGMENTS, q, { topK: c.segmentCandidates });
      const candidates = new Set(vectorHits.map((h) => h.id));
      for (const page of text.keys()) {
        const seg = this.segmentOfPage.get(page);
        if (seg !== undefined) candidates.add(seg);
      }
      const segs = [...candidates]
        .map((id) => this.segments.get(id))
        .filter((s): s is SegmentState => s !== undefined);
      const sims = normalizeMinMax(segs.map((s) => ({ id: s.id, score: cosineOf(q, s.sum) })));
      const heats = new Map(segs.map((s) => [s.id, this.heat(s)]));
      const maxHeat = Math.max(0, ...heats.values());
      const scored = segs.map((s) => {
        let lexical = 0;
        for (const page of s.pages) lexical = Math.max(lexical, text.get(page) ?? 0);
        const base = c.vectorWeight * (sims.get(s.id) ?? 0) + c.textWeight * lexical;
        const heat = maxHeat > 0 ? (heats.get(s.id) ?? 0) / maxHeat : 0;
        return { s, score: base * (1 + c.heatWeight * heat) };
      });
      scored.sort((a, b) => b.score - a.score || a.s.order - b.s.order);
      for (const { s, score } of scored.slice(0, c.topSegments)) if (score > 0) chosen.push(s);
    }

    // Pages: all of short-term, and the chosen segments' pages (read through the graph links).
    const pageIds = new Set(this.collection.memberIds(SHORT_TERM));
    for (const s of chosen) {
      const linked = await this.collection.retrieve(
        LINKS,
        { start: [s.id] },
        {
          maxDepth: 1,
          maxNodes: s.pages.length + 1,
          topK: s.pages.length + 1,
        },
      );
      for (const h of linked) if (h.depth === 1) pageIds.add(h.id);
    }
    const facts = this.longTerm
      ? await this.longTerm.retrieve(textQuery, q, Math.min(c.longTermTopK, topK))
      : [];
    const ids = [...pageIds];
    const sims = normalizeMinMax(ids.map((id) => ({ id, score: this.pageSim(q, id) })));
    const ranked = ids
      .map((id) => ({
        id,
        score: c.vectorWeight * (sims.get(id) ?? 0) + c.textWeight * (text.get(id) ?? 0),
        order: this.pageOrder.get(id) ?? 0,
      }))
      .sort((a, b) => b.score - a.score || b.order - a.order)
      .slice(0, topK - facts.length);

    if (c.learnsFromQueries) {
      // A segment whose page reaches the answerer counts as visited, at the current conversation time.
      const used = new Set(ranked.map((r) => this.segmentOfPage.get(r.id)));
      for (const s of chosen) {
        if (!used.has(s.id)) continue;
        s.visits++;
        s.lastTouched = this.now;
        this.counters.visits++;
      }
    }

    const stored = this.collection.get(ranked.map((r) => r.id));
    const hits: MemoryHit[] = [];
    ranked.forEach((r, i) => {
      const item = stored[i];
      if (item) hits.push(turnHit(item, r.score));
    });
    return [...hits, ...facts];
  }

  private pageSim(q: Float32Array, id: string): number {
    const v = this.pageVectors.get(id);
    return v ? cosineOf(q, v) : 0;
  }

  /** Mid-term segments, hottest first (ties: older first): for tests and inspection. */
  midTerm(): MidTermSnapshot[] {
    return [...this.segments.values()]
      .map((s) => ({
        id: s.id,
        pages: [...s.pages],
        visits: s.visits,
        heat: this.heat(s),
        order: s.order,
      }))
      .sort((a, b) => b.heat - a.heat || a.order - b.order)
      .map(({ id, pages, visits, heat }) => ({ id, pages, visits, heat }));
  }

  stats(): Record<string, number> {
    let midTermPages = 0;
    for (const s of this.segments.values()) midTermPages += s.pages.length;
    const out: Record<string, number> = {
      'midTerm.segments': this.segments.size,
      'midTerm.pages': midTermPages,
      promoted: this.counters.promoted,
      segmentsCreated: this.counters.segmentsCreated,
      'evicted.segments': this.counters.evictedSegments,
      'evicted.pages': this.counters.evictedPages,
      visits: this.counters.visits,
      ...this.longTerm?.stats(),
    };
    if (!this.closed) {
      out['items'] = this.collection.count();
      out['shortTerm.pages'] = this.collection.count(SHORT_TERM);
    }
    return out;
  }

  notes(): string[] {
    const c = this.config;
    return [
      `memoryos: short-term ${c.shortTermCapacity} pages (page = one turn); mid-term segments by centred ` +
        `cosine >= ${c.segmentThreshold}, capacity ${c.midTermCapacity} (coldest evicted); heat = ` +
        `${c.alpha}*visits + ${c.beta}*pages + ${c.gamma}*exp(-age/${c.recencyTauHours}h) in conversation time`,
      ...(this.longTerm
        ? [
            `memoryos: long-term facts on (${this.longTerm.llm.model}): up to ${c.longTermFactsPerCall} facts per read of a segment's ` +
              `pages at heat >= ${c.longTermHeatThreshold} (>= ${c.longTermMinPages} unread pages) or on eviction; ` +
              `${c.longTermTopK} facts per retrieval`,
            ...this.longTerm.failureNote(MEMORYOS_PRESET),
          ]
        : [LONG_TERM_OFF_NOTE]),
      ...(c.learnsFromQueries ? [LEARNS_FROM_QUERIES_NOTE] : []),
    ];
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.collection.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`memory preset ${MEMORYOS_PRESET}: used after close`);
  }
}

/** What the long-term LLM is asked (MemoryOS's user profile and knowledge, in one list). */
export function longTermPrompt(speakers: readonly string[], maxFacts: number): string {
  return (
    `You maintain the long-term memory of a conversation between ${speakers.join(' and ')}. ` +
    `From the turns below, write up to ${maxFacts} durable facts about the speakers: persona, ` +
    `preferences, relationships, plans and events. Start each fact with the speaker's name, keep ` +
    `names, numbers and places, and turn relative dates ("yesterday", "last week") into dates ` +
    `using the session date in brackets. One fact per line, no numbering; write "none" if there ` +
    `is nothing lasting.`
  );
}

function addInto(target: Float32Array, v: Float32Array): void {
  for (let i = 0; i < target.length; i++) target[i] = (target[i] as number) + (v[i] ?? 0);
}

function meanOf(s: SegmentState): Float32Array {
  return s.sum.map((x) => x / s.pages.length);
}

export const memoryosPreset: MemoryServiceFactory = async (config, ctx) =>
  MemoryosMemory.open(parsePresetConfig(MEMORYOS_PRESET, memoryosPresetConfigSchema, config), ctx);

export const memoryosPresetDefinition: MemoryPresetDefinition = {
  name: MEMORYOS_PRESET,
  create: memoryosPreset,
  configSchema: memoryosPresetConfigSchema,
  llmStage: 'long-term facts',
};
