import { setF1 } from '../scoring/mem0';
import type { MetricDefinition } from './types';

export const setF1Metric: MetricDefinition = {
  id: 'setF1',
  label: 'set F1',
  title: 'Set F1',
  short: 'Set F1',
  formula: 'Mem0 evaluation/metrics/utils.py: F1 over the sets of simple_tokenize tokens',
  range: [0, 1],
  better: 'higher',
  source: 'answer',
  categories: 'answerable',
  score: ({ prediction, gold, errored }) => (errored ? 0 : setF1(prediction, gold ?? '')),
};
