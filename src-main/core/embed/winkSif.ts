import { z } from 'zod';
import { parseOrThrow } from '../../../src-shared/errors';
import { scanRawTokens, scanTokens } from './tokenize';
import type { Embedder } from './types';
import { addSeededVector, fnv1a, normalizeInPlace } from './vectorMath';
import { loadWinkVectors, type WinkLoadOptions, type WordVectors } from './winkVectors';

/**
 * Sentence vectors from word vectors by SIF (Arora, Liang, Ma 2017, "A simple but tough-to-beat
 * baseline for sentence embeddings"): the weighted average of the word vectors with
 * weight(w) = a / (a + p(w)), optionally minus the projection on the first principal component of
 * a corpus's sentence vectors, then L2-normalised.
 *
 * p(w): the wink package ships no word counts, but its vocabulary keeps GloVe's order, most frequent
 * first ("the", ",", ".", "of", "to", "and", ...). We use a Zipf-Mandelbrot estimate from the rank,
 * p(r) = 1 / ((r + k) * H) with H = sum over all ranks of 1 / (r + k), k = 2.7 (the usual fit for
 * English). That puts "the" near 3 %, rank 100 near 0.08 % (weight ~0.55 with a = 1e-3) and rank
 * 10,000 near 8e-6 (weight ~0.99). `fitCorpus` mixes in the frequencies of a collection's own text.
 *
 * Texts with no known word (empty, numbers only, another script) would average to the zero vector,
 * which cosine indexes cannot normalise (hnswlib divides by the norm: NaN). They get a deterministic
 * fallback instead: the normalised sum of pseudo-random vectors seeded by each raw token (runs of
 * letters or digits, lowercased), or by the empty string when there is none. Identical texts then
 * match each other exactly and are nearly orthogonal to everything else.
 */

export const winkSifOptionsSchema = z.object({
  /** SIF smoothing constant a. */
  a: z.number().positive().max(1).default(1e-3),
  /** Zipf-Mandelbrot offset k in p(r) ~ 1 / (r + k). */
  zipfK: z.number().positive().default(2.7),
  /**
   * Remove the first principal component learned by `fitCorpus`. Off by default: it helps in the
   * paper's STS benchmarks, but nobody has measured it on LoCoMo retrieval yet. It has no effect
   * until `fitCorpus` has run (see `describe().pcRemoved`).
   */
  removeFirstPc: z.boolean().default(false),
  /** Weight of the corpus frequencies against the rank prior in `fitCorpus`, 0..1. */
  fitMix: z.number().min(0).max(1).default(0.5),
});
export type WinkSifOptions = z.input<typeof winkSifOptionsSchema>;
type ResolvedOptions = z.output<typeof winkSifOptionsSchema>;

export interface FitStats {
  texts: number;
  /** Known-word tokens counted. */
  tokens: number;
  distinctWords: number;
}

/** What a run manifest should record about this embedder. */
export interface WinkSifDescription {
  name: string;
  dim: number;
  a: number;
  zipfK: number;
  fitMix: number;
  removeFirstPc: boolean;
  pcRemoved: boolean;
  fitted: FitStats | null;
  source: { package: string; version: string; sha256: string };
}

/** Zipf-Mandelbrot probabilities for ranks 0..count-1. */
export function zipfPrior(count: number, k: number): Float64Array {
  const p = new Float64Array(count);
  let h = 0;
  for (let r = 0; r < count; r++) h += 1 / (r + k);
  for (let r = 0; r < count; r++) p[r] = 1 / ((r + k) * h);
  return p;
}

export class WinkSifEmbedder implements Embedder {
  readonly name: string;
  readonly dim: number;
  private readonly options: ResolvedOptions;
  private readonly prior: Float64Array;
  /** weight(w) = a / (a + p(w)), per vocabulary row. */
  private weights: Float32Array;
  private pc: Float64Array | null = null;
  private fitted: FitStats | null = null;

  // Scratch state for the token sink: embedding allocates the output vector and nothing else.
  private readonly acc: Float64Array;
  private known = 0;
  private readonly addToken = (text: string, start: number, end: number): void => {
    const row = this.vectors.lookup(text, start, end);
    if (row < 0) return;
    const w = this.weights[row] as number;
    const m = this.vectors.matrix;
    const acc = this.acc;
    const base = row * this.dim;
    for (let j = 0; j < acc.length; j++) acc[j] = (acc[j] as number) + w * (m[base + j] as number);
    this.known++;
  };
  private readonly addRawToken = (text: string, start: number, end: number): void => {
    addSeededVector(this.acc, fnv1a(text, start, end));
    this.known++;
  };

  constructor(
    private readonly vectors: WordVectors,
    options: WinkSifOptions = {},
  ) {
    this.options = parseOrThrow(winkSifOptionsSchema, options, 'WinkSifEmbedder options');
    this.dim = vectors.dim;
    this.name = `wink-sif-${vectors.dim}d`;
    this.acc = new Float64Array(vectors.dim);
    this.prior = zipfPrior(vectors.count, this.options.zipfK);
    this.weights = this.weightsFrom(this.prior);
  }

  /** Loads (or converts, the first time) the wink vectors and builds an embedder on them. */
  static async create(options: WinkSifOptions & WinkLoadOptions = {}): Promise<WinkSifEmbedder> {
    const { a, zipfK, removeFirstPc, fitMix, ...load } = options;
    const vectors = await loadWinkVectors(load);
    const sif: WinkSifOptions = {};
    if (a !== undefined) sif.a = a;
    if (zipfK !== undefined) sif.zipfK = zipfK;
    if (removeFirstPc !== undefined) sif.removeFirstPc = removeFirstPc;
    if (fitMix !== undefined) sif.fitMix = fitMix;
    return new WinkSifEmbedder(vectors, sif);
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return Promise.resolve(this.embedSync(texts));
  }

