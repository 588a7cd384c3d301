import type { CategoryId } from './benchmarks/types';
import type { RunSummary, ScorePair } from './experiment';
import { metricList, type MetricId } from './metrics';
import { mean, stdDev } from './scoring/stats';

/**
 * J ± std as Mem0 reports it (issue 11 item 3): the whole experiment run N times, each metric's
 * mean taken per run, then the mean and the spread of those N run means. This is a different
 * spread from the judge-repeat one (`std` on J inside one run: the same answers judged r times),
 * which is kept beside it under its own label.
 *
 * The std is the sample standard deviation (n - 1). Mem0's paper reports "± std" without naming
 * the estimator and its released evaluation code (evaluation/generate_scores.py) computes only
 * means; the sample std is what the workbench uses everywhere else (stdDev, like Python's
 * statistics.stdev), and with N = 1 the spread is null, not 0.
 */

export interface RepeatStat {
  /** Mean over the runs that have a value. */
  mean: number | null;
  /** Sample std (n - 1) of the runs' means; null with fewer than two values. */
  std: number | null;
  /** Runs that had a value. */
  runs: number;
  /** Each run's mean in repeat order (null where the run had none). */
  values: Array<number | null>;
  /**
   * J only: the mean over runs of the within-run judge-repeat std (the same answers judged
   * several times); null when no run judged more than once.
   */
  judgeRepeatStd?: number | null;
}

export type RepeatPair = Record<MetricId, RepeatStat>;

export interface RepeatSummary {
  /** Complete runs the statistics are over. */
  runs: number;
  byCategory: Record<CategoryId, RepeatPair>;
  /**
   * `answerable`: each run's headline subset (`RunSummary.overall.answerable`), when its profile
   * names one (`overallNames.answerable`); absent for a benchmark that has none (BEAM).
   */
  overall: { all: RepeatPair; answerable?: RepeatPair };
}

function statOf(pairs: ReadonlyArray<ScorePair | undefined>, metric: MetricId): RepeatStat {
  const values = pairs.map((p) => p?.[metric]?.mean ?? null);
  const present = values.filter((v): v is number => v !== null);
  const stat: RepeatStat = {
    mean: present.length === 0 ? null : mean(present),
    std: present.length < 2 ? null : stdDev(present, 1),
    runs: present.length,
    values,
  };
  if (metric === 'judge') {
    const within = pairs
      .map((p) => p?.judge)
      .filter((j) => j !== undefined && j.repeats > 1 && j.std !== null)
      .map((j) => j!.std as number);
    stat.judgeRepeatStd = within.length === 0 ? null : mean(within);
  }
  return stat;
}

function pairOf(pairs: ReadonlyArray<ScorePair | undefined>): RepeatPair {
  return Object.fromEntries(metricList().map((m) => [m.id, statOf(pairs, m.id)]));
}

/** Mean ± std over complete runs of the same experiment, per category and overall. */
export function repeatSummary(summaries: readonly RunSummary[]): RepeatSummary {
  const categories = new Set<CategoryId>();
  for (const s of summaries) for (const c of Object.keys(s.byCategory)) categories.add(Number(c));
  const byCategory: Record<CategoryId, RepeatPair> = {};
  for (const c of [...categories].sort((a, b) => a - b)) {
    byCategory[c] = pairOf(summaries.map((s) => s.byCategory[c]));
  }
  return {
    runs: summaries.length,
    byCategory,
    overall: {
      all: pairOf(summaries.map((s) => s.overall.all)),
      ...(summaries.some((s) => s.overall.answerable)
        ? { answerable: pairOf(summaries.map((s) => s.overall.answerable)) }
        : {}),
    },
  };
}

/** "0.412 ± 0.018" (or just the mean when the spread is undefined; `empty` without a mean). */
export function formatMeanStd(
  stat: Pick<RepeatStat, 'mean' | 'std'> | undefined,
  digits = 3,
  empty = '-',
): string {
  if (!stat || stat.mean === null) return empty;
  const m = stat.mean.toFixed(digits);
  return stat.std === null ? m : `${m} ± ${stat.std.toFixed(digits)}`;
}
