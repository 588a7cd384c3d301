/**
 * `locomo-rag-dialog`, `locomo-rag-observation`, `locomo-rag-summary`: the three retrieval
 * databases of the LoCoMo paper's RAG baselines (snap-research/locomo, branch `code`,
 * task_eval/evaluate_gpts.py `prepare_for_rag` l. 74-201 and `get_rag_context` l. 273-297):
 *
 * - dialog: one entry per turn, `<speaker> said, "<clean_text>"` (no image caption), its dia_id;
 * - observation: the dataset's `observation` field, `session_<n>_observation` per session, one
 *   entry per `[fact, dia_id]` pair (speakers in the file's order), credited to the cited turns;
 * - summary: the dataset's `session_summary` field, one entry per session, id `S<n>`.
 *
 * Every entry carries its session's date as written (the `locomo-rag` answer protocol prefixes
 * it) and its LoCoMo context ids (the LoCoMo recall convention counts on them). Retrieval is the
 * reference's: the entries with the k largest dot products between the question's vector and the
 * entry's (`np.dot` then `argsort`), over an hnsw inner-product index whose `ef` is at least the
 * database's size, so the search is exhaustive. What differs from the paper: the embedder
 * (wink SIF by default, offline; the paper uses DRAGON or Contriever, two-tower models with a
 * query and a context encoder) and when entries exist: in `stream` mode an observation enters once
 * every turn it cites has been inserted, a summary once its session's last turn has (in
 * `ingest-all` mode everything is in before the first question, as in the paper).
 */
import { z } from 'zod';
import type { Packet, Sample } from '../../../../src-shared/dataset';
import { EmbedderChoiceSchema, WINK_EMBEDDER } from '../../../../src-shared/embedders';
import type { MemoryHit, MemorySource } from '../request';
import {
  DEFAULT_VECTOR_EF_CONSTRUCTION,
  DEFAULT_VECTOR_M,
  HybridCollection,
} from '../../collection';
import type { Embedder } from '../../embed';
import type { MemoryPresetDefinition } from '../registry';
import { embedderCounters, openServiceEmbedder } from '../retrieval/embedder';
import type { MemoryService, MemoryServiceContext } from '../types';
import { sessionDates } from '../retrieval/turns';
import { parsePresetConfig } from './shared';

export const LOCOMO_RAG_DATABASES = ['dialog', 'observation', 'summary'] as const;
export type LocomoRagDatabase = (typeof LOCOMO_RAG_DATABASES)[number];

export const locomoRagPresetName = (db: LocomoRagDatabase): string => `locomo-rag-${db}`;

const VECTOR = 'vector';
/** hnsw's search list floor: above any LoCoMo database (a sample has at most ~700 turns). */
const EXHAUSTIVE_EF = 4096;

export const locomoRagPresetConfigSchema = z.strictObject({
  /** `wink-sif-100d` (offline default) or an OpenAI-compatible embeddings endpoint. */
  embedder: EmbedderChoiceSchema.default(WINK_EMBEDDER),
});
export type LocomoRagPresetConfig = z.output<typeof locomoRagPresetConfigSchema>;

/** One entry of a LoCoMo RAG database, as `prepare_for_rag` builds it. */
export interface RagEntry {
  id: string;
  /** The text embedded and shown: `context` in the reference's database. */
  text: string;
  /** `date_time` in the reference's database: the session's date as the file writes it. */
  dateTimeText: string;
  /** `dia_id` in the reference's database, expanded as `get_rag_context` expands it. */
  contextIds: string[];
  sessionIndex: number;
  speaker: string | null;
  /** Inserted once this many turns of the sample (in conversation order) are in. */
  releaseAfterTurns: number;
}

