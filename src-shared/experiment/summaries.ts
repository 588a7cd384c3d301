import { benchmarkCategory, type BenchmarkProfile } from '../benchmarks';
import type { CategoryId } from '../benchmarks/types';
import {
  metricsOf,
  type MetricDefinition,
  scoreAnswer,
  type AggregateInput,
  type MetricId,
  type MetricMean,
  type Scores,
} from '../metrics';
import { stdDev } from '../scoring/stats';
import type { AnswerRecord, JudgeScore, TestRecord } from './records';

/**
 * The pure aggregations every process computes the same way: an answer's scores, a run's summary,
 * its curve and its final answers.
 */

/** Mean with its count; mean is null (not NaN, which JSON cannot carry) when n is 0. */
export interface MeanN {
  mean: number | null;
  n: number;
}

/** The judge's J: mean over judged answers, std over the repeats' accuracies (Mem0 reports J ± std). */
export interface JudgeMeanN extends MeanN {
  /** Sample std of the per-repeat accuracies; null with fewer than one repeat judged. */
  std: number | null;
  repeats: number;
}

/** Each metric's mean over a set of answers (n counts the answers it scored), by metric id. */
export type ScorePair = Record<MetricId, MetricMean> & { judge: JudgeMeanN };

export interface RunSummary {
  /** Keyed by the stored category number; name it with a scheme when displaying. */
  byCategory: Record<CategoryId, ScorePair>;
  /**
   * Profiles with `taskAveraged` (LongMemEval): per task, keyed by its category, the categories
   * that count for it included (a type's abstention questions in their type, as
   * `print_qa_metrics.py` prints its per-type rows).
   */
  byTask?: Record<CategoryId, ScorePair>;
  /**
   * Profiles with `sampleAveraged` (BEAM): per category, the mean over samples of each sample's
   * mean, as `report_results.py` averages an ability's per-chat means.
   */
  bySampleMean?: Record<CategoryId, ScorePair>;
  overall: {
    /** Every question (`overallNames.all` names it: LoCoMo's official convention). */
    all: ScorePair;
    /**
     * The headline subset: the non-adversarial categories, for every profile that names one
     * (`overallNames.answerable`: LoCoMo's "categories 1-4", Mem0's convention; LongMemEval's
     * non-abstention questions); absent for a profile with none (BEAM). Summaries stored before
     * it had one key for every benchmark wrote LoCoMo's as `categories1to4`; the runs DB reads
     * that as this (core/runs/summaries.ts).
     */
    answerable?: ScorePair;
    /**
     * Profiles with `abstentionAccuracy` (LongMemEval `print_qa_metrics.py` "Abstention
     * Accuracy"): the adversarial (abstention) questions alone.
     */
    abstention?: ScorePair;
    /**
     * Profiles with `taskAveraged` (LongMemEval): the mean over question types of each type's
     * mean, abstention questions counted in their type, as the benchmark reports it beside the
     * overall mean ("task-averaged accuracy" vs "overall accuracy").
     */
    taskAveraged?: ScorePair;
  };
  questions: number;
  errors: number;
  /**
   * Profiles with metrics that read past the run's top-k (`reachesDepth`: LongMemEval's retrieval
   * metrics): of the final answers they score, how many were scored on a ranking short of the
   * reference's depth (the memory returned fewer items than asked), so their means are lower
   * bounds. Absent: not recorded (runs from before it was, or a profile without such metrics).
   */
  rankingDepth?: RankingDepth;
}

export interface RankingDepth {
  /** Final answers a depth-reading metric scores. */
  scored: number;
  /** Of them, those scored on a ranking short of the depth. */
  lowerBound: number;
}

export interface CurvePoint {
  sampleId: string;
  testIndex: number;
  dialogsInserted: number;
  visibleCount: number;
  /** Each metric's mean over the test's answers; null when it scored none. */
  means: Record<MetricId, number | null>;
}

function meanN(values: readonly number[]): MeanN {
  if (values.length === 0) return { mean: null, n: 0 };
  let sum = 0;
  for (const v of values) sum += v;
  return { mean: sum / values.length, n: values.length };
}

