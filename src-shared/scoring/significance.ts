/**
 * Significance for run comparisons that respects how LoCoMo is built: its ~2,000 questions come
 * from only 10 conversations, so questions of one conversation are not independent. Besides the
 * question-level paired bootstrap (stats.ts) this offers
 *  - a cluster bootstrap that resamples whole conversations,
 *  - McNemar's exact test on correct/wrong flips (statsmodels `mcnemar(table, exact=True)`),
 *  - the minimum detectable effect for a run's n (statsmodels `NormalIndPower.solve_power`).
 * Formulas and their references are in docs/scoring.md; golden values come from SciPy/statsmodels
 * via scripts/golden/generate-stats.py.
 */
import { WorkbenchError } from '../errors';
import {
  bootstrapSettings,
  mean,
  mulberry32,
  quantileSorted,
  randomInt,
  type BootstrapOptions,
  type BootstrapResult,
} from './stats';

// ---- the normal distribution ----

/**
 * Standard normal CDF Φ(x), accurate to ~1e-15: erfc by its Taylor series near 0 and by a
 * Lentz continued fraction in the tails (where the series would cancel catastrophically).
 */
export function normalCdf(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  if (x === Infinity) return 1;
  if (x === -Infinity) return 0;
  const z = x / Math.SQRT2;
  return z < 0 ? 0.5 * erfc(-z) : 1 - 0.5 * erfc(z);
}

/** erfc(z) for z ≥ 0. */
function erfc(z: number): number {
  if (z < 2) return 1 - erfSeries(z);
  // erfc(z) = exp(-z²)/√π · 1/(z + 1/2/(z + 1/(z + 3/2/(z + …)))), evaluated by modified Lentz.
  const tiny = 1e-300;
  let f = z;
  let c = z;
  let d = 0;
  for (let i = 1; i < 500; i++) {
    const a = i / 2;
    d = z + a * d;
    d = Math.abs(d) < tiny ? tiny : d;
    c = z + a / c;
    c = Math.abs(c) < tiny ? tiny : c;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-z * z) / (f * Math.sqrt(Math.PI));
}

/** erf(z) = 2/√π Σ (-1)^n z^(2n+1) / (n! (2n+1)), fine for |z| < 2. */
function erfSeries(z: number): number {
  let term = z;
  let sum = z;
  const z2 = z * z;
  for (let n = 1; n < 200; n++) {
    term *= -z2 / n;
    const add = term / (2 * n + 1);
    sum += add;
    if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
  }
  return (2 / Math.sqrt(Math.PI)) * sum;
}

// Wichura's AS 241 (PPND16) coefficients, lowest order first, rounded to doubles.
const CENTRAL_NUM = [
  3.3871328727963665, 133.14166789178438, 1971.5909503065513, 13731.69376550946, 45921.95393154987,
  67265.7709270087, 33430.57558358813, 2509.0809287301227,
];
const CENTRAL_DEN = [
  1, 42.31333070160091, 687.1870074920579, 5394.196021424751, 21213.794301586597, 39307.89580009271,
  28729.085735721943, 5226.495278852546,
];
const NEAR_NUM = [
  1.4234371107496835, 4.630337846156546, 5.769497221460691, 3.6478483247632045, 1.2704582524523684,
  0.2417807251774506, 0.022723844989269184, 0.0007745450142783414,
];
const NEAR_DEN = [
  1, 2.053191626637759, 1.6763848301838038, 0.6897673349851, 0.14810397642748008,
  0.015198666563616457, 0.0005475938084995345, 1.0507500716444169e-9,
];
const TAIL_NUM = [
  6.657904643501103, 5.463784911164114, 1.7848265399172913, 0.29656057182850487,
  0.026532189526576124, 0.0012426609473880784, 0.000027115555687434876, 2.0103343992922881e-7,
];
const TAIL_DEN = [
  1, 0.599832206555888, 0.1369298809227358, 0.014875361290850615, 0.0007868691311456133,
  0.000018463183175100548, 1.421511758316446e-7, 2.0442631033899397e-15,
];

/** Σ coefficients[i]·x^i by Horner's rule. */
function polynomial(coefficients: readonly number[], x: number): number {
  let value = 0;
  for (let i = coefficients.length - 1; i >= 0; i--)
    value = value * x + (coefficients[i] as number);
  return value;
}

