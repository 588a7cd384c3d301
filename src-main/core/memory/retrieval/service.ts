import { monthYear } from '../../../../src-shared/calendar';
import { memoizeString } from '../../../../src-shared/memo';
import type { Packet, Sample } from '../../../../src-shared/dataset';
import type { MemoryHit } from '../request';
import { HybridCollection, type MultiQuery } from '../../collection';
import { WINK_EMBEDDER, type EmbedderChoice } from '../../../../src-shared/embedders';
import type { Embedder } from '../../embed';
import type { MemoryService, MemoryServiceContext } from '../types';
import type { HybridPresetConfig, TextPresetConfig, VectorPresetConfig } from './config';
import { embedderCounters, openServiceEmbedder } from './embedder';
import { mentionedSpeakers, stripQuestionWords } from './query';
import { TurnOrder, asksWhen, mentionsTime } from './rerank';
import { asTurnMetadata, packetItems, sessionDates, type TurnMetadata } from './turns';

/** Index names inside a turn collection. */
export const TEXT_INDEX = 'text';
export const VECTOR_INDEX = 'vector';

export type TurnPresetName = 'vector' | 'text' | 'hybrid';

/** What one preset turns on; derived from its validated config by `settingsOf`. */
export interface TurnRetrievalSettings {
  preset: string;
  vector: {
    embedder: EmbedderChoice;
    weight: number;
    previousTurnVector: number;
    M: number;
    efConstruction: number;
    ef: number;
  } | null;
  text: {
    weight: number;
    k1: number;
    b: number;
    stem: boolean;
    textWindow: number;
    dateWords: boolean;
  } | null;
  fusion: 'weighted' | 'rrf';
  rrfK: number;
  candidates: number;
  previousTurnScore: number;
  nextTurnScore: number;
  speakerBoost: number;
  sessionScore: number;
  timeBoost: number;
  dropQuestionWords: boolean;
}

export function vectorSettings(c: VectorPresetConfig, preset = 'vector'): TurnRetrievalSettings {
  return {
    preset,
    vector: {
      embedder: c.embedder,
      weight: 1,
      previousTurnVector: c.previousTurnVector,
      M: c.M,
      efConstruction: c.efConstruction,
      ef: c.ef,
    },
    text: null,
    fusion: 'weighted',
    rrfK: 60,
    ...common(c),
  };
}

export function textSettings(c: TextPresetConfig, preset = 'text'): TurnRetrievalSettings {
  return {
    preset,
    vector: null,
    text: { weight: 1, ...textIndexSettings(c) },
    fusion: 'weighted',
    rrfK: 60,
    ...common(c),
  };
}

export function hybridSettings(c: HybridPresetConfig, preset = 'hybrid'): TurnRetrievalSettings {
  return {
    preset,
    vector: {
      embedder: c.embedder,
      weight: c.vectorWeight,
      previousTurnVector: c.previousTurnVector,
      M: c.M,
      efConstruction: c.efConstruction,
      ef: c.ef,
    },
    text: { weight: c.textWeight, ...textIndexSettings(c) },
    fusion: c.fusion,
    rrfK: c.rrfK,
    ...common(c),
  };
}

function textIndexSettings(c: TextPresetConfig | HybridPresetConfig) {
  return { k1: c.k1, b: c.b, stem: c.stem, textWindow: c.textWindow, dateWords: c.dateWords };
}

function common(c: TextPresetConfig | VectorPresetConfig) {
  return {
    candidates: c.candidates,
    previousTurnScore: c.previousTurnScore,
    nextTurnScore: c.nextTurnScore,
    speakerBoost: c.speakerBoost,
    sessionScore: c.sessionScore,
    timeBoost: c.timeBoost,
    dropQuestionWords: c.dropQuestionWords,
  };
}