/**
 * The scores of one answer, computed the same way by the pipeline and `cli score`: every
 * registered metric that scores the category under the benchmark profile. An errored answer
 * scores 0 on answer metrics, never its "[ERROR]" text against the gold.
 */
export function answerScores(
  answer: {
    prediction: string;
    gold: string | null;
    category: CategoryId;
    evidence?: readonly string[];
    evidenceRaw?: readonly string[];
    retrieved?: readonly string[];
    topK?: number;
    /** The memory's ranking past the top-k (`ScoringRanking.turns`), where the run read one. */
    ranking?: readonly string[];
    retrievalCorpus?: readonly string[];
    rubric?: readonly string[];
    /** LoCoMo-form context ids (`retrievedContext`), when they differ from `retrieved`. */
    context?: readonly string[];
    errored?: boolean;
  },
  profile: BenchmarkProfile,
): Scores {
  return scoreAnswer({
    prediction: answer.prediction,
    gold: answer.gold,
    category: benchmarkCategory(profile, answer.category),
    evidence: answer.evidence ?? [],
    retrieved: answer.retrieved ?? [],
    ...(answer.evidenceRaw ? { evidenceRaw: answer.evidenceRaw } : {}),
    ...(answer.context ? { context: answer.context } : {}),
    ...(answer.topK !== undefined ? { topK: answer.topK } : {}),
    ...(answer.ranking ? { ranking: answer.ranking } : {}),
    ...(answer.retrievalCorpus ? { retrievalCorpus: answer.retrievalCorpus } : {}),
    ...(answer.rubric ? { rubric: answer.rubric } : {}),
    errored: answer.errored ?? false,
  });
}

/** The per-answer judge verdict from its labels (1 CORRECT, 0 WRONG). */
export function judgeScoreOf(labels: readonly number[]): JudgeScore {
  if (labels.length === 0) return { mean: null, std: null, labels: [], error: null };
  let sum = 0;
  for (const l of labels) sum += l;
  return { mean: sum / labels.length, std: stdDev(labels), labels: [...labels], error: null };
}

type Scored = Pick<AnswerRecord, 'category' | 'scores' | 'error'> &
  Partial<Pick<AnswerRecord, 'sampleId' | 'scoringRanking'>> &
  AggregateInput;

function presentMean(values: ReadonlyArray<number | null | undefined>): MeanN {
  const present: number[] = [];
  for (const v of values) if (v !== null && v !== undefined) present.push(v);
  return meanN(present);
}

function scorePair(answers: readonly Scored[], metrics: readonly MetricDefinition[]): ScorePair {
  const pair: Record<MetricId, MetricMean> = {};
  for (const metric of metrics) {
    pair[metric.id] = metric.aggregate
      ? metric.aggregate(answers)
      : presentMean(answers.map((a) => a.scores[metric.id]));
  }
  return pair as ScorePair;
}

/**
 * Each task's mean (LongMemEval `print_qa_metrics.py`'s per-type rows): a category counts for the
 * task its `task` names, else is its own, so a type's abstention questions count in their type.
 */
function taskPairs(
  answers: readonly Scored[],
  profile: BenchmarkProfile,
  metrics: readonly MetricDefinition[],
): Record<CategoryId, ScorePair> {
  const taskOf = new Map(profile.categories.map((c) => [c.id, c.task ?? c.id]));
  const byTask = new Map<number, Scored[]>();
  for (const c of profile.categories) if (c.task === undefined) byTask.set(c.id, []);
  for (const a of answers) {
    const task = taskOf.get(a.category) ?? a.category;
    const list = byTask.get(task);
    if (list) list.push(a);
    else byTask.set(task, [a]);
  }
  const out: Record<CategoryId, ScorePair> = {};
  for (const [task, list] of byTask) out[task] = scorePair(list, metrics);
  return out;
}

/**
 * The mean over groups of each group's mean (tasks: "Task-averaged Accuracy"; BEAM: chats);
 * groups where a metric scored nothing are left out of that metric's mean. n counts the answers
 * scored.
 */
