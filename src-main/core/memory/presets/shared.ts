/**
 * Helpers the structured presets (stm, memoryos, tiers, graph) share: opening their one collection,
 * turning packets into turn documents with vectors, conversation time, and hits.
 *
 * Turn documents come from ../retrieval/turns (item id = dia_id, text `<speaker>: <text>`, turn
 * metadata) and their vectors from ../retrieval/service's `contextVector`, so every turn preset
 * stores the same documents.
 */
import type { z } from 'zod';
import type { Packet, Sample } from '../../../../src-shared/dataset';
import { WorkbenchError, parseOrThrow } from '../../../../src-shared/errors';
import type { MemoryHit } from '../request';
import { HybridCollection, type ItemInput, type Metadata } from '../../collection';
import { dot, type WinkSifEmbedder } from '../../embed';
import { sharedWinkEmbedder } from '../retrieval/embedder';
import { contextVector } from '../retrieval/service';
import { asTurnMetadata, packetItems, sessionDates } from '../retrieval/turns';
import type { MemoryServiceContext } from '../types';

/** The note every preset whose LLM stage is skipped carries into the run manifest. */
export const NO_LLM = 'no LLM configured';

export function parsePresetConfig<S extends z.ZodType>(
  preset: string,
  schema: S,
  config: unknown,
): z.output<S> {
  return parseOrThrow(schema, config ?? {}, `memory preset "${preset}" config`);
}

/**
 * Opens the preset's collection with the shared SIF embedder. These presets keep derived state
 * (windows, segments, heat) in memory and rebuild it by replaying packets, which is what a resumed
 * run does (it starts each sample from an empty directory); a directory that already holds a
 * collection would mix two histories, so it is refused rather than silently reused.
 */
export async function openPresetCollection(
  preset: string,
  ctx: MemoryServiceContext,
): Promise<{ collection: HybridCollection; embedder: WinkSifEmbedder }> {
  const embedder = await sharedWinkEmbedder();
  const collection = HybridCollection.open(ctx.dir, {
    name: `${preset} ${ctx.sample.sampleId}`,
    embedder,
    ...(ctx.logger ? { logger: ctx.logger } : {}),
  });
  if (collection.listIndexes().length > 0 || collection.count() > 0) {
    collection.close();
    throw new WorkbenchError(
      'CONFLICT',
      `memory preset "${preset}": ${ctx.dir} already holds a collection; this preset rebuilds its state by replaying packets and needs an empty directory`,
      { path: ['memory', 'preset'] },
    );
  }
  return { collection, embedder };
}

export interface EncodedTurn {
  item: ItemInput & { id: string; metadata: Metadata };
  vector: Float32Array;
  sessionIndex: number;
}

/**
 * Turns packets into turn documents with vectors. A turn's vector is
 * normalise(v(turn) + previousTurnVector * v(previous turn of the session)), as in the turn
 * presets: an answer ("Yes, last Friday!") is embedded together with the turn it answers.
 */
export class TurnEncoder {
  private readonly dates: Map<number, string | null>;
  private last: { session: number; vector: Float32Array } | null = null;

  constructor(
    private readonly embedder: WinkSifEmbedder,
    sample: Sample,
    private readonly previousTurnVector: number,
  ) {
    this.dates = sessionDates(sample);
  }

  encode(packet: Packet): EncodedTurn[] {
    const items = packetItems(packet, this.dates);
    if (items.length === 0) return [];
    const raw = this.embedder.embedSync(items.map((item) => item.text));
    return packet.dialogs.map((turn, i) => {
      const own = raw[i] as Float32Array;
      const prev = this.last && this.last.session === turn.sessionIndex ? this.last.vector : null;
      this.last = { session: turn.sessionIndex, vector: own };
      const item = items[i] as ItemInput;
      return {
        item: { ...item, id: turn.diaId, metadata: item.metadata ?? {} },
        vector: contextVector(own, prev, this.previousTurnVector),
        sessionIndex: turn.sessionIndex,
      };
    });
  }

  get dim(): number {
    return this.embedder.dim;
  }

  embedQuery(question: string): Float32Array {
    return this.embedder.embedSync([question])[0] as Float32Array;
  }
}

/** Cosine similarity of two vectors (0 when either is the zero vector). */
export function cosineOf(a: Float32Array, b: Float32Array): number {
  const na = Math.sqrt(dot(a, a));
  const nb = Math.sqrt(dot(b, b));
  return na > 0 && nb > 0 ? dot(a, b) / (na * nb) : 0;
}

/**
 * Conversation time in hours, from a session's zone-less ISO date-time. It is read as UTC on
 * purpose: the dataset has no zone, and reading it in the machine's zone would make decay (and so
 * the memory's state) depend on where the run happened. Null when the session has no date.
 */
export function conversationHours(dateTime: string | null): number | null {
  if (dateTime === null) return null;
  const ms = Date.parse(`${dateTime}Z`);
  return Number.isFinite(ms) ? ms / 3_600_000 : null;
}

/** Builds the answerer's hit from a stored turn item. */
export function turnHit(
  item: { id: string; text: string; metadata?: Metadata },
  score: number,
): MemoryHit {
  const meta = asTurnMetadata(item.metadata ?? {}, item.id);
  return {
    id: item.id,
    diaId: meta.diaId,
    text: item.text,
    speaker: meta.speaker || null,
    score,
    sessionDateTime: meta.sessionDateTime,
  };
}

/** Scores divided by the largest one (so the best is 1); empty when nothing scored above 0. */
export function normalizeByMax(
  hits: ReadonlyArray<{ id: string; score: number }>,
): Map<string, number> {
  let max = 0;
  for (const h of hits) if (h.score > max) max = h.score;
  const out = new Map<string, number>();
  if (max <= 0) return out;
  for (const h of hits) if (h.score > 0) out.set(h.id, h.score / max);
  return out;
}

/**
 * The running mean of every turn vector seen so far, for similarity thresholds. SIF vectors share
 * a large common direction (on conv-26 the median cosine between two turns is 0.93), so a fixed
 * cosine threshold says little; centred on the conversation's own mean so far, the median is ~0
 * and a nearest neighbour scores ~0.6. Only past turns go into the mean, so it is the same on a
 * replay, and the shared embedder is never refitted.
 */
export class RunningMean {
  private readonly sum: Float64Array;
  private n = 0;

  constructor(dim: number) {
    this.sum = new Float64Array(dim);
  }

  add(v: Float32Array): void {
    for (let i = 0; i < this.sum.length; i++) this.sum[i] = (this.sum[i] as number) + (v[i] ?? 0);
    this.n++;
  }

  /** v minus the mean so far (v itself before anything was added). */
  center(v: Float32Array): Float32Array {
    const out = new Float32Array(v.length);
    for (let i = 0; i < v.length; i++) {
      out[i] = (v[i] as number) - (this.n > 0 ? (this.sum[i] as number) / this.n : 0);
    }
    return out;
  }
}

/** Min-max normalised scores (all 1 when they are equal); empty for no hits. */
export function normalizeMinMax(
  hits: ReadonlyArray<{ id: string; score: number }>,
): Map<string, number> {
  const out = new Map<string, number>();
  if (hits.length === 0) return out;
  let min = Infinity;
  let max = -Infinity;
  for (const h of hits) {
    if (h.score < min) min = h.score;
    if (h.score > max) max = h.score;
  }
  for (const h of hits) out.set(h.id, max > min ? (h.score - min) / (max - min) : 1);
  return out;
}
