/**
 * Agreement between raters (judges, repeats of one judge, people) who label the same answers with
 * nominal labels, each statistic with a percentile bootstrap interval over questions clustered by
 * conversation (clusterBootstrapStatistic in significance.ts: the Compare view's resampling).
 * Pure: no I/O; deterministic for a seed. Formulas, validity and references: docs/scoring.md.
 * Parity: tests/fixtures/golden/agreement.json from NLTK 3.8's AnnotationTask
 * (scripts/golden/generate-agreement.py).
 *
 * A rating matrix has one row per question and one column per rater; `null` marks a missing label
 * (a rater that did not label that question). Labels are compared as strings: for judges they are
 * the verdicts `correct` / `wrong`.
 */
import { WorkbenchError } from '../errors';
import { clusterBootstrapStatistic, type ClusterStatisticInterval } from './significance';
import type { BootstrapOptions } from './stats';

/** A judge's or a person's verdict on one answer. */
export type Verdict = 'correct' | 'wrong';

/** A nominal label, or null when this rater gave none for this question. */
export type Rating = string | null;

/** ratings[question][rater]. */
export type RatingMatrix = readonly (readonly Rating[])[];

/** A statistic with its clustered bootstrap interval. */
export type IntervalEstimate = ClusterStatisticInterval;

// ---- point statistics ----

/** Label counts of one question, missing labels left out. */
function labelCounts(row: readonly Rating[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const label of row) if (label !== null) counts.set(label, (counts.get(label) ?? 0) + 1);
  return counts;
}

function labelledCount(row: readonly Rating[]): number {
  let n = 0;
  for (const label of row) if (label !== null) n++;
  return n;
}

/**
 * Share of agreeing rater pairs on a question: Σ_k n_k(n_k − 1) / (n(n − 1)) over its n labels.
 * Undefined (NaN) with fewer than two labels.
 */
function pairAgreement(row: readonly Rating[]): number {
  const n = labelledCount(row);
  if (n < 2) return Number.NaN;
  let agreeing = 0;
  for (const count of labelCounts(row).values()) agreeing += count * (count - 1);
  return agreeing / (n * (n - 1));
}

/**
 * Percent agreement: the mean over questions with at least two labels of the share of rater
 * pairs that agree (for two raters, the share of questions they label alike; with complete data,
 * NLTK's `avg_Ao`). NaN when no question has two labels.
 */
export function percentAgreement(ratings: RatingMatrix): number {
  let sum = 0;
  let n = 0;
  for (const row of ratings) {
    const p = pairAgreement(row);
    if (Number.isNaN(p)) continue;
    sum += p;
    n++;
  }
  return n === 0 ? Number.NaN : sum / n;
}

/**
 * Cohen's κ of raters `a` and `b` (column indices) over the questions both labelled:
 * κ = (p_o − p_e) / (1 − p_e), p_o the share of questions labelled alike, p_e = Σ_k p_a(k)·p_b(k)
 * from each rater's own label shares. NaN when no question has both labels or when p_e = 1 (both
 * raters always give the same single label: agreement by chance cannot be told from real).
 */
export function cohenKappa(ratings: RatingMatrix, a: number, b: number): number {
  assertRater('cohenKappa', ratings, a);
  assertRater('cohenKappa', ratings, b);
  const countsA = new Map<string, number>();
  const countsB = new Map<string, number>();
  let n = 0;
  let agreeing = 0;
  for (const row of ratings) {
    const la = row[a] ?? null;
    const lb = row[b] ?? null;
    if (la === null || lb === null) continue;
    n++;
    if (la === lb) agreeing++;
    countsA.set(la, (countsA.get(la) ?? 0) + 1);
    countsB.set(lb, (countsB.get(lb) ?? 0) + 1);
  }
  if (n === 0) return Number.NaN;
  let expected = 0;
  for (const [label, count] of countsA) expected += (count / n) * ((countsB.get(label) ?? 0) / n);
  if (expected >= 1) return Number.NaN;
  return (agreeing / n - expected) / (1 - expected);
}

/**
 * Fleiss' κ over all raters, on the questions every rater labelled (Fleiss' κ assumes the same
 * number of labels per question; use Krippendorff's α when labels are missing):
 * κ = (P̄ − P_e) / (1 − P_e), P̄ the mean pairAgreement, P_e = Σ_k p_k² with p_k the share of all
 * labels that are k. Equal to NLTK's `pi` (Scott's multi-π). NaN when no question is complete,
 * with fewer than two raters, or when P_e = 1.
 */
export function fleissKappa(ratings: RatingMatrix): number {
  const raters = ratings.reduce((max, row) => Math.max(max, row.length), 0);
  if (raters < 2) return Number.NaN;
  const complete = ratings.filter((row) => row.length === raters && labelledCount(row) === raters);
  if (complete.length === 0) return Number.NaN;
  const totals = new Map<string, number>();
  let labels = 0;
  let observed = 0;
  for (const row of complete) {
    observed += pairAgreement(row);
    for (const [label, count] of labelCounts(row)) {
      totals.set(label, (totals.get(label) ?? 0) + count);
      labels += count;
    }
  }
  let expected = 0;
  for (const count of totals.values()) expected += (count / labels) ** 2;
  if (expected >= 1) return Number.NaN;
  return (observed / complete.length - expected) / (1 - expected);
}

