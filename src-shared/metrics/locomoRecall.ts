import { locomoEvidenceRecall } from '../scoring/retrieval';
import type { MetricDefinition } from './types';

export const locomoRecallMetric: MetricDefinition = {
  id: 'locomoRecall',
  label: 'evidence recall (LoCoMo)',
  title: 'Evidence recall (LoCoMo convention)',
  short: 'Recall L',
  formula:
    'LoCoMo task_eval/evaluation.py eval_question_answering: raw evidence ids found in the retrieved ' +
    'context / evidence count; no evidence counts 1; session-level for summary contexts (S…)',
  range: [0, 1],
  better: 'higher',
  source: 'retrieval',
  categories: 'all',
  // Needs the dataset's evidence as written; answers scored without it (older callers) get none.
  score: ({ evidenceRaw, context, retrieved }) =>
    evidenceRaw === undefined ? null : locomoEvidenceRecall(evidenceRaw, context ?? retrieved),
  showN: true,
  // Runs scored before the metric existed have no value until `cli rescore`.
  hideWhenEmpty: true,
};
