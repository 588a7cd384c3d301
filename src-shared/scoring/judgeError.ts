/**
 * The judge as a measured instrument: self-consistency of repeats of one judge, the judge against
 * human labels (accuracy, κ, true and false acceptance rates) and the headline corrected for the
 * judge's error (Rogan-Gladen). Pure, deterministic for a seed. Formulas and when each is valid:
 * docs/scoring.md.
 *
 * Labels are `correct` / `wrong`. A human label `unsure` or `skip` (or none) is excluded from every
 * judge-vs-human figure: it is not evidence either way, and counting it as wrong (or right) would
 * bias the acceptance rates. The counts of excluded answers are reported.
 */
import { WorkbenchError } from '../errors';
import {
  cohenKappa,
  percentAgreement,
  ratingStatisticInterval,
  type IntervalEstimate,
  type Rating,
  type Verdict,
} from './agreement';
import { clusterBootstrapStatistic, normalQuantile } from './significance';
import { bootstrapSettings, mean, stdDev, type BootstrapOptions } from './stats';

/** What a person can answer in the labelling mode; only `correct` / `wrong` are used as truth. */
export type HumanLabel = Verdict | 'unsure' | 'skip';

// ---- proportions ----

export interface Proportion {
  successes: number;
  n: number;
  /** successes / n; NaN when n is 0. */
  estimate: number;
  /** Wilson score interval (NaN when n is 0). */
  low: number;
  high: number;
}

/**
 * A proportion with its Wilson score interval: centre (p̂ + z²/2n) / (1 + z²/n), half-width
 * z·√(p̂(1 − p̂)/n + z²/4n²) / (1 + z²/n). Chosen over the Wald interval because it stays inside
 * [0, 1] and keeps its coverage at 0/n and n/n, where a judge's false-acceptance rate often sits.
 * It treats the n answers as independent.
 */
export function wilsonInterval(successes: number, n: number, confidence = 0.95): Proportion {
  if (!(Number.isInteger(n) && n >= 0 && Number.isInteger(successes))) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `wilsonInterval: counts must be integers, got ${successes} of ${n}`,
    );
  }
  if (successes < 0 || successes > n) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `wilsonInterval: successes must be in [0, n], got ${successes} of ${n}`,
    );
  }
  bootstrapSettings('wilsonInterval', { confidence });
  if (n === 0) {
    return { successes, n, estimate: Number.NaN, low: Number.NaN, high: Number.NaN };
  }
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const p = successes / n;
  const z2n = (z * z) / n;
  const centre = (p + z2n / 2) / (1 + z2n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + z2n);
  return {
    successes,
    n,
    estimate: p,
    low: Math.max(0, centre - half),
    high: Math.min(1, centre + half),
  };
}

// ---- self-consistency of one judge's repeats ----

export interface SelfConsistency {
  repeats: number;
  questions: number;
  /** Majority verdict per question; null on a tie or with no verdict. */
  majority: (Verdict | null)[];
  /** Share of questions (with ≥ 2 verdicts) on which every repeat agrees, with its interval. */
  unanimity: IntervalEstimate;
  /** Mean share of agreeing repeat pairs per question (percentAgreement), with its interval. */
  agreement: IntervalEstimate;
  /** Each repeat's share of `correct` over the questions it judged. */
  perRepeatAccuracy: number[];
  /** The spread of perRepeatAccuracy: mean, sample standard deviation (ddof 1), min and max. */
  spread: { mean: number; std: number; min: number; max: number };
  /** Share of `correct` among the questions with a majority verdict. */
  majorityAccuracy: number;
}

/**
 * Self-consistency of repeats of one judge: `verdicts[question][repeat]`, null where a repeat has
 * no verdict. Intervals are clustered by conversation like every agreement statistic.
 */
