import type { OfficialRule } from '../scoring/official';

/** A category as a dataset stores it; its profile says what it is. */
export type CategoryId = number;

/** A naming scheme's id (`official`, LoCoMo's `mem0`); its profile says what it calls each category. */
export type SchemeId = string;

/**
 * A benchmark profile: what a dataset's question categories are. The dataset stores a category
 * number; the profile names it (one name per naming scheme), says whether it is adversarial (the
 * gold is "the conversation does not say") and, where a metric's own rule is not enough, which
 * metrics score it. A new dataset = a loader + one profile file.
 */
export interface BenchmarkCategory {
  /** The number the dataset stores. */
  id: number;
  /** Name per naming scheme id (every scheme the profile declares). */
  names: Readonly<Record<string, string>>;
  /** Unanswerable by design: metrics that need a real gold skip it, and so does the "answerable" overall. */
  adversarial: boolean;
  /** How official F1 reads the gold (LoCoMo `task_eval`'s per-category rules); default `plain`. */
  officialRule?: OfficialRule;
  /** Overrides the metrics' own rules: exactly these metric ids score the category. */
  metrics?: readonly string[];
  /**
   * The category whose task this one's answers also count for in a task-averaged mean
   * (LongMemEval files abstention questions apart, but averages them into their question type).
   */
  task?: number;
}

export interface BenchmarkScheme {
  id: string;
  /** How charts and tables name the scheme: "official LoCoMo". */
  label: string;
}

export interface BenchmarkProfile {
  id: string;
  label: string;
  /** The first is the default. */
  schemes: readonly BenchmarkScheme[];
  categories: readonly BenchmarkCategory[];
  /**
   * Also report the mean over tasks of each task's mean (LongMemEval's "task-averaged accuracy"):
   * every category is a task, or counts for the one its `task` names.
   */
  taskAveraged?: boolean;
}
