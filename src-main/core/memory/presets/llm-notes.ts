import type { MemoryHit } from '../request';
import type { HybridCollection } from '../../collection';
import { asTurnMetadata } from '../retrieval/turns';
import type { MemoryLlm } from '../types';
import { cosineOf, normalizeMinMax, type TurnEncoder } from './shared';

/**
 * Notes a memory service has an LLM write about turns (memoryos long-term facts, tiers summaries),
 * stored as items of the service's one collection in their own text and vector indexes, and
 * retrieved beside the turns. A note carries the dia_ids it was written from and the latest
 * session date among them, so the answerer can date it.
 *
 * The LLM is best effort: a failed call is counted (stats `llm.failures`, with the first error in
 * notes()) and the turns stay as they were, so a flaky endpoint degrades the memory instead of
 * failing inserts.
 */

export interface LlmNotesOptions {
  /** Index names are `<prefix>-text` and `<prefix>-vector`; item ids `<prefix>-<n>`. */
  prefix: string;
  /** Shown before each note's text, e.g. "Fact", "Summary". */
  label: string;
  system: string;
  /** At most this many notes per call (extra lines are dropped). */
  maxNotes: number;
  seed: number;
}

/** Longest note kept; an LLM that ignores "short" does not get to fill the context. */
const MAX_NOTE_CHARS = 400;

export class LlmNotes {
  private next = 1;
  private readonly vectors = new Map<string, Float32Array>();
  private readonly counters = {
    calls: 0,
    failures: 0,
    notes: 0,
    promptTokens: 0,
    completionTokens: 0,
  };
  private firstError: string | null = null;
  private readonly textIndex: string;
  private readonly vectorIndex: string;

  private constructor(
    private readonly collection: HybridCollection,
    private readonly encoder: TurnEncoder,
    readonly llm: MemoryLlm,
    private readonly options: LlmNotesOptions,
  ) {
    this.textIndex = `${options.prefix}-text`;
    this.vectorIndex = `${options.prefix}-vector`;
  }

  static create(
    collection: HybridCollection,
    encoder: TurnEncoder,
    llm: MemoryLlm,
    options: LlmNotesOptions,
  ): LlmNotes {
    collection.createIndex(`${options.prefix}-text`, { type: 'text' });
    collection.createIndex(`${options.prefix}-vector`, {
      type: 'vector',
      dim: encoder.dim,
      space: 'cosine',
    });
    return new LlmNotes(collection, encoder, llm, options);
  }

  get size(): number {
    return this.vectors.size;
  }

  /**
   * Asks the LLM for notes on the stored turns `ids` (each with its session date) and stores each
   * line it answers as one note. An aborted call (the insert's deadline) counts as a failure.
   */
  async write(ids: readonly string[], signal?: AbortSignal): Promise<void> {
    const turns = this.collection.get(ids).flatMap((item) =>
      item
        ? [
            {
              id: item.id,
              text: item.text,
              sessionDateTime: asTurnMetadata(item.metadata, item.id).sessionDateTime,
            },
          ]
        : [],
    );
    if (turns.length === 0) return;
    const dated = turns.map((t) =>
      t.sessionDateTime ? `[${t.sessionDateTime}] ${t.text}` : t.text,
    );
    let content: string;
    try {
      const reply = await this.llm.complete(
        [
          { role: 'system', content: this.options.system },
          { role: 'user', content: dated.join('\n') },
        ],
        { seed: this.options.seed, ...(signal ? { signal } : {}) },
      );
      content = reply.content;
      this.counters.calls++;
      this.counters.promptTokens += reply.usage?.promptTokens ?? 0;
      this.counters.completionTokens += reply.usage?.completionTokens ?? 0;
    } catch (error) {
      this.counters.failures++;
      this.firstError ??= error instanceof Error ? error.message : String(error);
      return;
    }
    const lines = noteLines(content).slice(0, this.options.maxNotes);
    if (lines.length === 0) return;
    const sources = turns.map((t) => t.id);
    const latest = turns.reduce<string | null>(
      (acc, t) =>
        t.sessionDateTime && (acc === null || t.sessionDateTime > acc) ? t.sessionDateTime : acc,
      null,
    );
    const items = lines.map((line) => {
      const id = `${this.options.prefix}-${this.next++}`;
      const vector = this.encoder.embedQuery(line);
      this.vectors.set(id, vector);
      return {
        id,
        text: `${this.options.label}: ${line}`,
        metadata: { kind: this.options.prefix, sources, sessionDateTime: latest },
        vectors: { [this.vectorIndex]: vector },
      };
    });
    await this.collection.insert(items, { indexes: [this.textIndex, this.vectorIndex] });
    this.counters.notes += items.length;
  }

  /** The `n` notes that best match the question: BM25 and cosine, min-max normalised, summed. */
  async retrieve(question: string, query: Float32Array, n: number): Promise<MemoryHit[]> {
    if (n <= 0 || this.vectors.size === 0) return [];
    const pool = Math.min(this.vectors.size, Math.max(n * 5, 20));
    const text = normalizeMinMax(
      await this.collection.retrieve(this.textIndex, question, { topK: pool }),
    );
    const ids = [...this.vectors.keys()];
    const sims = normalizeMinMax(
      ids.map((id) => ({ id, score: cosineOf(query, this.vectors.get(id) as Float32Array) })),
    );
    const ranked = ids
      .map((id, order) => ({ id, order, score: (sims.get(id) ?? 0) + (text.get(id) ?? 0) }))
      .sort((a, b) => b.score - a.score || a.order - b.order)
      .slice(0, n);
    const stored = this.collection.get(ranked.map((r) => r.id));
    const hits: MemoryHit[] = [];
    ranked.forEach((r, i) => {
      const item = stored[i];
      if (!item) return;
      const date = item.metadata?.['sessionDateTime'];
      hits.push({
        id: item.id,
        // A note is no dataset turn: evidence recall counts only the turns retrieved.
        diaId: null,
        text: item.text,
        speaker: null,
        score: r.score,
        sessionDateTime: typeof date === 'string' ? date : null,
      });
    });
    return hits;
  }

  /**
   * `llm.*` counters for the service's stats: `llm.calls` counts completed calls (as token totals
   * do elsewhere), `llm.failures` the others. The runner sums the token counts per run.
   */
  stats(): Record<string, number> {
    return {
      'llm.calls': this.counters.calls,
      'llm.failures': this.counters.failures,
      'llm.promptTokens': this.counters.promptTokens,
      'llm.completionTokens': this.counters.completionTokens,
      [`${this.options.prefix}.notes`]: this.counters.notes,
    };
  }

  /** A manifest note when calls failed: how many, and the first error. */
  failureNote(preset: string): string[] {
    if (this.counters.failures === 0) return [];
    return [
      `${preset}: ${this.counters.failures} of ${this.counters.calls + this.counters.failures} memory LLM calls failed (their turns were kept without notes); first: ${this.firstError ?? 'unknown'}`,
    ];
  }
}

/** One note per non-empty line, list markers and numbering removed. */
export function noteLines(content: string): string[] {
  return content
    .split('\n')
    .map((line) => line.replace(/^\s*(?:[-*•]|\d+[.)])\s*/, '').trim())
    .filter((line) => line.length > 0 && !/^(none|n\/a)\.?$/i.test(line))
    .map((line) => (line.length > MAX_NOTE_CHARS ? `${line.slice(0, MAX_NOTE_CHARS)}…` : line));
}
