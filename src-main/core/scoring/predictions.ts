import { z } from 'zod';
import type { BenchmarkProfile, CategoryId } from '../../../src-shared/benchmarks';
import type { Sample } from '../../../src-shared/dataset';
import { WorkbenchError, formatPath, zodError } from '../../../src-shared/errors';
import {
  answerScores,
  summarizeAnswers,
  type JudgeScore,
  type ScorePair,
} from '../../../src-shared/experiment';
import {
  metricList,
  type MetricDefinition,
  type MetricMean,
  type Scores,
} from '../../../src-shared/metrics';

/**
 * Predictions scored without running anything (`cli score`): a predictions file checked against
 * its dataset, each answer scored by the formulas the pipeline uses, and the per-category means.
 * The judge's pass over them is core/answer/judgePredictions.ts.
 */

export const PredictionSchema = z.object({
  sampleId: z.string().min(1),
  questionIndex: z.number().int().nonnegative(),
  prediction: z.string(),
});
export type Prediction = z.output<typeof PredictionSchema>;

const MAX_REPORTED = 20;

/**
 * Validates a predictions array against a dataset: each entry's shape, that its sample and
 * question exist, and that no question is predicted twice. Every bad entry is reported with its
 * index, not just the first.
 */
export function parsePredictions(value: unknown, samples: readonly Sample[]): Prediction[] {
  if (!Array.isArray(value)) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      'predictions: must be a JSON array of {sampleId, questionIndex, prediction}',
    );
  }
  const questions = new Map<string, Set<number>>();
  for (const s of samples) questions.set(s.sampleId, new Set(s.qa.map((q) => q.index)));
  const problems: string[] = [];
  const seen = new Map<string, number>();
  const out: Prediction[] = [];
  value.forEach((entry, i) => {
    const parsed = PredictionSchema.safeParse(entry);
    if (!parsed.success) {
      problems.push(zodError(parsed.error, 'predictions', [i]).message);
      return;
    }
    const p = parsed.data;
    const known = questions.get(p.sampleId);
    if (!known) {
      problems.push(`predictions: ${formatPath([i, 'sampleId'])}: no sample "${p.sampleId}"`);
      return;
    }
    if (!known.has(p.questionIndex)) {
      problems.push(
        `predictions: ${formatPath([i, 'questionIndex'])}: sample ${p.sampleId} has no question ${p.questionIndex}`,
      );
      return;
    }
    const key = `${p.sampleId}\u0000${p.questionIndex}`;
    const first = seen.get(key);
    if (first !== undefined) {
      problems.push(
        `predictions: ${formatPath([i])}: ${p.sampleId} question ${p.questionIndex} is already predicted at [${first}]`,
      );
      return;
    }
    seen.set(key, i);
    out.push(p);
  });
  if (problems.length > 0) {
    const shown = problems.slice(0, MAX_REPORTED);
    const more =
      problems.length > shown.length ? `\n(and ${problems.length - shown.length} more)` : '';
    throw new WorkbenchError(
      'INVALID_INPUT',
      `${problems.length} bad prediction${problems.length === 1 ? '' : 's'}:\n${shown.join('\n')}${more}`,
      { where: 'predictions' },
    );
  }
  return out;
}

export interface ScoredItem {
  sampleId: string;
  questionIndex: number;
  category: CategoryId;
  /** Every metric that needs no retrieval; `judge` once a judge ran. */
  scores: Scores;
  /** Present when a judge ran: null for questions it does not judge (category 5). */
  judge?: JudgeScore | null;
}

/** A scored prediction with the question and gold it was scored against (what a judge reads). */
export type ScoredPrediction = ScoredItem & {
  question: string;
  gold: string | null;
  prediction: string;
};

/** What `score` reports: metrics computed from the answer alone, and the judge's when it ran. */
export function scoredMetrics(judged: boolean): MetricDefinition[] {
  return metricList().filter((m) => m.source === 'answer' || (judged && m.source === 'judge'));
}

/** The scores of each prediction, in the order given; the same formulas the pipeline uses. */
export function scorePredictions(
  samples: readonly Sample[],
  predictions: readonly Prediction[],
  profile: BenchmarkProfile,
): ScoredPrediction[] {
  const bySample = new Map(
    samples.map((s) => [s.sampleId, new Map(s.qa.map((q) => [q.index, q]))]),
  );
  const kept = new Set(scoredMetrics(false).map((m) => m.id));
  return predictions.map((p) => {
    const qa = bySample.get(p.sampleId)?.get(p.questionIndex);
    if (!qa) throw new Error(`predictions: ${p.sampleId} question ${p.questionIndex} vanished`);
    const all = answerScores(
      { prediction: p.prediction, gold: qa.answer, category: qa.category },
      profile,
    );
    return {
      sampleId: p.sampleId,
      questionIndex: p.questionIndex,
      category: qa.category,
      scores: Object.fromEntries(Object.entries(all).filter(([id]) => kept.has(id))),
      question: qa.question,
      gold: qa.answer,
      prediction: p.prediction,
    };
  });
}

/** n and each reported metric's mean, by metric id. */
export type ScoreGroup = { n: number } & Record<string, MetricMean | number>;

function group(pair: ScorePair, n: number, judged: boolean): ScoreGroup {
  const out: ScoreGroup = { n };
  for (const m of scoredMetrics(judged)) if (pair[m.id]) out[m.id] = pair[m.id]!;
  return out;
}

/** Per category and both overall conventions (all categories; the non-adversarial ones). */
export function summarizeScores(
  items: readonly ScoredItem[],
  judged: boolean,
  profile: BenchmarkProfile,
): {
  byCategory: Record<CategoryId, ScoreGroup>;
  overall: { all: ScoreGroup; answerable?: ScoreGroup };
} {
  const answers = items.map((i) => ({
    category: i.category,
    scores: i.scores,
    judge: i.judge ?? null,
    error: null,
  }));
  const summary = summarizeAnswers(answers, profile);
  const adversarial = new Set(profile.categories.filter((c) => c.adversarial).map((c) => c.id));
  const byCategory: Record<CategoryId, ScoreGroup> = {};
  for (const c of profile.categories) {
    const n = items.filter((i) => i.category === c.id).length;
    byCategory[c.id] = group(summary.byCategory[c.id]!, n, judged);
  }
  return {
    byCategory,
    overall: {
      all: group(summary.overall.all, items.length, judged),
      // The headline subset, as the run summary has it (none for a profile without one).
      ...(summary.overall.answerable
        ? {
            answerable: group(
              summary.overall.answerable,
              items.filter((i) => !adversarial.has(i.category)).length,
              judged,
            ),
          }
        : {}),
    },
  };
}