/**
 * One memory item per turn in one HybridCollection; retrieval fuses the enabled indexes, then
 * re-ranks the candidate pool (candidates and their neighbours) by neighbour context and the
 * speakers the question names. See README.md for the reasoning and docs/benchmarks.md for what
 * each step buys on LoCoMo.
 */
export class TurnRetrievalService implements MemoryService {
  readonly preset: string;

  get embedderName(): string | null {
    return this.embedder?.name ?? null;
  }
  private readonly turns = new TurnOrder();
  /**
   * What a hit shows of each stored turn, kept as inserted: the collection never changes a
   * stored item, and the hits of every question would otherwise be read back from SQLite.
   */
  private readonly shown = new Map<string, { text: string; meta: TurnMetadata }>();
  /** What retrieval needs of a question, worked out once: each one is asked at every test. */
  private readonly analyse = memoizeString((question: string) => ({
    textQuery: this.settings.dropQuestionWords ? stripQuestionWords(question) : question,
    named: mentionedSpeakers(question, this.sample.speakers),
    aboutTime: this.settings.timeBoost > 0 && asksWhen(question),
  }));
  /**
   * Question vectors of the offline embedder, which is deterministic and counts nothing (the
   * turn presets never fit it); an endpoint's are asked for each time, as its cache counts hits.
   */
  private readonly questionVectors: Map<string, Float32Array> | null;
  private readonly dates: Map<number, string | null>;
  /** Raw vector of the last inserted turn, for the next turn's context vector. */
  private last: { session: number; vector: Float32Array } | null = null;
  /** The last turns' texts of the current session, oldest first, for the BM25 context window. */
  private window: { session: number; texts: string[] } = { session: -1, texts: [] };
  private closed = false;

  private constructor(
    private readonly settings: TurnRetrievalSettings,
    private readonly collection: HybridCollection,
    private readonly embedder: Embedder | null,
    private readonly sample: Sample,
  ) {
    this.preset = settings.preset;
    this.dates = sessionDates(sample);
    this.questionVectors = settings.vector?.embedder === WINK_EMBEDDER ? new Map() : null;
  }

  static async open(
    settings: TurnRetrievalSettings,
    ctx: MemoryServiceContext,
  ): Promise<TurnRetrievalService> {
    // Built here, not by the collection: the service embeds turns and questions itself and
    // passes vectors in, so the collection never needs to know which embedder made them.
    const embedder = settings.vector
      ? await openServiceEmbedder(settings.vector.embedder, ctx)
      : null;
    const collection = HybridCollection.open(ctx.dir, {
      name: `${settings.preset} ${ctx.sample.sampleId}`,
      ...(ctx.logger ? { logger: ctx.logger } : {}),
    });
    try {
      const existing = new Set(collection.listIndexes().map((i) => i.name));
      if (settings.text && !existing.has(TEXT_INDEX)) {
        const { k1, b, stem } = settings.text;
        collection.createIndex(TEXT_INDEX, { type: 'text', k1, b, stem });
      }
      if (settings.vector && embedder && !existing.has(VECTOR_INDEX)) {
        const { M, efConstruction, ef } = settings.vector;
        collection.createIndex(VECTOR_INDEX, {
          type: 'vector',
          dim: embedder.dim,
          space: 'cosine',
          M,
          efConstruction,
          ef,
        });
      }
      const service = new TurnRetrievalService(settings, collection, embedder, ctx.sample);
      await service.restore();
      return service;
    } catch (error) {
      collection.close();
      throw error;
    }
  }

