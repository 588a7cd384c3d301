import { expect } from 'vitest';
import {
  LONGMEMEVAL_QUESTION_TYPES,
  longMemEvalCategory,
} from '../../src-shared/benchmarks/longmemeval';
import type { RunSummary } from '../../src-shared/experiment';

/** What `print_qa_metrics.py` printed (tests/fixtures/golden/longmemeval.json), parsed. */
export interface PrintedQaMetrics {
  byType: Record<string, { mean: number; n: number }>;
  taskAveraged: number;
  overall: number;
  abstention: number;
}

/** Rounded as the reference prints: `round(x, 4)`. */
const round4 = (x: number | null | undefined): number => Math.round((x ?? NaN) * 1e4) / 1e4;

/** A summary's judge figures equal print_qa_metrics.py's: per type (its `_abs` in it) and overall. */
export function expectPrintedQaMetrics(summary: RunSummary, printed: PrintedQaMetrics): void {
  for (const type of LONGMEMEVAL_QUESTION_TYPES) {
    const task = summary.byTask?.[longMemEvalCategory(type, false)]?.judge;
    expect({ mean: round4(task?.mean), n: task?.n }, type).toEqual(printed.byType[type]);
  }
  expect(round4(summary.overall.taskAveraged?.judge.mean)).toBe(printed.taskAveraged);
  expect(round4(summary.overall.all.judge.mean)).toBe(printed.overall);
  expect(round4(summary.overall.abstention?.judge.mean)).toBe(printed.abstention);
}
