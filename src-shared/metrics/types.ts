import type { BenchmarkCategory } from '../benchmarks/types';

/**
 * A metric: one module under `src-shared/metrics/` exporting a `MetricDefinition`. Scoring,
 * storage (one row per metric), summaries, the CLI tables, exports and the UI's metric choices
 * all iterate the registry, so a new metric is one file (plus its line in `builtin.ts`).
 */

export type MetricId = string;

/** Every metric's value for one answer; null = the metric does not score it (or not yet). */
export type Scores = Record<MetricId, number | null>;

/** What an answer's scores are computed from. */
export interface ScoreInput {
  prediction: string;
  /** The dataset's answer; null where the category has none (adversarial). */
  gold: string | null;
  category: BenchmarkCategory;
  /** Normalised evidence turn ids. */
  evidence: readonly string[];
  /** Retrieved turn ids, best first, cut at the run's top-k. */
  retrieved: readonly string[];
  /** The run's top-k: the k of the metrics that need it beside `retrieved` (LongMemEval's). */
  topK?: number;
  /**
   * The memory's ranking read past the top-k, as deep as the metrics with `reachesDepth` need (the
   * pipeline retrieves it for them); absent where the run scored its top-k only.
   */
  ranking?: readonly string[];
  /** The turns a benchmark's own retrieval metrics rank (`QA.retrievalCorpus`). */
  retrievalCorpus?: readonly string[];
  /** The question's rubric items (BEAM `QA.rubric`); absent where the benchmark has none. */
  rubric?: readonly string[];
  /** The dataset's evidence ids as written (LoCoMo-convention recall); absent where unknown. */
  evidenceRaw?: readonly string[];
  /**
   * The retrieved context in LoCoMo's id form (turn ids, or `S<n>` for session summaries), when it
   * differs from `retrieved`.
   */
  context?: readonly string[];
  /** The answer failed (timeout, thrown error): its prediction is "[ERROR]", not a real answer. */
  errored: boolean;
}

/** A mean with its count; mean is null (JSON cannot carry NaN) when n is 0. */
export interface MetricMean {
  mean: number | null;
  n: number;
  /** Spread the metric reports beside its mean (J's std over repeats); absent for most. */
  std?: number | null;
  repeats?: number;
}

/** The slice of an answer a metric with its own aggregation may read. */
export interface AggregateInput {
  scores: Scores;
  /** The judge's per-repeat labels (1 CORRECT, 0 WRONG). */
  judge?: { labels: readonly number[] } | null;
}

export interface MetricDefinition {
  id: MetricId;
  /** CLI tables and captions: "official F1". */
  label: string;
  /** UI charts and pickers: "Official F1". */
  title: string;
  /** A narrow table column's header: "F1". */
  short: string;
  /** The formula in one sentence, with its source. */
  formula: string;
  range: readonly [number, number];
  better: 'higher' | 'lower';
  /**
   * `answer`: a pure function of prediction, gold and category (recomputed for rows stored before
   * the metric existed; `cli score` computes these); `retrieval`: of the retrieved turns;
   * `judge`: filled in by a judge pass after the run.
   */
  source: 'answer' | 'retrieval' | 'judge';
  /**
   * Which categories it scores (a profile's category `metrics` list overrides this); `declared`:
   * only those whose profile lists it (a benchmark's own metric).
   */
  categories: 'all' | 'answerable' | 'declared';
  /** The value for one answer; absent for metrics filled in later (the judge). */
  score?: (input: ScoreInput) => number | null;
  /** Its own mean over answers (J: mean plus the std of per-repeat accuracies). */
  aggregate?: (answers: readonly AggregateInput[]) => MetricMean;
  /** Column name in exports; the id by default. */
  exportKey?: string;
  /**
   * A metric whose reference reads a ranking deeper than the run's top-k (LongMemEval's, over the
   * user turns): whether `ranking` reaches that depth. The pipeline retrieves deeper until it does
   * or the memory returns no more; then the value is a lower bound, counted in the summary's
   * `rankingDepth` and labelled wherever the metric is shown.
   */
  reachesDepth?: (input: ScoreInput) => boolean;
  /** CLI table: print the n column after the mean. */
  showN?: boolean;
  /** CLI table and charts: leave the metric out when nothing has a value (no judge ran). */
  hideWhenEmpty?: boolean;
}
