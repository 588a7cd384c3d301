import type { CategoryId } from './benchmarks/types';
import { WorkbenchError } from './errors';
import { METRICS, isMetricId, metricOf, type MetricId } from './metrics';
import { rankingDepthOf, type AnswerRecord, type MeanN, type RankingDepth } from './experiment';
import type { RunManifest, TokenTotals } from './runs';
import {
  clusterBootstrapCI,
  discordantPairs,
  mcnemarExact,
  minimumDetectableEffect,
  type ClusterBootstrapResult,
  type McNemarResult,
} from './scoring/significance';
import {
  bootstrapMeanCI,
  defaultBootstrapResamples,
  pairedBootstrapCI,
  quantileSorted,
  stdDev,
  type BootstrapResult,
} from './scoring/stats';

/**
 * Comparing runs question by question (DESIGN.md §5): runs are aligned by (sample, question
 * index); a question one run lacks is "missing", never "wrong"; category deltas carry a seeded
 * paired-bootstrap interval over the questions both runs answered.
 */

/** A comparison can use any registered metric; `judge` is the judge's mean over its repeats. */
export type CompareMetric = MetricId;

export function isCompareMetric(value: unknown): value is CompareMetric {
  return isMetricId(value);
}
export type Flip = 'improved' | 'regressed' | 'unchanged' | 'missing';

export interface RunAnswers {
  runId: string;
  label: string;
  /** Each question's final answer. */
  answers: readonly AnswerRecord[];
}

export interface CompareCell {
  prediction: string;
  score: number | null;
  error: string | null;
}

export interface CompareRow {
  sampleId: string;
  questionIndex: number;
  category: CategoryId;
  question: string;
  gold: string | null;
  /** One per run, in the order given; null where that run has no answer for the question. */
  cells: Array<CompareCell | null>;
  /** One per run against the baseline; the baseline's own entry is 'unchanged'. */
  flips: Flip[];
}

export interface CategoryComparison {
  /** null: every category together. */
  category: CategoryId | null;
  perRun: MeanN[];
  /** Run minus baseline over the questions both answered; null for the baseline itself. */
  deltas: Array<BootstrapResult | null>;
  /** The same difference with whole conversations (samples) resampled; null for the baseline. */
  clusterDeltas: Array<ClusterBootstrapResult | null>;
  /**
   * McNemar's exact test on correct/wrong flips, a score counting as correct at or above
   * `CORRECT_AT`; null for the baseline.
   */
  mcnemar: Array<McNemarResult | null>;
  /**
   * The smallest mean difference a paired two-sided test (alpha 0.05) detects with power 0.8 at
   * this n, in the metric's units (standardized effect × std of the paired differences); null for
   * the baseline or with fewer than two pairs.
   */
  minimumDetectable: Array<number | null>;
}

/** A score at or above this counts as correct for McNemar's test (judge: a majority CORRECT). */
export const CORRECT_AT = 0.5;

export interface RunComparison {
  metric: CompareMetric;
  baselineIndex: number;
  runs: Array<{
    runId: string;
    label: string;
    /**
     * For a metric that reads past the top-k (`reachesDepth`): its `RunSummary.rankingDepth` over
     * the run's answers, null where not recorded; absent for other metrics.
     */
    rankingDepth?: RankingDepth | null;
  }>;
  rows: CompareRow[];
  categories: CategoryComparison[];
  flipCounts: Array<Record<Flip, number>>;
  /** Resamples behind every bootstrap interval above (paired and by conversation). */
  resamples: number;
}

export interface CompareOptions {
  metric?: CompareMetric;
  baselineIndex?: number;
  seed?: number;
  resamples?: number;
}

/** Scores closer than this are the same score (F1 is a ratio of small integers). */
const EPSILON = 1e-9;

function keyOf(sampleId: string, questionIndex: number): string {
  return `${sampleId}\u0000${questionIndex}`;
}

/**
 * One answer's score under `metric`; null means "not scored" (no evidence, category 5 for the
 * Mem0 metrics, no judge verdict), which the comparison treats like a missing score, not a 0.
 */
export function scoreOf(answer: AnswerRecord, metric: CompareMetric): number | null {
  return answer.scores[metric] ?? null;
}

function meanN(values: Array<number | null>): MeanN {
  const present = values.filter((v): v is number => v !== null);
  if (present.length === 0) return { mean: null, n: 0 };
  return { mean: present.reduce((a, b) => a + b, 0) / present.length, n: present.length };
}

