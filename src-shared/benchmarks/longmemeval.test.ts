import { describe, expect, it } from 'vitest';
import { answerableOf, summarizeAnswers } from '../experiment';
import { metricsOf } from '../metrics';
import { LOCOMO_PROFILE, LONGMEMEVAL_PROFILE, categoryLabel } from './index';

const judged = (category: number, label: 0 | 1) => ({
  category,
  error: null,
  scores: { judge: label },
  judge: { labels: [label] },
});

describe('LongMemEval profile', () => {
  it('reports task-averaged accuracy beside overall accuracy, abstention counted in its type', () => {
    // single-session-user: 3 of 3; multi-session: 0 of 1, plus its abstention question right.
    const summary = summarizeAnswers(
      [judged(1, 1), judged(1, 1), judged(1, 1), judged(4, 0), judged(10, 1)],
      LONGMEMEVAL_PROFILE,
    );
    // print_qa_metrics.py: Overall = 4/5; Task-averaged = mean(1, 1/2).
    expect(summary.overall.all.judge.mean).toBeCloseTo(0.8, 12);
    expect(summary.overall.taskAveraged?.judge.mean).toBeCloseTo(0.75, 12);
    expect(summary.overall.taskAveraged?.judge.n).toBe(5);
    expect(summary.byCategory[10]?.judge.mean).toBe(1);
  });

  it('names its overalls its own way and reports abstention accuracy apart', () => {
    // Answerable: 2 of 3 right; abstention (categories 7-12): 1 of 2 right.
    const summary = summarizeAnswers(
      [judged(1, 1), judged(6, 1), judged(2, 0), judged(10, 1), judged(12, 0)],
      LONGMEMEVAL_PROFILE,
    );
    expect(Object.keys(summary.overall).sort()).toEqual([
      'abstention',
      'all',
      'answerable',
      'taskAveraged',
    ]);
    expect(summary.overall.answerable?.judge).toMatchObject({ mean: 2 / 3, n: 3 });
    // print_qa_metrics.py: "Abstention Accuracy" over the `_abs` questions alone.
    expect(summary.overall.abstention?.judge).toMatchObject({ mean: 0.5, n: 2 });
    expect(answerableOf(summary)).toBe(summary.overall.answerable);
  });

  it('keeps LoCoMo summaries as they were: no task average, no LongMemEval metrics', () => {
    const summary = summarizeAnswers([judged(1, 1)], LOCOMO_PROFILE);
    expect(summary.overall.taskAveraged).toBeUndefined();
    // The key LoCoMo summaries have always had (and old runs' readers expect), no abstention.
    expect(Object.keys(summary.overall).sort()).toEqual(['all', 'categories1to4']);
    expect(Object.keys(summary.overall.all)).not.toContain('lmeTurnRecall');
    expect(metricsOf(LOCOMO_PROFILE).map((m) => m.id)).not.toContain('lmeSessionRecall');
    expect(metricsOf(LONGMEMEVAL_PROFILE).map((m) => m.id)).toContain('lmeSessionRecall');
  });

  it('names its categories in its own scheme whatever scheme a view asks for', () => {
    expect(categoryLabel(LONGMEMEVAL_PROFILE, 10, 'mem0')).toBe('abstention (multi-session)');
    expect(categoryLabel(LONGMEMEVAL_PROFILE, 6)).toBe('temporal-reasoning');
    expect(categoryLabel(LOCOMO_PROFILE, 1, 'mem0')).toBe('single-hop');
  });
});
