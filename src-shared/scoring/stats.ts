/**
 * Aggregation of per-question scores: means by category, the two "overall" conventions, standard
 * deviation, a seeded PRNG and a paired bootstrap confidence interval for comparing two runs.
 * Everything is deterministic for a given seed, so a report can be regenerated bit for bit.
 */
import { isAdversarial, type BenchmarkProfile } from '../benchmarks';
import { WorkbenchError } from '../errors';
import type { LocomoCategory } from './official';

export interface ScoredQuestion {
  category: LocomoCategory;
  score: number;
}

export interface MeanSummary {
  /** NaN when n is 0. */
  mean: number;
  n: number;
}

/** Arithmetic mean; NaN for an empty list. */
export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/**
 * Standard deviation with `ddof` degrees of freedom removed: 1 (default) is the sample standard
 * deviation, like Python's `statistics.stdev` used by mem0 for J over repeats; 0 the population
 * one. With no more than `ddof` values the spread is undefined and 0 is returned, as mem0 does.
 */
export function stdDev(values: readonly number[], ddof: 0 | 1 = 1): number {
  if (values.length <= ddof || values.length === 0) return 0;
  const m = mean(values);
  let squares = 0;
  for (const v of values) squares += (v - m) * (v - m);
  return Math.sqrt(squares / (values.length - ddof));
}

export interface OverallMeans {
  /** Every question (LoCoMo's official convention: n = 1,986 on the full set). */
  all: MeanSummary;
  /**
   * The profile's non-adversarial categories, its headline subset (`overallNames.answerable`;
   * LoCoMo: Mem0's categories 1-4, n = 1,540 on the full set).
   */
  answerable: MeanSummary;
}

/** Both overall conventions over per-question scores (never over category means). */
export function overallMeans(
  items: readonly ScoredQuestion[],
  profile: BenchmarkProfile,
): OverallMeans {
  const all = items.map((item) => item.score);
  const answerable = items
    .filter((item) => !isAdversarial(profile, item.category))
    .map((item) => item.score);
  return {
    all: { mean: mean(all), n: all.length },
    answerable: { mean: mean(answerable), n: answerable.length },
  };
}

/** A pseudo-random source returning floats in [0, 1). */
export type Rng = () => number;

/** mulberry32: a small, fast 32-bit-state PRNG; the same seed gives the same sequence everywhere. */
export function mulberry32(seed: number): Rng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A uniform integer in [0, n) from `rng`. */
export function randomInt(rng: Rng, n: number): number {
  return Math.floor(rng() * n);
}

/** Linear-interpolation quantile of sorted values (NumPy's default, "type 7"). */
export function quantileSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const lo = sorted[lower] as number;
  const hi = sorted[upper] as number;
  return lo + (hi - lo) * (position - lower);
}

export interface BootstrapOptions {
  /** Number of resamples. Default 2000. */
  resamples?: number;
  /** PRNG seed. Default 0. */
  seed?: number;
  /** Two-sided confidence level. Default 0.95. */
  confidence?: number;
}

export interface BootstrapResult {
  /** Mean of (candidate - baseline) over the paired questions. */
  meanDiff: number;
  /** Lower and upper percentile bounds of the resampled mean difference. */
  low: number;
  high: number;
  /** Number of questions present in both runs. */
  n: number;
}

export const defaultBootstrapResamples = 2000;

/** A bootstrap's resamples and confidence with their defaults, refused (naming `caller`) if invalid. */
export function bootstrapSettings(
  caller: string,
  options: BootstrapOptions,
): { resamples: number; confidence: number } {
  const resamples = options.resamples ?? defaultBootstrapResamples;
  const confidence = options.confidence ?? 0.95;
  if (!(Number.isInteger(resamples) && resamples > 0)) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `${caller}: resamples must be a positive integer, got ${resamples}`,
    );
  }
  if (!(confidence > 0 && confidence < 1)) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `${caller}: confidence must be in (0, 1), got ${confidence}`,
    );
  }
  return { resamples, confidence };
}

/**
 * Paired bootstrap CI of the mean per-question difference `candidate[i] - baseline[i]`.
 * The arrays are aligned by question; `null` marks a question missing from that run and drops the
 * pair (it is missing, not wrong), and `n` reports how many pairs remained. Questions are
 * resampled with replacement `resamples` times from a seeded mulberry32; the interval is the
 * percentile interval of the resampled means. With no pairs every number is NaN.
 */
export function pairedBootstrapCI(
  baseline: readonly (number | null)[],
  candidate: readonly (number | null)[],
  options: BootstrapOptions = {},
): BootstrapResult {
  if (baseline.length !== candidate.length) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `pairedBootstrapCI: runs must be aligned by question, got ${baseline.length} and ${candidate.length} scores`,
    );
  }
  const { resamples, confidence } = bootstrapSettings('pairedBootstrapCI', options);

  const diffs: number[] = [];
  baseline.forEach((a, i) => {
    const b = candidate[i] ?? null;
    if (a === null || b === null) return;
    if (!Number.isFinite(a) || !Number.isFinite(b)) {
      throw new WorkbenchError(
        'INVALID_INPUT',
        `pairedBootstrapCI: score at index ${i} is not a finite number`,
        {
          path: [i],
        },
      );
    }
    diffs.push(b - a);
  });
  const n = diffs.length;
  if (n === 0) return { meanDiff: Number.NaN, low: Number.NaN, high: Number.NaN, n: 0 };

  const rng = mulberry32(options.seed ?? 0);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let j = 0; j < n; j++) sum += diffs[randomInt(rng, n)] as number;
    means[r] = sum / n;
  }
  means.sort();
  const sorted = Array.from(means);
  const alpha = 1 - confidence;
  return {
    meanDiff: mean(diffs),
    low: quantileSorted(sorted, alpha / 2),
    high: quantileSorted(sorted, 1 - alpha / 2),
    n,
  };
}

/**
 * Bootstrap CI of one run's mean score: the paired bootstrap against an all-zero baseline, so the
 * resampling, seed and percentile rule are the comparisons' own. `meanDiff` is the mean.
 */
export function bootstrapMeanCI(
  scores: readonly number[],
  options: BootstrapOptions = {},
): BootstrapResult {
  return pairedBootstrapCI(
    scores.map(() => 0),
    scores,
    options,
  );
}