/** How many questions each run answered and how many all of them share. */
export interface QuestionSets {
  /** In the runs' order. */
  perRun: number[];
  shared: number;
}

/**
 * Runs over different question sets (another sample selection, a cancelled run) are compared on
 * the questions every run answered: a mean over other questions is not the same measurement.
 * Returns the runs cut to those questions, and the counts the UI states beside the numbers.
 */
export function onSharedQuestions(runs: readonly RunAnswers[]): {
  runs: RunAnswers[];
  questionSets: QuestionSets;
} {
  const keySets = runs.map(
    (run) => new Set(run.answers.map((a) => keyOf(a.sampleId, a.questionIndex))),
  );
  const shared = new Set(
    [...(keySets[0] ?? [])].filter((key) => keySets.every((keys) => keys.has(key))),
  );
  const perRun = keySets.map((keys) => keys.size);
  const same = perRun.every((n) => n === shared.size);
  return {
    runs: same
      ? [...runs]
      : runs.map((run) => ({
          ...run,
          answers: run.answers.filter((a) => shared.has(keyOf(a.sampleId, a.questionIndex))),
        })),
    questionSets: { perRun, shared: shared.size },
  };
}

/** The metric and the bootstrap seed of a comparison that names none (the Compare view's). */
export const DEFAULT_COMPARE_METRIC = 'officialF1';
export const DEFAULT_COMPARE_SEED = 0;

export function compareRuns(
  runs: readonly RunAnswers[],
  options: CompareOptions = {},
): RunComparison {
  const metric = options.metric ?? DEFAULT_COMPARE_METRIC;
  const baselineIndex = options.baselineIndex ?? 0;
  if (runs.length < 2)
    throw new WorkbenchError('INVALID_INPUT', 'compare: needs at least two runs');
  if (baselineIndex < 0 || baselineIndex >= runs.length) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `compare: baseline index ${baselineIndex} is not one of the ${runs.length} runs`,
    );
  }

  const byRun = runs.map(
    (run) => new Map(run.answers.map((a) => [keyOf(a.sampleId, a.questionIndex), a])),
  );
  // The union of questions, in a stable order: sample, then question index.
  const questions = new Map<string, AnswerRecord>();
  for (const run of runs)
    for (const a of run.answers)
      questions.set(
        keyOf(a.sampleId, a.questionIndex),
        questions.get(keyOf(a.sampleId, a.questionIndex)) ?? a,
      );
  const ordered = [...questions.entries()].sort(([, a], [, b]) =>
    a.sampleId === b.sampleId
      ? a.questionIndex - b.questionIndex
      : a.sampleId < b.sampleId
        ? -1
        : 1,
  );

  const flipCounts = runs.map(() => ({ improved: 0, regressed: 0, unchanged: 0, missing: 0 }));
  const rows: CompareRow[] = ordered.map(([key, first]) => {
    const cells = byRun.map((answers): CompareCell | null => {
      const answer = answers.get(key);
      return answer
        ? { prediction: answer.prediction, score: scoreOf(answer, metric), error: answer.error }
        : null;
    });
    const base = cells[baselineIndex];
    const flips = cells.map((cell, index): Flip => {
      let flip: Flip;
      if (index === baselineIndex) flip = cell ? 'unchanged' : 'missing';
      else if (!cell || !base || cell.score === null || base.score === null) flip = 'missing';
      else if (cell.score > base.score + EPSILON) flip = 'improved';
      else if (cell.score < base.score - EPSILON) flip = 'regressed';
      else flip = 'unchanged';
      flipCounts[index]![flip] += 1;
      return flip;
    });
    return {
      sampleId: first.sampleId,
      questionIndex: first.questionIndex,
      category: first.category,
      question: first.question,
      gold: first.gold,
      cells,
      flips,
    };
  });

  // The categories the runs' answers carry (their benchmark profile's), in number order.
  const present = [...new Set(runs.flatMap((r) => r.answers.map((a) => a.category)))].sort(
    (a, b) => a - b,
  );
  const categories: CategoryComparison[] = [null, ...present].map((category) => {
    const inCategory = rows.filter((row) => category === null || row.category === category);
    const scores = runs.map((_, index) => inCategory.map((row) => row.cells[index]?.score ?? null));
    const conversations = inCategory.map((row) => row.sampleId);
    const baseline = scores[baselineIndex]!;
    const seed = options.seed ?? DEFAULT_COMPARE_SEED;
    const resamples = options.resamples ? { resamples: options.resamples } : {};
    return {
      category,
      perRun: scores.map(meanN),
      clusterDeltas: scores.map((candidate, index) =>
        index === baselineIndex
          ? null
          : clusterBootstrapCI(baseline, candidate, conversations, { seed, ...resamples }),
      ),
      mcnemar: scores.map((candidate, index) => {
        if (index === baselineIndex) return null;
        const pairs = discordantPairs(baseline, candidate, CORRECT_AT);
        return mcnemarExact(pairs.baselineOnly, pairs.candidateOnly);
      }),
      minimumDetectable: scores.map((candidate, index) => {
        if (index === baselineIndex) return null;
        const diffs = pairedDifferences(baseline, candidate);
        return diffs.length < 2 ? null : minimumDetectableEffect(diffs.length) * stdDev(diffs);
      }),
      deltas: scores.map((candidate, index) =>
        index === baselineIndex
          ? null
          : pairedBootstrapCI(scores[baselineIndex]!, candidate, {
              seed: options.seed ?? DEFAULT_COMPARE_SEED,
              ...(options.resamples ? { resamples: options.resamples } : {}),
            }),
      ),
    };
  });

  return {
    metric,
    baselineIndex,
    runs: runs.map(({ runId, label, answers }) => ({
      runId,
      label,
      ...(METRICS.get(metric)?.reachesDepth
        ? { rankingDepth: rankingDepthOf(answers, [metricOf(metric)]) }
        : {}),
    })),
    rows,
    categories: categories.filter((c) => c.perRun.some((m) => m.n > 0)),
    flipCounts,
    resamples: options.resamples ?? defaultBootstrapResamples,
  };
}