function meanOfMeans(pairs: readonly ScorePair[], metrics: readonly MetricDefinition[]): ScorePair {
  const out: Record<MetricId, MetricMean> = {};
  for (const metric of metrics) {
    const means: number[] = [];
    let n = 0;
    let repeats = 0;
    for (const pair of pairs) {
      const m = pair[metric.id];
      if (!m || m.mean === null || m.n === 0) continue;
      means.push(m.mean);
      n += m.n;
      repeats = Math.max(repeats, m.repeats ?? 0);
    }
    const mean = means.length === 0 ? null : means.reduce((x, y) => x + y, 0) / means.length;
    // A mean of means has no per-repeat spread of its own.
    out[metric.id] = metric.aggregate ? { mean, n, std: null, repeats } : { mean, n };
  }
  return out as ScorePair;
}

/**
 * Per category, the mean over samples of each sample's mean (BEAM `report_results.py`: an
 * ability's mean over a chat's questions, then over chats).
 */
function sampleAveragedPairs(
  answers: readonly Scored[],
  profile: BenchmarkProfile,
  metrics: readonly MetricDefinition[],
): Record<CategoryId, ScorePair> {
  const out: Record<CategoryId, ScorePair> = {};
  for (const c of profile.categories) {
    const bySample = new Map<string, Scored[]>();
    for (const a of answers) {
      if (a.category !== c.id) continue;
      const key = a.sampleId ?? '';
      bySample.set(key, [...(bySample.get(key) ?? []), a]);
    }
    const pairs = [...bySample.values()].map((list) => scorePair(list, metrics));
    out[c.id] = meanOfMeans(pairs, metrics);
  }
  return out;
}

/**
 * Per-category and overall means over a set of answers. Pass final answers for a run's headline;
 * per-test answers must not be pooled into it (DESIGN §3).
 */
export function summarizeAnswers(
  answers: readonly Scored[],
  profile: BenchmarkProfile,
): RunSummary {
  const metrics = metricsOf(profile);
  const byCategory: Record<CategoryId, ScorePair> = {};
  for (const c of profile.categories) {
    byCategory[c.id] = scorePair(
      answers.filter((a) => a.category === c.id),
      metrics,
    );
  }
  const adversarial = new Set(profile.categories.filter((c) => c.adversarial).map((c) => c.id));
  const byTask = profile.taskAveraged === true ? taskPairs(answers, profile, metrics) : null;
  const bySampleMean =
    profile.sampleAveraged === true ? sampleAveragedPairs(answers, profile, metrics) : null;
  return {
    byCategory,
    ...(byTask ? { byTask } : {}),
    ...(bySampleMean ? { bySampleMean } : {}),
    overall: {
      all: scorePair(answers, metrics),
      ...(profile.overallNames.answerable !== null
        ? {
            answerable: scorePair(
              answers.filter((a) => !adversarial.has(a.category)),
              metrics,
            ),
          }
        : {}),
      ...(byTask ? { taskAveraged: meanOfMeans(Object.values(byTask), metrics) } : {}),
      ...(profile.abstentionAccuracy === true
        ? {
            abstention: scorePair(
              answers.filter((a) => adversarial.has(a.category)),
              metrics,
            ),
          }
        : {}),
    },
    questions: answers.length,
    errors: answers.filter((a) => a.error !== null).length,
    ...rankingDepthField(answers, metrics),
  };
}

function rankingDepthField(
  answers: readonly Scored[],
  metrics: readonly MetricDefinition[],
): { rankingDepth?: RankingDepth } {
  const depth = rankingDepthOf(answers, metrics);
  return depth ? { rankingDepth: depth } : {};
}

/**
 * `RunSummary.rankingDepth` over answers for the metrics given: null where none reads past the
 * top-k, or where an answer one scores has no record (not recorded).
 */
export function rankingDepthOf(
  answers: ReadonlyArray<
    Pick<AnswerRecord, 'scores'> & Partial<Pick<AnswerRecord, 'scoringRanking'>>
  >,
  metrics: ReadonlyArray<Pick<MetricDefinition, 'id' | 'reachesDepth'>>,
): RankingDepth | null {
  const depthMetrics = metrics.filter((m) => m.reachesDepth);
  if (depthMetrics.length === 0) return null;
  let scored = 0;
  let lowerBound = 0;
  for (const a of answers) {
    if (!depthMetrics.some((m) => a.scores[m.id] !== null && a.scores[m.id] !== undefined))
      continue;
    if (!a.scoringRanking) return null;
    scored++;
    if (!a.scoringRanking.reached) lowerBound++;
  }
  return { scored, lowerBound };
}

