import { stdDev } from '../scoring/stats';
import type { AggregateInput, MetricDefinition, MetricMean } from './types';

/**
 * J as Mem0 reports it: the mean over judged answers, and the spread of the accuracy across
 * repeats (accuracy of repeat r over the answers that have an r-th label).
 */
function judgeMean(answers: readonly AggregateInput[]): MetricMean {
  const judged = answers.filter((a) => a.scores['judge'] != null);
  let sum = 0;
  let repeats = 0;
  for (const a of judged) {
    sum += a.scores['judge'] as number;
    repeats = Math.max(repeats, a.judge?.labels.length ?? 0);
  }
  const perRepeat: number[] = [];
  for (let r = 0; r < repeats; r++) {
    let n = 0;
    let correct = 0;
    for (const a of judged) {
      const label = a.judge?.labels[r];
      if (label === undefined) continue;
      n++;
      correct += label;
    }
    if (n > 0) perRepeat.push(correct / n);
  }
  return {
    mean: judged.length === 0 ? null : sum / judged.length,
    n: judged.length,
    std: perRepeat.length === 0 ? null : stdDev(perRepeat),
    repeats,
  };
}

export const judgeMetric: MetricDefinition = {
  id: 'judge',
  label: 'J',
  title: 'Judge J',
  short: 'J',
  formula:
    'LLM judge with Mem0 ACCURACY_PROMPT: share of repeats labelled CORRECT; J ± std over repeats',
  range: [0, 1],
  better: 'higher',
  source: 'judge',
  categories: 'answerable',
  aggregate: judgeMean,
  exportKey: 'judgeMean',
  showN: true,
  hideWhenEmpty: true,
};
