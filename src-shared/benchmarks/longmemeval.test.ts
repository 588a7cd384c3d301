import { describe, expect, it } from 'vitest';
import goldenJson from '../../tests/fixtures/golden/longmemeval.json';
import { summarizeAnswers } from '../experiment';
import { metricsOf } from '../metrics';
import { paperTable } from '../paperTables';
import { LOCOMO_PROFILE, LONGMEMEVAL_PROFILE, categoryLabel } from './index';
import {
  expectPrintedQaMetrics,
  type PrintedQaMetrics,
} from '../../tests/support/longmemeval-figures';
import { isAbstentionId, longMemEvalCategory, type LongMemEvalQuestionType } from './longmemeval';

/** scripts/golden/generate-longmemeval.py: print_qa_metrics.py's own output on these labels. */
const qaMetrics = (
  goldenJson as unknown as {
    qaMetrics: PrintedQaMetrics & {
      questions: Array<{
        questionId: string;
        questionType: LongMemEvalQuestionType;
        label: boolean;
      }>;
    };
  }
).qaMetrics;

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

  it('prints every accuracy as print_qa_metrics.py does, each type counting its _abs questions', () => {
    const answers = qaMetrics.questions.map((q) =>
      judged(longMemEvalCategory(q.questionType, isAbstentionId(q.questionId)), q.label ? 1 : 0),
    );
    const summary = summarizeAnswers(answers, LONGMEMEVAL_PROFILE);
    expectPrintedQaMetrics(summary, qaMetrics);

    // The paper table: the reference's rows in its order, the same figures ×100.
    const [header, , row] = paperTable(summary, {
      format: 'longmemeval',
      as: 'md',
      label: 'run',
      profile: LONGMEMEVAL_PROFILE,
    }).split('\n');
    expect(header).toBe(
      '| method | single-session-user | single-session-preference | single-session-assistant | multi-session | temporal-reasoning | knowledge-update | task-averaged | overall | abstention |',
    );
    const printed = [
      ...Object.values(qaMetrics.byType).map((t) => t.mean),
      qaMetrics.taskAveraged,
      qaMetrics.overall,
      qaMetrics.abstention,
    ];
    const cells = row!.split('|').slice(2, -1).map(Number);
    cells.forEach((cell, i) => expect(cell).toBeCloseTo((printed[i] as number) * 100, 0));
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
  });

  it('keeps LoCoMo summaries as they were: no task average, no LongMemEval metrics', () => {
    const summary = summarizeAnswers([judged(1, 1)], LOCOMO_PROFILE);
    expect(summary.overall.taskAveraged).toBeUndefined();
    // The headline subset under the one key every benchmark's has (old runs' `categories1to4`
    // reads as it, core/runs/summaries.ts), no abstention.
    expect(Object.keys(summary.overall).sort()).toEqual(['all', 'answerable']);
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