/** How a table marks a metric's figure that may be a lower bound: the mark and its footnote. */
export interface RankingDepthMark {
  mark: string;
  note: string;
}

/**
 * The mark a table shows on a metric that reads past the top-k (`reachesDepth`), or null where
 * its figure is exact (or it reads no deeper): `≥` with the count of questions whose ranking fell
 * short of the reference's depth, or `?` where the run did not record it.
 */
export function rankingDepthMark(
  metric: Pick<MetricDefinition, 'reachesDepth'>,
  summary: Pick<RunSummary, 'rankingDepth'> | null | undefined,
): RankingDepthMark | null {
  if (!metric.reachesDepth) return null;
  const depth = summary?.rankingDepth;
  if (!depth) {
    return {
      mark: '?',
      note: 'ranking depth not recorded (a run from before it was): may be a lower bound',
    };
  }
  if (depth.lowerBound === 0) return null;
  return {
    mark: '≥',
    note: `lower bound: ${depth.lowerBound} of ${depth.scored} questions ranked short of the reference's depth (the memory returned fewer items than asked)`,
  };
}

/** A metric's name (`label`, `short`, …) with its mark where its figure may be a lower bound. */
export function rankingDepthLabel(
  name: string,
  metric: Pick<MetricDefinition, 'reachesDepth'>,
  summary: Pick<RunSummary, 'rankingDepth'> | null | undefined,
): string {
  const mark = rankingDepthMark(metric, summary);
  return mark ? `${mark.mark} ${name}` : name;
}

/** A table's footnotes for the marks of the metrics it shows, one per distinct mark. */
export function rankingDepthFootnotes(
  metrics: ReadonlyArray<Pick<MetricDefinition, 'reachesDepth' | 'short'>>,
  summary: Pick<RunSummary, 'rankingDepth'> | null | undefined,
): string[] {
  const notes = new Map<string, string[]>();
  for (const m of metrics) {
    const mark = rankingDepthMark(m, summary);
    if (!mark) continue;
    const key = `${mark.mark} ${mark.note}`;
    notes.set(key, [...(notes.get(key) ?? []), m.short]);
  }
  return [...notes].map(([note, shorts]) => `${note} [${shorts.join(', ')}]`);
}

type Keyed = Pick<AnswerRecord, 'sampleId' | 'questionIndex' | 'testIndex'>;

/** Each question's answer at the last test that asked it: the headline set. Sorted by sample, question. */
export function finalAnswersOf<T extends Keyed>(answers: readonly T[]): T[] {
  const last = new Map<string, T>();
  for (const a of answers) {
    const key = `${a.sampleId}\u0000${a.questionIndex}`;
    const seen = last.get(key);
    if (!seen || a.testIndex > seen.testIndex) last.set(key, a);
  }
  return [...last.values()].sort(
    (x, y) =>
      (x.sampleId < y.sampleId ? -1 : x.sampleId > y.sampleId ? 1 : 0) ||
      x.questionIndex - y.questionIndex,
  );
}

/** One point per committed test: how the scores move as the conversation grows. */
export function curveOf(
  tests: readonly Omit<TestRecord, 'questionIndices'>[],
  profile: BenchmarkProfile,
): CurvePoint[] {
  const metrics = metricsOf(profile);
  return tests
    .map((t) => {
      const s = scorePair(t.answers, metrics);
      const means: Record<MetricId, number | null> = {};
      for (const id of Object.keys(s)) means[id] = s[id]?.mean ?? null;
      return {
        sampleId: t.sampleId,
        testIndex: t.testIndex,
        dialogsInserted: t.dialogsInserted,
        visibleCount: t.visibleCount,
        means,
      };
    })
    .sort(
      (x, y) =>
        (x.sampleId < y.sampleId ? -1 : x.sampleId > y.sampleId ? 1 : 0) ||
        x.testIndex - y.testIndex,
    );
}