/** candidate - baseline for the questions both runs scored. */
function pairedDifferences(
  baseline: readonly (number | null)[],
  candidate: readonly (number | null)[],
): number[] {
  const out: number[] = [];
  baseline.forEach((a, i) => {
    const b = candidate[i] ?? null;
    if (a !== null && b !== null) out.push(b - a);
  });
  return out;
}

export interface ConfigDifference {
  /** Dotted path of the key, e.g. `memory.config.topK`. */
  path: string;
  /** The value in each run (undefined where a run lacks the key), JSON-encoded for display. */
  values: Array<string | undefined>;
}

function flatten(value: unknown, prefix: string, out: Map<string, string>): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value))
      flatten(inner, prefix ? `${prefix}.${key}` : key, out);
    return;
  }
  out.set(prefix, JSON.stringify(value));
}

/** Only the keys whose values differ between the configs. */
export function configDiff(configs: readonly unknown[]): ConfigDifference[] {
  const flat = configs.map((config) => {
    const out = new Map<string, string>();
    flatten(config, '', out);
    return out;
  });
  const paths = [...new Set(flat.flatMap((f) => [...f.keys()]))].sort();
  return paths
    .map((path) => ({ path, values: flat.map((f) => f.get(path)) }))
    .filter(({ values }) => new Set(values).size > 1);
}

// ---------------------------------------------------------------------------------------------
// Cost and speed

/** What one run cost and how fast it answered, for the comparison's cost table. */
export interface RunCost {
  runId: string;
  /** Token totals per model role, from the run's manifest; null where the role had no model. */
  answer: TokenTotals | null;
  judge: TokenTotals | null;
  memory: TokenTotals | null;
  /** Sum of the roles' costs; null when no role had prices. */
  totalCost: number | null;
  /** Means over the final answers that did not fail, ms; null when there are none. */
  meanRetrieveMs: number | null;
  meanAnswerMs: number | null;
  /** Mem0 Table 2's latency and cost columns, for every run. */
  table2: Table2Columns;
}

/** p50 (median) and p95, ms, as numpy's default percentile (linear interpolation). */
export interface Percentiles {
  p50: number;
  p95: number;
}

/**
 * The columns of Mem0's Table 2 (its caption: search time = time taken to fetch memories,
 * total = time to generate the complete response) over the final answers that did not fail: the
 * search is the run's retrieval of a question (both speakers' searches for `mem0`), the total
 * retrieval plus answer. Ingest cost is the memory LLM's calls and tokens per conversation.
 */
