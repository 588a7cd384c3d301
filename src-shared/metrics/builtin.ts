import { bleu1Metric } from './bleu1';
import { bleu1SimpleMetric } from './bleu1Simple';
import { evidenceRecallMetric } from './evidenceRecall';
import { judgeMetric } from './judge';
import {
  lmeSessionNdcgMetric,
  lmeSessionRecallAnyMetric,
  lmeSessionRecallMetric,
  lmeTurnNdcgMetric,
  lmeTurnRecallAnyMetric,
  lmeTurnRecallMetric,
} from './lmeRetrieval';
import { locomoRecallMetric } from './locomoRecall';
import { officialF1Metric } from './officialF1';
import { rubricCoverageLexicalMetric } from './rubricCoverageLexical';
import { setF1Metric } from './setF1';
import type { MetricDefinition } from './types';

/** The built-in metrics, in table and export order. A new metric: its file and one line here. */
export const BUILTIN_METRICS: readonly MetricDefinition[] = [
  officialF1Metric,
  evidenceRecallMetric,
  locomoRecallMetric,
  setF1Metric,
  bleu1Metric,
  judgeMetric,
  bleu1SimpleMetric,
  lmeTurnRecallMetric,
  lmeSessionRecallMetric,
  lmeTurnRecallAnyMetric,
  lmeSessionRecallAnyMetric,
  lmeTurnNdcgMetric,
  lmeSessionNdcgMetric,
  rubricCoverageLexicalMetric,
];