/** `get_rag_context`: a `,`-joined id string is split (and stripped), a list is taken whole. */
export function expandContextId(id: unknown): string[] {
  if (Array.isArray(id)) return id.filter((v): v is string => typeof v === 'string');
  if (typeof id !== 'string') return [];
  return id.includes(',') ? id.split(',').map((s) => s.trim()) : [id];
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/**
 * The database of one sample, in the reference's order (sessions ascending, skipping empty ones).
 * An observation or summary the file lacks is simply absent (the reference would generate it
 * with an LLM; the released file has them all).
 */
export function ragDatabase(sample: Sample, db: LocomoRagDatabase): RagEntry[] {
  const turnEnd = new Map<string, number>();
  const sessionEnd = new Map<number, number>();
  let seen = 0;
  for (const session of sample.sessions) {
    for (const turn of session.turns) turnEnd.set(turn.diaId, ++seen);
    sessionEnd.set(session.index, seen);
  }
  const entries: RagEntry[] = [];
  for (const session of sample.sessions) {
    if (session.turns.length === 0) continue;
    const dateTimeText = session.dateTimeText ?? '';
    const end = sessionEnd.get(session.index) ?? seen;
    if (db === 'dialog') {
      for (const turn of session.turns) {
        entries.push({
          id: turn.diaId,
          text: `${turn.speaker} said, "${turn.rawText}"`,
          dateTimeText,
          contextIds: [turn.diaId],
          sessionIndex: session.index,
          speaker: turn.speaker,
          releaseAfterTurns: turnEnd.get(turn.diaId) ?? end,
        });
      }
    } else if (db === 'observation') {
      const facts = record(record(sample.aux.observation)[`session_${session.index}_observation`]);
      let n = 0;
      for (const [speaker, list] of Object.entries(facts)) {
        if (!Array.isArray(list)) continue;
        for (const pair of list) {
          if (!Array.isArray(pair) || typeof pair[0] !== 'string') continue;
          const contextIds = expandContextId(pair[1]);
          // Cited turns that exist; a fact citing none enters with its session's last turn.
          const cited = contextIds
            .map((id) => turnEnd.get(id))
            .filter((v): v is number => v !== undefined);
          entries.push({
            id: `O${session.index}:${++n}`,
            text: pair[0],
            dateTimeText,
            contextIds,
            sessionIndex: session.index,
            speaker,
            releaseAfterTurns: cited.length > 0 ? Math.max(...cited) : end,
          });
        }
      }
    } else {
      const summary = record(sample.aux.sessionSummary)[`session_${session.index}_summary`];
      if (typeof summary !== 'string') continue;
      entries.push({
        id: `S${session.index}`,
        text: summary,
        dateTimeText,
        contextIds: [`S${session.index}`],
        sessionIndex: session.index,
        speaker: null,
        releaseAfterTurns: end,
      });
    }
  }
  return entries;
}

/** One LoCoMo RAG database in one collection (items + an exhaustive inner-product index). */
export class LocomoRagMemory implements MemoryService {
  readonly preset: string;
  private pending: RagEntry[];
  private readonly dates: Map<number, string | null>;
  private readonly entries = new Map<string, RagEntry>();
  private readonly turnsSeen = new Map<string, number>();
  private inserted = 0;
  private closed = false;

  get embedderName(): string {
    return this.embedder.name;
  }

  private constructor(
    private readonly db: LocomoRagDatabase,
    private readonly collection: HybridCollection,
    private readonly embedder: Embedder,
    sample: Sample,
  ) {
    this.preset = locomoRagPresetName(db);
    this.pending = ragDatabase(sample, db);
    this.dates = sessionDates(sample);
    let n = 0;
    for (const session of sample.sessions)
      for (const turn of session.turns) this.turnsSeen.set(turn.diaId, ++n);
  }

  static async open(
    db: LocomoRagDatabase,
    config: LocomoRagPresetConfig,
    ctx: MemoryServiceContext,
  ): Promise<LocomoRagMemory> {
    const embedder = await openServiceEmbedder(config.embedder, ctx);
    const collection = HybridCollection.open(ctx.dir, {
      name: `${locomoRagPresetName(db)} ${ctx.sample.sampleId}`,
      ...(ctx.logger ? { logger: ctx.logger } : {}),
    });
    try {
      if (!collection.listIndexes().some((i) => i.name === VECTOR)) {
        collection.createIndex(VECTOR, {
          type: 'vector',
          dim: embedder.dim,
          space: 'ip',
          M: DEFAULT_VECTOR_M,
          efConstruction: DEFAULT_VECTOR_EF_CONSTRUCTION,
          ef: EXHAUSTIVE_EF,
        });
      }
      const memory = new LocomoRagMemory(db, collection, embedder, ctx.sample);
      // A reopened collection (resume) already holds some entries: skip them.
      const stored = new Set(collection.memberIds(VECTOR));
      for (const e of memory.pending) if (stored.has(e.id)) memory.entries.set(e.id, e);
      memory.pending = memory.pending.filter((e) => !stored.has(e.id));
      return memory;
    } catch (error) {
      collection.close();
      throw error;
    }
  }

  async insert(packet: Packet, signal?: AbortSignal): Promise<void> {
    this.assertOpen();
    for (const turn of packet.dialogs)
      this.inserted = Math.max(this.inserted, this.turnsSeen.get(turn.diaId) ?? 0);
    // Observations may cite a later turn than the entry after them: take every due one, in order.
    const due = this.pending.filter((e) => e.releaseAfterTurns <= this.inserted);
    if (due.length > 0)
      this.pending = this.pending.filter((e) => e.releaseAfterTurns > this.inserted);
    if (due.length === 0) return;
    const vectors = await this.embedder.embed(
      due.map((e) => e.text),
      signal ? { signal } : {},
    );
    await this.collection.insert(
      due.map((e, i) => ({
        id: e.id,
        text: e.text,
        metadata: { ...e },
        vectors: { [VECTOR]: vectors[i] as Float32Array },
      })),
    );
    for (const e of due) this.entries.set(e.id, e);
  }

  async retrieve(question: string, topK: number): Promise<MemoryHit[]> {
    this.assertOpen();
    if (topK <= 0 || this.entries.size === 0) return [];
    const query = (await this.embedder.embed([question]))[0] as Float32Array;
    const hits = await this.collection.retrieve(VECTOR, query, { topK });
    const out: MemoryHit[] = [];
    for (const hit of hits) {
      const e = this.entries.get(hit.id);
      if (!e) continue;
      const source: MemorySource = {
        kind: this.db === 'dialog' ? 'turn' : this.db,
        contextIds: e.contextIds,
        dateTimeText: e.dateTimeText,
      };
      out.push({
        id: e.id,
        diaId: this.db === 'dialog' ? e.id : null,
        text: e.text,
        speaker: e.speaker,
        score: hit.score,
        sessionDateTime: this.dates.get(e.sessionIndex) ?? null,
        source,
      });
    }
    return out;
  }

  stats(): Record<string, number> {
    return {
      items: this.entries.size,
      pending: this.pending.length,
      ...embedderCounters([this.embedder]),
    };
  }

  notes(): string[] {
    return [
      `${this.preset}: LoCoMo's ${this.db} database (task_eval/evaluate_gpts.py prepare_for_rag); ` +
        `top k by inner product over ${this.embedder.name} vectors, exhaustive (the paper: DRAGON/Contriever)`,
    ];
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.collection.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`memory preset ${this.preset}: used after close`);
  }
}

/** One preset per LoCoMo RAG database: `locomo-rag-dialog`, `-observation` and `-summary`. */
export const locomoRagPresetDefinitions: MemoryPresetDefinition[] = LOCOMO_RAG_DATABASES.map(
  (db) => ({
    name: locomoRagPresetName(db),
    create: async (config, ctx) =>
      LocomoRagMemory.open(
        db,
        parsePresetConfig(locomoRagPresetName(db), locomoRagPresetConfigSchema, config),
        ctx,
      ),
    configSchema: locomoRagPresetConfigSchema,
    embedder: true,
  }),
);
