import type { AnswerProtocolName } from '../experiment/answerer';
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
   * The benchmark's own metrics (a metric whose rule is `declared`) that score this category, on
   * top of every general metric whose rule takes it: a new general metric needs no line here.
   */
  ownMetrics?: readonly string[];
  /** General metrics that mean nothing for this category (LoCoMo's dia-id recall elsewhere). */
  withoutMetrics?: readonly string[];
  /**
   * The category whose task this one's answers also count for in a task-averaged mean
   * (LongMemEval files abstention questions apart, but averages them into their question type).
   */
  task?: number;
  /**
   * LoCoMo's answer protocols append their date hint ("Use DATE of CONVERSATION to answer with an
   * approximate date.") to this category's questions, as `task_eval` does for its temporal one.
   */
  dateHint?: boolean;
}

export interface BenchmarkScheme {
  id: string;
  /** How charts and tables name the scheme: "official LoCoMo". */
  label: string;
}

/**
 * Where a paper prints a run: the columns of one row of its results table. Data only (a profile
 * travels as JSON), read by src-shared/paperTables.ts.
 */
export interface ReportLayout {
  /** The profile's scheme whose category names `groups` uses. */
  scheme: string;
  /** Category names in `scheme`, an overall's name in `overalls`, or null for every question. */
  groups: readonly (string | null)[];
  /** Groups that read a summary overall rather than a category (LongMemEval's task average). */
  overalls?: Readonly<Record<string, 'taskAveraged' | 'abstention'>>;
  /** A category reads its task (`RunSummary.byTask`: the categories counting for it included). */
  tasks?: boolean;
  /** A category reads the mean of its per-sample means (`RunSummary.bySampleMean`; BEAM). */
  sampleMeans?: boolean;
  /** Metric ids per group, each with its sub-header (Mem0: F1, B1, J) or null. */
  metrics: ReadonlyArray<{ id: string; sub: string | null }>;
  decimals: number;
  /** The footnote's words after the n line: what the cells are and whose code computes them. */
  caption: string;
}

/** A `report --format` / "Copy as" table: its id, how menus name it, its one help line, its layout. */
export interface ReportFormat {
  /** `--format <id>`; unique over every registered profile. */
  id: string;
  /** How "Copy as" and the help name the table: "LoCoMo table". */
  label: string;
  /** One line for `report --help`: which columns, which metric. */
  help: string;
  layout: ReportLayout;
}

/** One overall of a run's summary as a benchmark names it. */
export interface OverallName {
  /** The table row's words: `overall (<label>)` (LoCoMo: "all, official", "categories 1-4"). */
  label: string;
  /** Whose convention it is, one line under the view's card ("Mem0 convention, adversarial left out"). */
  note: string;
}

export interface BenchmarkOverallNames {
  /** `overall.all`: the mean over every question. */
  all: OverallName;
  /**
   * `overall.answerable`: the headline subset, the mean over the non-adversarial categories
   * (LoCoMo: Mem0's categories 1-4). Null when the benchmark has none: no category is
   * adversarial, so it would repeat `all`, and the summary leaves it out.
   */
  answerable: OverallName | null;
}

export interface BenchmarkProfile {
  id: string;
  label: string;
  /**
   * The first is the default and is `official` (DEFAULT_SCHEME): views open on it before they know
   * the dataset. `validateBenchmarkProfile` (index.ts) checks it at registration.
   */
  schemes: readonly [BenchmarkScheme & { id: 'official' }, ...BenchmarkScheme[]];
  categories: readonly BenchmarkCategory[];
  /**
   * Also report the mean over tasks of each task's mean (LongMemEval's "task-averaged accuracy"):
   * every category is a task, or counts for the one its `task` names.
   */
  taskAveraged?: boolean;
  /**
   * Also report per category the mean over samples of each sample's mean (BEAM's
   * `report_results.py`: per chat, then over chats), for layouts with `sampleMeans`.
   */
  sampleAveraged?: boolean;
  /**
   * The judge protocol (core/answer/judge-protocols.ts) a run of this benchmark gets when none is
   * named: the benchmark's own judge. Naming another one is allowed, and warned about.
   */
  defaultJudgeProtocol: string;
  /**
   * The answer protocol an LLM reader of this benchmark gets when the config names none (its
   * reference's reader: LongMemEval's `longmemeval`); absent: the workbench's own, workbench-locomo.
   */
  defaultAnswerProtocol?: AnswerProtocolName;
  /**
   * The reader is told when the question is asked (LongMemEval's `Current Date:`, from the
   * dataset's `question_date`); `readerQuestion` in index.ts writes it.
   */
  readerDate?: boolean;
  /**
   * Report abstention accuracy apart (LongMemEval `print_qa_metrics.py`): the judge's mean over
   * the adversarial categories, as the summary's `overall.abstention`.
   */
  abstentionAccuracy?: boolean;
  /** How tables and views name the overalls of a run's summary, in this benchmark's words. */
  overallNames: BenchmarkOverallNames;
  /**
   * How the benchmark's reference asks its adversarial questions when not as any other question:
   * as two options, one of them "not mentioned" (LoCoMo's category 5), the reply read back by the
   * answerer config's `adversarialReplyMapping`. `help` says it in the benchmark's words, for the
   * help lines of that setting. Absent: asked as any other question.
   */
  adversarialQuestions?: { asked: 'two-option'; help: string };
  /** What a sample's `group` is, for tables that total by it (BEAM: `size`). */
  sampleGroup?: string;
  /** The `report --format` tables laid out for this benchmark's categories, its own first; at least one. */
  reportFormats: readonly [ReportFormat, ...ReportFormat[]];
}
