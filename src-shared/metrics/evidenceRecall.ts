import { evidenceRecallAtK } from '../scoring/retrieval';
import type { MetricDefinition } from './types';

export const evidenceRecallMetric: MetricDefinition = {
  id: 'evidenceRecall',
  label: 'evidence recall',
  title: 'Evidence recall@k',
  short: 'Recall',
  formula: "share of the question's evidence turns among the retrieved turns (top-k)",
  range: [0, 1],
  better: 'higher',
  source: 'retrieval',
  categories: 'all',
  // Questions without evidence have no recall (null), not 0 or 1. What retrieval found still
  // counts when only the answerer failed.
  score: ({ evidence, retrieved }) => evidenceRecallAtK(evidence, retrieved) ?? null,
  showN: true,
};