/**
 * Krippendorff's α for nominal labels, missing labels allowed: questions with fewer than two
 * labels are left out (they cannot be compared); α = 1 − D_o / D_e with
 * D_o = Σ_q Σ_{k≠l} n_qk·n_ql / (n_q − 1) / n and D_e = Σ_{k≠l} n_k·n_l / (n(n − 1)), n the number
 * of pairable labels. NaN when D_e = 0 (a single label value everywhere: NLTK returns 1 there).
 */
export function krippendorffAlpha(ratings: RatingMatrix): number {
  const totals = new Map<string, number>();
  let n = 0;
  let observedSum = 0;
  for (const row of ratings) {
    const nq = labelledCount(row);
    if (nq < 2) continue;
    const counts = labelCounts(row);
    let disagreeingPairs = 0;
    for (const count of counts.values()) disagreeingPairs += count * (nq - count);
    observedSum += disagreeingPairs / (nq - 1);
    for (const [label, count] of counts) totals.set(label, (totals.get(label) ?? 0) + count);
    n += nq;
  }
  if (n < 2) return Number.NaN;
  let expectedPairs = 0;
  for (const count of totals.values()) expectedPairs += count * (n - count);
  if (expectedPairs === 0) return Number.NaN;
  const observed = observedSum / n;
  const expected = expectedPairs / (n * (n - 1));
  return 1 - observed / expected;
}

// ---- with clustered intervals ----

/**
 * Any statistic of a rating matrix with its percentile bootstrap interval over conversations
 * (`clusterOf[question]`): whole conversations are resampled and the statistic recomputed on the
 * drawn questions. Resamples where it is undefined are counted, not used.
 */
export function ratingStatisticInterval(
  ratings: RatingMatrix,
  clusterOf: readonly string[],
  statistic: (ratings: RatingMatrix) => number,
  options: BootstrapOptions = {},
): IntervalEstimate {
  assertClusters('ratingStatisticInterval', ratings.length, clusterOf.length);
  return clusterBootstrapStatistic(
    clusterOf,
    (rows) => statistic(rows.map((row) => ratings[row] as readonly Rating[])),
    options,
  );
}

export interface PairAgreement {
  raterA: number;
  raterB: number;
  percentAgreement: IntervalEstimate;
  cohenKappa: IntervalEstimate;
}

export interface AgreementReport {
  raters: number;
  questions: number;
  /** Over all raters (questions with at least two labels). */
  percentAgreement: IntervalEstimate;
  /** One entry per pair of raters, a < b. */
  pairs: PairAgreement[];
  /** Over the questions every rater labelled. */
  fleissKappa: IntervalEstimate;
  /** Over every question with at least two labels. */
  krippendorffAlpha: IntervalEstimate;
}

/**
 * Every agreement statistic of a rating matrix, each with its clustered interval. Each statistic's
 * `n` and `clusters` count the questions it can use (both labels for a pair, all labels for
 * Fleiss, two or more for α and percent agreement).
 */
export function agreementReport(
  ratings: RatingMatrix,
  clusterOf: readonly string[],
  options: BootstrapOptions = {},
): AgreementReport {
  assertClusters('agreementReport', ratings.length, clusterOf.length);
  const raters = ratings.reduce((max, row) => Math.max(max, row.length), 0);
  const usable = (keep: (row: readonly Rating[]) => boolean) => {
    const rows: (readonly Rating[])[] = [];
    const clusters: string[] = [];
    ratings.forEach((row, i) => {
      if (!keep(row)) return;
      rows.push(row);
      clusters.push(clusterOf[i] as string);
    });
    return { rows, clusters };
  };
  const interval = (
    keep: (row: readonly Rating[]) => boolean,
    statistic: (ratings: RatingMatrix) => number,
  ) => {
    const { rows, clusters } = usable(keep);
    return ratingStatisticInterval(rows, clusters, statistic, options);
  };
  const twoOrMore = (row: readonly Rating[]) => labelledCount(row) >= 2;
  const pairs: PairAgreement[] = [];
  for (let a = 0; a < raters; a++) {
    for (let b = a + 1; b < raters; b++) {
      const both = (row: readonly Rating[]) =>
        (row[a] ?? null) !== null && (row[b] ?? null) !== null;
      const pairOnly = (m: RatingMatrix) => m.map((row) => [row[a] ?? null, row[b] ?? null]);
      pairs.push({
        raterA: a,
        raterB: b,
        percentAgreement: interval(both, (m) => percentAgreement(pairOnly(m))),
        cohenKappa: interval(both, (m) => cohenKappa(m, a, b)),
      });
    }
  }
  return {
    raters,
    questions: ratings.length,
    percentAgreement: interval(twoOrMore, percentAgreement),
    pairs,
    fleissKappa: interval((row) => labelledCount(row) === raters, fleissKappa),
    krippendorffAlpha: interval(twoOrMore, krippendorffAlpha),
  };
}

// ---- validation ----

function assertRater(caller: string, ratings: RatingMatrix, rater: number): void {
  if (!(Number.isInteger(rater) && rater >= 0)) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `${caller}: a rater is a column index (a non-negative integer), got ${rater}`,
    );
  }
  if (ratings.length > 0 && !ratings.some((row) => rater < row.length)) {
    throw new WorkbenchError('INVALID_INPUT', `${caller}: no question has a column ${rater}`);
  }
}

export function assertClusters(caller: string, questions: number, clusters: number): void {
  if (questions !== clusters) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `${caller}: one cluster per question is needed, got ${clusters} for ${questions} questions`,
    );
  }
}
