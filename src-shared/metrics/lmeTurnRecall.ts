import { turnRecallAll } from '../scoring/longmemeval';
import type { MetricDefinition } from './types';

export const lmeTurnRecallMetric: MetricDefinition = {
  id: 'lmeTurnRecall',
  label: 'turn recall_all@k (LongMemEval)',
  title: 'Turn-level recall_all@k (LongMemEval)',
  short: 'R turn',
  formula:
    'LongMemEval src/retrieval/eval_utils.py evaluate_retrieval: 1 if every has_answer turn is ' +
    'among the top-k retrieved turns, else 0; no evidence: none',
  range: [0, 1],
  better: 'higher',
  source: 'retrieval',
  // Only benchmarks whose profile names it (LongMemEval): LoCoMo tables stay as they were.
  categories: 'declared',
  score: ({ evidence, retrieved }) => turnRecallAll(evidence, retrieved),
  showN: true,
  hideWhenEmpty: true,
};
