import { sessionRecallAll } from '../scoring/longmemeval';
import type { MetricDefinition } from './types';

export const lmeSessionRecallMetric: MetricDefinition = {
  id: 'lmeSessionRecall',
  label: 'session recall_all@k (LongMemEval)',
  title: 'Session-level recall_all@k (LongMemEval)',
  short: 'R sess',
  formula:
    'LongMemEval src/retrieval/eval_utils.py evaluate_retrieval_turn2session: 1 if every session ' +
    'holding a has_answer turn is among the sessions of the top-k retrieved turns, else 0',
  range: [0, 1],
  better: 'higher',
  source: 'retrieval',
  categories: 'declared',
  score: ({ evidence, retrieved }) => sessionRecallAll(evidence, retrieved),
  showN: true,
  hideWhenEmpty: true,
};