  async insert(packet: Packet, signal?: AbortSignal): Promise<void> {
    this.assertOpen();
    const items = packetItems(packet, this.dates);
    if (items.length === 0) return;
    if (this.settings.vector && this.embedder) {
      const raw = await this.embedder.embed(
        items.map((item) => item.text),
        signal ? { signal } : {},
      );
      packet.dialogs.forEach((turn, i) => {
        const own = raw[i] as Float32Array;
        const prev = this.last && this.last.session === turn.sessionIndex ? this.last.vector : null;
        (items[i] as (typeof items)[number]).vectors = {
          [VECTOR_INDEX]: contextVector(own, prev, this.settings.vector?.previousTurnVector ?? 0),
        };
        this.last = { session: turn.sessionIndex, vector: own };
      });
    }
    if (this.settings.text) {
      packet.dialogs.forEach((turn, i) => {
        const item = items[i] as (typeof items)[number];
        const indexText = this.indexText(item.text, turn.sessionIndex);
        if (indexText !== item.text) item.indexTexts = { [TEXT_INDEX]: indexText };
      });
    }
    await this.collection.insert(items);
    packet.dialogs.forEach((turn, i) => {
      const item = items[i] as (typeof items)[number];
      this.remember(turn.diaId, item.text, item.metadata ?? {});
    });
  }

  /** Places a stored turn in the turn order and keeps what its hits show. */
  private remember(id: string, text: string, metadata: Record<string, unknown>): void {
    const meta = asTurnMetadata(metadata, id);
    this.turns.place(id, meta.sessionIndex, meta.speaker, mentionsTime(text));
    if (!this.shown.has(id)) this.shown.set(id, { text, meta });
  }

  async retrieve(question: string, topK: number): Promise<MemoryHit[]> {
    this.assertOpen();
    if (this.turns.size === 0 || topK <= 0) return [];
    const s = this.settings;
    const asked = this.analyse(question);
    const queries: MultiQuery[] = [];
    if (s.text) queries.push({ index: TEXT_INDEX, query: asked.textQuery, weight: s.text.weight });
    if (s.vector && this.embedder) {
      const vector = await this.questionVector(question, this.embedder);
      queries.push({ index: VECTOR_INDEX, query: vector, weight: s.vector.weight });
    }
    // Fused over ids: only the turns that survive the re-ranking have their texts read.
    const fused = await this.collection.rankMulti(queries, {
      topK: s.candidates,
      candidates: s.candidates,
      fusion: s.fusion,
      rrfK: s.rrfK,
    });
    const ranked = this.turns.rerank(
      fused.map((h) => [h.id, h.score] as const),
      asked.named,
      s,
      asked.aboutTime,
      topK,
    );
    const hits: MemoryHit[] = [];
    for (const { id, score } of ranked) {
      const turn = this.shown.get(id);
      if (!turn) continue;
      hits.push({
        id,
        diaId: turn.meta.diaId,
        text: turn.text,
        speaker: turn.meta.speaker || null,
        score,
        sessionDateTime: turn.meta.sessionDateTime,
      });
    }
    return hits;
  }

  private async questionVector(question: string, embedder: Embedder): Promise<Float32Array> {
    const known = this.questionVectors?.get(question);
    if (known) return known;
    const vector = (await embedder.embed([question]))[0] as Float32Array;
    if (this.questionVectors) {
      // A service answers one sample's questions; the bound is for a caller that asks many more.
      if (this.questionVectors.size >= 10_000) this.questionVectors.clear();
      this.questionVectors.set(question, vector);
    }
    return vector;
  }

  /**
   * The turn's BM25 document: the session's last `textWindow` turns, the turn, and the session's
   * month and year when `dateWords` is on. Moves the window on to this turn.
   */
  private indexText(text: string, session: number): string {
    const settings = this.settings.text;
    if (!settings) return text;
    const window = this.pushWindow(text, session, settings.textWindow);
    const parts = [...window, text];
    if (settings.dateWords) parts.push(dateWords(this.dates.get(session) ?? null));
    return parts.filter((p) => p !== '').join('\n');
  }

  /** The turns before `text` in its session (at most `size`), then `text` joins the window. */
  private pushWindow(text: string, session: number, size: number): string[] {
    if (size === 0) return [];
    if (this.window.session !== session) this.window = { session, texts: [] };
    const before = this.window.texts.slice();
    this.window.texts.push(text);
    if (this.window.texts.length > size) this.window.texts.shift();
    return before;
  }