export interface Table2Columns {
  searchMs: Percentiles | null;
  totalMs: Percentiles | null;
  /** Null when the run had no memory LLM. */
  ingest: {
    conversations: number;
    callsPerConversation: number;
    tokensPerConversation: number;
  } | null;
  /**
   * Memory tokens per question (the retrieved context handed to the answerer) over the answers
   * that counted them; null when none did (runs from before they were stored), never 0.
   */
  memoryTokens: { mean: number; p50: number; answers: number } | null;
}

function percentiles(values: number[]): Percentiles | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: quantileSorted(sorted, 0.5), p95: quantileSorted(sorted, 0.95) };
}

/** What Table 2 reads of an answer. */
export type Table2Answer = Pick<
  AnswerRecord,
  'retrieveMs' | 'answerMs' | 'error' | 'memoryTokens'
> & {
  sampleId?: string;
};

function memoryTokenColumn(ok: readonly Table2Answer[]): Table2Columns['memoryTokens'] {
  const counted = ok.flatMap((a) =>
    a.memoryTokens === null || a.memoryTokens === undefined ? [] : [a.memoryTokens],
  );
  if (counted.length === 0) return null;
  const sorted = [...counted].sort((a, b) => a - b);
  return {
    mean: counted.reduce((s, v) => s + v, 0) / counted.length,
    p50: quantileSorted(sorted, 0.5),
    answers: counted.length,
  };
}

export function table2Columns(
  memory: TokenTotals | null | undefined,
  answers: readonly Table2Answer[],
): Table2Columns {
  const ok = answers.filter((a) => a.error === null);
  const conversations = new Set(answers.map((a) => a.sampleId)).size;
  return {
    searchMs: percentiles(ok.map((a) => a.retrieveMs)),
    totalMs: percentiles(ok.map((a) => a.retrieveMs + a.answerMs)),
    ingest:
      memory && memory.calls > 0 && conversations > 0
        ? {
            conversations,
            callsPerConversation: memory.calls / conversations,
            tokensPerConversation: (memory.promptTokens + memory.completionTokens) / conversations,
          }
        : null,
    memoryTokens: memoryTokenColumn(ok),
  };
}

export function runCost(
  runId: string,
  usage: RunManifest['usage'],
  answers: readonly Table2Answer[],
): RunCost {
  const roles = [usage?.answer ?? null, usage?.judge ?? null, usage?.memory ?? null];
  const priced = roles.filter((r): r is TokenTotals => r !== null && r.cost !== null);
  const ok = answers.filter((a) => a.error === null);
  const mean = (values: number[]): number | null =>
    values.length === 0 ? null : values.reduce((s, v) => s + v, 0) / values.length;
  return {
    runId,
    answer: roles[0] ?? null,
    judge: roles[1] ?? null,
    memory: roles[2] ?? null,
    totalCost: priced.length === 0 ? null : priced.reduce((s, r) => s + (r.cost ?? 0), 0),
    meanRetrieveMs: mean(ok.map((a) => a.retrieveMs)),
    meanAnswerMs: mean(ok.map((a) => a.answerMs)),
    table2: table2Columns(usage?.memory, answers),
  };
}

/** A run's mean with its 95% bootstrap interval, overall and per category (issue 26 item 10). */
export interface ScoreIntervals {
  metric: CompareMetric;
  resamples: number;
  seed: number;
  all: BootstrapResult;
  byCategory: Record<CategoryId, BootstrapResult>;
}

/**
 * The headline's interval and each category's, over final answers, by the same seeded bootstrap
 * as the comparisons; an answer `metric` did not score (null) is left out, as in the mean.
 */
export function scoreIntervals(
  answers: readonly AnswerRecord[],
  metric: CompareMetric = DEFAULT_COMPARE_METRIC,
  options: { resamples?: number; seed?: number } = {},
): ScoreIntervals {
  const resamples = options.resamples ?? defaultBootstrapResamples;
  const seed = options.seed ?? DEFAULT_COMPARE_SEED;
  const scored = (list: readonly AnswerRecord[]) =>
    list.map((a) => scoreOf(a, metric)).filter((x): x is number => x !== null);
  const categories = [...new Set(answers.map((a) => a.category))].sort((x, y) => x - y);
  const byCategory: Record<CategoryId, BootstrapResult> = {};
  for (const c of categories) {
    byCategory[c] = bootstrapMeanCI(scored(answers.filter((a) => a.category === c)), {
      resamples,
      seed,
    });
  }
  return {
    metric,
    resamples,
    seed,
    all: bootstrapMeanCI(scored(answers), { resamples, seed }),
    byCategory,
  };
}