export function selfConsistency(
  verdicts: readonly (readonly (Verdict | null)[])[],
  clusterOf: readonly string[],
  options: BootstrapOptions = {},
): SelfConsistency {
  const repeats = verdicts.reduce((max, row) => Math.max(max, row.length), 0);
  const majority = verdicts.map((row) => {
    let correct = 0;
    let wrong = 0;
    for (const v of row) {
      if (v === 'correct') correct++;
      else if (v === 'wrong') wrong++;
    }
    if (correct === wrong) return null;
    return correct > wrong ? 'correct' : ('wrong' as Verdict);
  });
  const multi: (readonly Rating[])[] = [];
  const multiClusters: string[] = [];
  verdicts.forEach((row, i) => {
    if (row.filter((v) => v !== null).length < 2) return;
    multi.push(row);
    multiClusters.push(clusterOf[i] as string);
  });
  const unanimous = (m: readonly (readonly Rating[])[]) =>
    m.length === 0
      ? Number.NaN
      : m.filter((row) => new Set(row.filter((v) => v !== null)).size === 1).length / m.length;
  const perRepeatAccuracy: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const judged = verdicts.map((row) => row[r] ?? null).filter((v) => v !== null);
    perRepeatAccuracy.push(
      judged.length === 0
        ? Number.NaN
        : judged.filter((v) => v === 'correct').length / judged.length,
    );
  }
  const defined = perRepeatAccuracy.filter((a) => !Number.isNaN(a));
  const decided = majority.filter((v) => v !== null);
  return {
    repeats,
    questions: verdicts.length,
    majority,
    unanimity: ratingStatisticInterval(multi, multiClusters, unanimous, options),
    agreement: ratingStatisticInterval(multi, multiClusters, percentAgreement, options),
    perRepeatAccuracy,
    spread: {
      mean: mean(defined),
      std: stdDev(defined),
      min: defined.length === 0 ? Number.NaN : Math.min(...defined),
      max: defined.length === 0 ? Number.NaN : Math.max(...defined),
    },
    majorityAccuracy:
      decided.length === 0
        ? Number.NaN
        : decided.filter((v) => v === 'correct').length / decided.length,
  };
}

// ---- Rogan-Gladen ----

export interface RoganGladen {
  /** (p_obs − FAR) / (TAR − FAR) clipped to [0, 1]; NaN when TAR ≤ FAR. */
  corrected: number;
  /** The same before clipping (outside [0, 1] when the rates and p_obs disagree by chance). */
  unclipped: number;
  /** TAR > FAR: the judge tells correct from wrong better than chance; otherwise no correction. */
  valid: boolean;
}

/**
 * Rogan-Gladen correction of an observed acceptance rate for a judge's error rates. With the
 * judge's sensitivity TAR = P(accept | correct) and specificity 1 − FAR (FAR = P(accept | wrong)),
 * p_obs = TAR·p + FAR·(1 − p), so p = (p_obs + Sp − 1) / (TAR + Sp − 1) = (p_obs − FAR) / (TAR − FAR),
 * clipped to [0, 1]. Undefined unless TAR > FAR (Se + Sp > 1).
 */
export function roganGladen(observed: number, tar: number, far: number): RoganGladen {
  for (const [name, value] of [
    ['observed', observed],
    ['tar', tar],
    ['far', far],
  ] as const) {
    if (!(value >= 0 && value <= 1)) {
      throw new WorkbenchError(
        'INVALID_INPUT',
        `roganGladen: ${name} must be a rate in [0, 1], got ${value}`,
      );
    }
  }
  if (!(tar > far)) return { corrected: Number.NaN, unclipped: Number.NaN, valid: false };
  const unclipped = (observed - far) / (tar - far);
  return { corrected: Math.min(1, Math.max(0, unclipped)), unclipped, valid: true };
}

// ---- the judge against human labels ----

/** One answer of a run: its conversation, the judge's verdict and, if labelled, a person's label. */
export interface LabelledAnswer {
  cluster: string;
  judge: Verdict | null;
  human?: HumanLabel | null;
}

