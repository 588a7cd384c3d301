import type { MetricDefinition } from '../../../src-shared/metrics';

/**
 * A throwaway metric that exists only for tests: the whole of what adding a metric takes is this
 * one definition (registered with `registerMetric`, or listed in src-shared/metrics/builtin.ts).
 */
export const exactMatchMetric: MetricDefinition = {
  id: 'exactMatch',
  label: 'exact match',
  title: 'Exact match',
  short: 'EM',
  formula: '1 when the trimmed, lowercased prediction equals the gold, else 0',
  range: [0, 1],
  better: 'higher',
  source: 'answer',
  categories: 'answerable',
  score: ({ prediction, gold, errored }) =>
    errored ? 0 : prediction.trim().toLowerCase() === (gold ?? '').trim().toLowerCase() ? 1 : 0,
  showN: true,
};