  /** Rebuilds the turn order (and the last turn's vector) from a reopened collection. */
  private async restore(): Promise<void> {
    const index = this.settings.text ? TEXT_INDEX : VECTOR_INDEX;
    const ids = this.collection.memberIds(index);
    if (ids.length === 0) return;
    const items = this.collection.get(ids);
    let lastItem: { text: string; session: number } | null = null;
    items.forEach((item, i) => {
      if (!item) return;
      const meta = asTurnMetadata(item.metadata, ids[i] as string);
      this.remember(item.id, item.text, item.metadata);
      this.pushWindow(item.text, meta.sessionIndex, this.settings.text?.textWindow ?? 0);
      if (i === items.length - 1) lastItem = { text: item.text, session: meta.sessionIndex };
    });
    const last = lastItem as { text: string; session: number } | null;
    if (last && this.embedder) {
      const vector = (await this.embedder.embed([last.text]))[0] as Float32Array;
      this.last = { session: last.session, vector };
    }
  }

  stats(): Record<string, number> {
    if (this.closed) return { items: this.turns.size };
    const out: Record<string, number> = {
      items: this.collection.count(),
      ...embedderCounters(this.embedder ? [this.embedder] : []),
    };
    for (const info of this.collection.listIndexes()) out[`index.${info.name}`] = info.count;
    return out;
  }

  notes(): string[] {
    const s = this.settings;
    const parts: string[] = [];
    if (s.text) parts.push(`text BM25 (k1 ${s.text.k1}, b ${s.text.b}) weight ${s.text.weight}`);
    // Said only when on, so the notes of configs without them read as before.
    const context: string[] = [];
    if (s.text && s.text.textWindow > 0)
      context.push(`BM25 window ${s.text.textWindow} turn(s) before`);
    if (s.text?.dateWords) context.push('session month in BM25');
    if (s.sessionScore > 0) context.push(`session score ${s.sessionScore}`);
    if (s.timeBoost > 0) context.push(`time boost ${s.timeBoost} for "when" questions`);
    if (s.vector) {
      parts.push(
        `vector hnsw cosine over ${this.embedder?.name ?? 'no embedder'} (previous-turn mix ${s.vector.previousTurnVector}) weight ${s.vector.weight}`,
      );
    }
    return [
      `${s.preset}: one item per turn; ${parts.join(' + ')}; fusion ${s.fusion}; ` +
        `neighbour scores prev ${s.previousTurnScore} next ${s.nextTurnScore}; ` +
        `named-speaker boost ${s.speakerBoost}; question words ${s.dropQuestionWords ? 'dropped' : 'kept'}` +
        context.map((c) => `; ${c}`).join(''),
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

/** "May 2023" from a session's ISO date-time (`2023-05-08T13:56`); '' when there is none. */
export function dateWords(isoDateTime: string | null): string {
  const match = isoDateTime === null ? null : /^(\d{4})-(\d{2})/.exec(isoDateTime);
  if (!match) return '';
  const month = Number(match[2]);
  return month >= 1 && month <= 12 ? monthYear(match[1] as string, month) : '';
}

/** normalise(own + weight * prev); `own` itself when there is no previous turn. */
export function contextVector(
  own: Float32Array,
  prev: Float32Array | null,
  weight: number,
): Float32Array {
  if (prev === null || weight === 0) return own;
  const out = new Float32Array(own.length);
  let norm = 0;
  for (let j = 0; j < own.length; j++) {
    const v = (own[j] as number) + weight * (prev[j] as number);
    out[j] = v;
    norm += v * v;
  }
  norm = Math.sqrt(norm);
  if (norm === 0) return own;
  for (let j = 0; j < out.length; j++) out[j] = (out[j] as number) / norm;
  return out;
}
