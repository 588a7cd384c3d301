import { officialScore } from '../scoring/official';
import type { MetricDefinition } from './types';

export const officialF1Metric: MetricDefinition = {
  id: 'officialF1',
  label: 'official F1',
  title: 'Official F1',
  short: 'F1',
  formula:
    'LoCoMo task_eval/evaluation.py: Porter-stemmed multiset token F1 after normalisation; per-category gold rules; adversarial = contains "not mentioned" / "no information available"',
  range: [0, 1],
  better: 'higher',
  source: 'answer',
  categories: 'all',
  // An errored answer scores 0, never its "[ERROR]" text against the gold.
  score: ({ prediction, gold, category, errored }) =>
    errored ? 0 : officialScore(prediction, gold, category.officialRule ?? 'plain'),
  showN: true,
};