/**
 * Inverse of Φ (the normal quantile) by Wichura's algorithm AS 241 (PPND16), relative accuracy
 * about 1e-16; agrees with SciPy's `norm.ppf` to 1e-13 over [1e-300, 1 - 1e-9] (golden test).
 */
export function normalQuantile(p: number): number {
  if (!(p >= 0 && p <= 1)) {
    throw new WorkbenchError('INVALID_INPUT', `normalQuantile: p must be in [0, 1], got ${p}`);
  }
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    return (q * polynomial(CENTRAL_NUM, r)) / polynomial(CENTRAL_DEN, r);
  }
  const r = Math.sqrt(-Math.log(q < 0 ? p : 1 - p));
  const value =
    r <= 5
      ? polynomial(NEAR_NUM, r - 1.6) / polynomial(NEAR_DEN, r - 1.6)
      : polynomial(TAIL_NUM, r - 5) / polynomial(TAIL_DEN, r - 5);
  return q < 0 ? -value : value;
}

// ---- McNemar's exact test ----

export interface McNemarResult {
  /** Questions correct in the baseline only (regressions). */
  baselineOnly: number;
  /** Questions correct in the candidate only (improvements). */
  candidateOnly: number;
  /** Two-sided exact p-value: 2·P(X ≤ min(b, c)) for X ~ Binomial(b + c, 1/2), capped at 1. */
  pValue: number;
}

/**
 * McNemar's exact test on the discordant pairs of two runs' correct/wrong outcomes, exactly as
 * statsmodels' `mcnemar([[a, b], [c, d]], exact=True)`: with no discordant pair p is 1.
 */
export function mcnemarExact(baselineOnly: number, candidateOnly: number): McNemarResult {
  for (const [name, value] of [
    ['baselineOnly', baselineOnly],
    ['candidateOnly', candidateOnly],
  ] as const) {
    if (!(Number.isInteger(value) && value >= 0)) {
      throw new WorkbenchError(
        'INVALID_INPUT',
        `mcnemarExact: ${name} must be a non-negative integer, got ${value}`,
      );
    }
  }
  const n = baselineOnly + candidateOnly;
  const k = Math.min(baselineOnly, candidateOnly);
  return { baselineOnly, candidateOnly, pValue: Math.min(1, 2 * binomialCdfHalf(k, n)) };
}

/** P(X ≤ k) for X ~ Binomial(n, 1/2), summed in log space so n in the thousands stays exact. */
function binomialCdfHalf(k: number, n: number): number {
  const logHalfN = -n * Math.LN2;
  let logChoose = 0; // log C(n, 0)
  let maxLog = logHalfN;
  const logs: number[] = [logHalfN];
  for (let i = 1; i <= k; i++) {
    logChoose += Math.log(n - i + 1) - Math.log(i);
    const term = logChoose + logHalfN;
    logs.push(term);
    if (term > maxLog) maxLog = term;
  }
  let sum = 0;
  for (const term of logs) sum += Math.exp(term - maxLog);
  return Math.min(1, Math.exp(maxLog) * sum);
}

/**
 * The discordant counts of two runs aligned by question, a score counting as correct when it is
 * at least `threshold` (1 for judge labels; for F1 the caller chooses, e.g. 0.5). Pairs with a
 * missing side are left out, as everywhere in a comparison.
 */
export function discordantPairs(
  baseline: readonly (number | null)[],
  candidate: readonly (number | null)[],
  threshold: number,
): { baselineOnly: number; candidateOnly: number; n: number } {
  assertAligned('discordantPairs', baseline, candidate);
  let baselineOnly = 0;
  let candidateOnly = 0;
  let n = 0;
  baseline.forEach((a, i) => {
    const b = candidate[i] ?? null;
    if (a === null || b === null) return;
    n++;
    const aCorrect = a >= threshold;
    const bCorrect = b >= threshold;
    if (aCorrect && !bCorrect) baselineOnly++;
    else if (bCorrect && !aCorrect) candidateOnly++;
  });
  return { baselineOnly, candidateOnly, n };
}