  /** The same as `embed`, without the promise: the work is synchronous and fast. */
  embedSync(texts: readonly string[]): Float32Array[] {
    const out = new Array<Float32Array>(texts.length);
    const pc = this.options.removeFirstPc ? this.pc : null;
    for (let i = 0; i < texts.length; i++) {
      out[i] = this.embedOne(texts[i] as string, pc);
    }
    return out;
  }

  /** The SIF weight of a word, or null when the vocabulary lacks it. */
  weightOf(word: string): number | null {
    const row = this.vectors.lookup(word.toLowerCase());
    return row < 0 ? null : (this.weights[row] as number);
  }

  /**
   * Re-estimates p(w) as fitMix * (frequency in `texts`) + (1 - fitMix) * (rank prior), and learns
   * the first principal component of the texts' sentence vectors (used when `removeFirstPc`).
   * Vectors embedded before a fit are not comparable with vectors embedded after it: fit first.
   */
  fitCorpus(texts: readonly string[]): FitStats {
    const counts = new Float64Array(this.vectors.count);
    let tokens = 0;
    let distinct = 0;
    const count = (text: string, start: number, end: number): void => {
      const row = this.vectors.lookup(text, start, end);
      if (row < 0) return;
      if (counts[row] === 0) distinct++;
      counts[row] = (counts[row] as number) + 1;
      tokens++;
    };
    for (const text of texts) scanTokens(text.toLowerCase(), count);

    const mix = tokens > 0 ? this.options.fitMix : 0;
    const p = new Float64Array(this.vectors.count);
    for (let r = 0; r < p.length; r++) {
      p[r] =
        mix * ((counts[r] as number) / Math.max(1, tokens)) + (1 - mix) * (this.prior[r] as number);
    }
    this.weights = this.weightsFrom(p);
    this.pc = texts.length > 0 ? this.firstPrincipalComponent(texts) : null;
    this.fitted = { texts: texts.length, tokens, distinctWords: distinct };
    return this.fitted;
  }

  /** Back to the rank prior, no principal component. */
  resetFit(): void {
    this.weights = this.weightsFrom(this.prior);
    this.pc = null;
    this.fitted = null;
  }

  describe(): WinkSifDescription {
    const { a, zipfK, fitMix, removeFirstPc } = this.options;
    const { package: pkg, version, sha256 } = this.vectors.source;
    return {
      name: this.name,
      dim: this.dim,
      a,
      zipfK,
      fitMix,
      removeFirstPc,
      pcRemoved: removeFirstPc && this.pc !== null,
      fitted: this.fitted === null ? null : { ...this.fitted },
      source: { package: pkg, version, sha256 },
    };
  }

  private weightsFrom(p: Float64Array): Float32Array {
    const a = this.options.a;
    const w = new Float32Array(p.length);
    for (let r = 0; r < p.length; r++) w[r] = a / (a + (p[r] as number));
    return w;
  }

  private embedOne(text: string, pc: Float64Array | null): Float32Array {
    const acc = this.acc;
    acc.fill(0);
    this.known = 0;
    const lower = text.toLowerCase();
    scanTokens(lower, this.addToken);
    let ok = this.known > 0;
    if (ok && pc !== null) {
      let proj = 0;
      for (let j = 0; j < acc.length; j++) proj += (acc[j] as number) * (pc[j] as number);
      for (let j = 0; j < acc.length; j++) acc[j] = (acc[j] as number) - proj * (pc[j] as number);
    }
    if (ok) ok = normalizeInPlace(acc);
    if (!ok) this.fallback(lower);
    return Float32Array.from(acc);
  }

  private fallback(lower: string): void {
    const acc = this.acc;
    acc.fill(0);
    this.known = 0;
    scanRawTokens(lower, this.addRawToken);
    if (this.known === 0) addSeededVector(acc, fnv1a(''));
    // A sum of random vectors is zero with probability zero; the guard keeps that a certainty.
    if (!normalizeInPlace(acc)) {
      acc.fill(0);
      acc[0] = 1;
    }
  }

  /**
   * First right singular vector of the (uncentred, as in the paper) matrix of the texts' weighted
   * sentence vectors, by power iteration on the dim x dim Gram matrix.
   */
  private firstPrincipalComponent(texts: readonly string[]): Float64Array | null {
    const d = this.dim;
    const gram = new Float64Array(d * d);
    let rows = 0;
    for (const text of texts) {
      this.acc.fill(0);
      this.known = 0;
      scanTokens(text.toLowerCase(), this.addToken);
      if (this.known === 0) continue;
      rows++;
      for (let i = 0; i < d; i++) {
        const xi = this.acc[i] as number;
        if (xi === 0) continue;
        for (let j = 0; j < d; j++)
          gram[i * d + j] = (gram[i * d + j] as number) + xi * (this.acc[j] as number);
      }
    }
    if (rows === 0) return null;
    let v = new Float64Array(d).fill(1 / Math.sqrt(d));
    for (let iter = 0; iter < 200; iter++) {
      const next = new Float64Array(d);
      for (let i = 0; i < d; i++) {
        let s = 0;
        for (let j = 0; j < d; j++) s += (gram[i * d + j] as number) * (v[j] as number);
        next[i] = s;
      }
      if (!normalizeInPlace(next)) return null;
      let delta = 0;
      for (let i = 0; i < d; i++)
        delta = Math.max(delta, Math.abs((next[i] as number) - (v[i] as number)));
      v = next;
      if (delta < 1e-10) break;
    }
    return v;
  }
}