export interface JudgeVsHuman {
  /** Answers with a judge verdict and a human correct/wrong label. */
  labelled: number;
  /** Answers with a judge verdict and a human unsure/skip label, excluded. */
  excludedUnsureOrSkip: number;
  /** Share of labelled answers where judge and human agree, clustered interval. */
  accuracy: IntervalEstimate;
  /** Cohen's κ of judge and human, clustered interval. */
  kappa: IntervalEstimate;
  /** P(judge accepts | human correct), Wilson interval. */
  trueAcceptance: Proportion;
  /** P(judge accepts | human wrong), Wilson interval. */
  falseAcceptance: Proportion;
  /** Share of all judged answers the judge accepts (the uncorrected headline), clustered interval. */
  observed: IntervalEstimate;
  /**
   * Rogan-Gladen corrected share correct, clipped to [0, 1], with a clustered percentile bootstrap
   * interval: each resample recomputes p_obs, TAR and FAR from the drawn conversations (resamples
   * where TAR ≤ FAR or a rate has no answers are counted in undefinedResamples).
   */
  corrected: IntervalEstimate & { valid: boolean };
}

/**
 * The judge against human labels over one run's answers (every judged answer counts for p_obs;
 * the labelled ones for the rates). The corrected interval is a bootstrap over conversations, not
 * the delta method, because the labels are a subsample of the same clustered answers as p_obs
 * (so the three estimates are dependent) and a few dozen labels put TAR and FAR near 0 or 1, where
 * the delta method's normal approximation and its independence assumption both fail.
 */
export function judgeVsHuman(
  answers: readonly LabelledAnswer[],
  options: BootstrapOptions = {},
): JudgeVsHuman {
  const { confidence } = bootstrapSettings('judgeVsHuman', options);
  const judged = answers.filter((a): a is LabelledAnswer & { judge: Verdict } => a.judge !== null);
  const isTruth = (label: HumanLabel | null | undefined): label is Verdict =>
    label === 'correct' || label === 'wrong';
  const labelled = judged.filter((a) => isTruth(a.human));
  const excludedUnsureOrSkip = judged.filter(
    (a) => a.human === 'unsure' || a.human === 'skip',
  ).length;
  const pairs: Rating[][] = labelled.map((a) => [a.judge, a.human as Verdict]);
  const pairClusters = labelled.map((a) => a.cluster);
  const rates = (rows: readonly number[]) => {
    let accepted = 0;
    let correct = 0;
    let acceptedCorrect = 0;
    let wrong = 0;
    let acceptedWrong = 0;
    for (const row of rows) {
      const a = judged[row] as LabelledAnswer & { judge: Verdict };
      const accepts = a.judge === 'correct';
      if (accepts) accepted++;
      if (a.human === 'correct') {
        correct++;
        if (accepts) acceptedCorrect++;
      } else if (a.human === 'wrong') {
        wrong++;
        if (accepts) acceptedWrong++;
      }
    }
    return { accepted, total: rows.length, correct, acceptedCorrect, wrong, acceptedWrong };
  };
  const correctedOf = (rows: readonly number[]) => {
    const r = rates(rows);
    if (r.total === 0 || r.correct === 0 || r.wrong === 0) return Number.NaN;
    return roganGladen(
      r.accepted / r.total,
      r.acceptedCorrect / r.correct,
      r.acceptedWrong / r.wrong,
    ).corrected;
  };
  const all = rates(judged.map((_, i) => i));
  const judgedClusters = judged.map((a) => a.cluster);
  const corrected = clusterBootstrapStatistic(judgedClusters, correctedOf, options);
  return {
    labelled: labelled.length,
    excludedUnsureOrSkip,
    accuracy: ratingStatisticInterval(pairs, pairClusters, percentAgreement, options),
    kappa: ratingStatisticInterval(pairs, pairClusters, (m) => cohenKappa(m, 0, 1), options),
    trueAcceptance: wilsonInterval(all.acceptedCorrect, all.correct, confidence),
    falseAcceptance: wilsonInterval(all.acceptedWrong, all.wrong, confidence),
    observed: clusterBootstrapStatistic(
      judgedClusters,
      (rows) => {
        const r = rates(rows);
        return r.total === 0 ? Number.NaN : r.accepted / r.total;
      },
      options,
    ),
    corrected: { ...corrected, valid: !Number.isNaN(corrected.estimate) },
  };
}