// ---- cluster bootstrap ----

export interface ClusterBootstrapResult extends BootstrapResult {
  /** Number of clusters (conversations) with at least one paired question. */
  clusters: number;
}

/**
 * Paired bootstrap over clusters: whole conversations are drawn with replacement (as many as
 * there are), and each resample's statistic is the mean difference over all questions of the
 * drawn conversations (a question-weighted mean, so it estimates the same quantity as the
 * question-level bootstrap, with the conversations' correlation kept). Same seed → same interval.
 */
export function clusterBootstrapCI(
  baseline: readonly (number | null)[],
  candidate: readonly (number | null)[],
  clusterOf: readonly string[],
  options: BootstrapOptions = {},
): ClusterBootstrapResult {
  assertAligned('clusterBootstrapCI', baseline, candidate);
  if (clusterOf.length !== baseline.length) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `clusterBootstrapCI: one cluster per question is needed, got ${clusterOf.length} for ${baseline.length} questions`,
    );
  }
  const { resamples, confidence } = bootstrapSettings('clusterBootstrapCI', options);
  // Sum and count of differences per cluster, clusters in first-seen order (deterministic).
  const byCluster = new Map<string, { sum: number; count: number }>();
  const diffs: number[] = [];
  baseline.forEach((a, i) => {
    const b = candidate[i] ?? null;
    if (a === null || b === null) return;
    const diff = b - a;
    diffs.push(diff);
    const key = clusterOf[i] as string;
    const entry = byCluster.get(key);
    if (entry) {
      entry.sum += diff;
      entry.count++;
    } else byCluster.set(key, { sum: diff, count: 1 });
  });
  const clusters = [...byCluster.values()];
  const k = clusters.length;
  if (k === 0) {
    return { meanDiff: Number.NaN, low: Number.NaN, high: Number.NaN, n: 0, clusters: 0 };
  }
  const means = new Float64Array(resamples);
  forEachClusterResample(k, resamples, options.seed ?? 0, (drawn, r) => {
    let sum = 0;
    let count = 0;
    for (const index of drawn) {
      const cluster = clusters[index] as { sum: number; count: number };
      sum += cluster.sum;
      count += cluster.count;
    }
    means[r] = sum / count;
  });
  means.sort();
  const { low, high } = percentileBounds(Array.from(means), confidence);
  return { meanDiff: mean(diffs), low, high, n: diffs.length, clusters: k };
}

/**
 * The one resampling scheme of every clustered interval: `resamples` times, draw k cluster indices
 * (k = the number of clusters) with replacement from mulberry32(seed) and hand them to `visit`
 * (the array is reused between calls). clusterBootstrapCI and the agreement statistics
 * (agreement.ts) share it, so the same seed draws the same conversations for both.
 */
export function forEachClusterResample(
  k: number,
  resamples: number,
  seed: number,
  visit: (drawn: Int32Array, resample: number) => void,
): void {
  const rng = mulberry32(seed);
  const drawn = new Int32Array(k);
  for (let r = 0; r < resamples; r++) {
    for (let j = 0; j < k; j++) drawn[j] = randomInt(rng, k);
    visit(drawn, r);
  }
}

/** Two-sided percentile bounds of sorted resampled values (NumPy's default quantile rule). */
function percentileBounds(
  sorted: readonly number[],
  confidence: number,
): { low: number; high: number } {
  const alpha = 1 - confidence;
  return { low: quantileSorted(sorted, alpha / 2), high: quantileSorted(sorted, 1 - alpha / 2) };
}

export interface ClusterStatisticInterval {
  /** The statistic over every row given (NaN when it is undefined there). */
  estimate: number;
  /** Percentile bounds over the resamples where the statistic is defined (NaN if none is). */
  low: number;
  high: number;
  /** Rows (questions) given. */
  n: number;
  /** Clusters (conversations) with at least one row. */
  clusters: number;
  /**
   * Resamples where the statistic was undefined (NaN: e.g. κ of a resample where every label is
   * the same), left out of the percentiles. A large share means the interval is not trustworthy.
   */
  undefinedResamples: number;
}

/**
 * Percentile bootstrap interval of any statistic of a set of rows (questions), resampling whole
 * clusters (conversations) with forEachClusterResample. `statistic` receives row indices: all
 * rows for the estimate, and for each resample the rows of every drawn cluster (a cluster drawn
 * twice gives its rows twice). Deterministic for a seed.
 */
export function clusterBootstrapStatistic(
  clusterOf: readonly string[],
  statistic: (rows: readonly number[]) => number,
  options: BootstrapOptions = {},
): ClusterStatisticInterval {
  const { resamples, confidence } = bootstrapSettings('clusterBootstrapStatistic', options);
  // Rows per cluster, clusters in first-seen order (deterministic).
  const rowsByCluster = new Map<string, number[]>();
  clusterOf.forEach((key, row) => {
    const rows = rowsByCluster.get(key);
    if (rows) rows.push(row);
    else rowsByCluster.set(key, [row]);
  });
  const clusters = [...rowsByCluster.values()];
  const k = clusters.length;
  const all = clusterOf.map((_, row) => row);
  const estimate = k === 0 ? Number.NaN : statistic(all);
  const values: number[] = [];
  let undefinedResamples = 0;
  if (k > 0) {
    forEachClusterResample(k, resamples, options.seed ?? 0, (drawn) => {
      const rows: number[] = [];
      for (const index of drawn) rows.push(...(clusters[index] as number[]));
      const value = statistic(rows);
      if (Number.isNaN(value)) undefinedResamples++;
      else values.push(value);
    });
  }
  values.sort((a, b) => a - b);
  const { low, high } = percentileBounds(values, confidence);
  return { estimate, low, high, n: clusterOf.length, clusters: k, undefinedResamples };
}

// ---- minimum detectable effect ----

/**
 * Power of a two-sided z-test for a standardized effect `d`, as statsmodels'
 * `NormalIndPower().power(d, nobs1, alpha, ratio)`: with ratio 0 a one-sample (paired) test on n
 * differences, otherwise two independent samples of n and ratio·n. Both tails count.
 */
export function normalTestPower(d: number, n: number, alpha = 0.05, ratio = 0): number {
  const effectiveN = ratio === 0 ? n : n / (1 + 1 / ratio);
  const shift = d * Math.sqrt(effectiveN);
  const critical = normalQuantile(1 - alpha / 2);
  return normalCdf(shift - critical) + normalCdf(-shift - critical);
}

/** The alpha and power a minimum detectable effect is solved for unless told otherwise. */
export const MDE_DEFAULTS = { alpha: 0.05, power: 0.8 } as const;

export interface MdeOptions {
  alpha?: number;
  power?: number;
  /** 0 (default): paired, one sample of n differences; 1: two independent runs of n questions. */
  ratio?: number;
}

/**
 * The smallest standardized effect (Cohen's d) a two-sided z-test detects with the given power,
 * solved on `normalTestPower` by bisection like statsmodels' `NormalIndPower().solve_power`.
 * Multiply by the standard deviation of the per-question differences (paired) or of the scores
 * (independent) to get it in score units.
 */
export function minimumDetectableEffect(n: number, options: MdeOptions = {}): number {
  const alpha = options.alpha ?? MDE_DEFAULTS.alpha;
  const power = options.power ?? MDE_DEFAULTS.power;
  const ratio = options.ratio ?? 0;
  if (!(Number.isInteger(n) && n > 0)) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `minimumDetectableEffect: n must be a positive integer, got ${n}`,
    );
  }
  if (!(alpha > 0 && alpha < 1) || !(power > alpha && power < 1)) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `minimumDetectableEffect: need 0 < alpha < power < 1, got alpha ${alpha}, power ${power}`,
    );
  }
  let low = 0;
  let high = 1;
  while (normalTestPower(high, n, alpha, ratio) < power) high *= 2;
  for (let i = 0; i < 200 && high - low > 1e-15 * high; i++) {
    const mid = (low + high) / 2;
    if (normalTestPower(mid, n, alpha, ratio) < power) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

function assertAligned(
  name: string,
  baseline: readonly unknown[],
  candidate: readonly unknown[],
): void {
  if (baseline.length !== candidate.length) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `${name}: runs must be aligned by question, got ${baseline.length} and ${candidate.length} scores`,
    );
  }
}
