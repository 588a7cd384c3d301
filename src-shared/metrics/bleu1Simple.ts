import { bleu1Simple } from '../scoring/mem0';
import type { MetricDefinition } from './types';

/**
 * BLEU-1 on Mem0's `simple_tokenize` tokens instead of `nltk.word_tokenize`: what this workbench
 * reported as BLEU-1 before it ported word_tokenize. It runs 0.04-0.07 above Mem0's own BLEU-1 on
 * real answers, so it is kept only to compare with those earlier runs.
 */
export const bleu1SimpleMetric: MetricDefinition = {
  id: 'bleu1Simple',
  label: 'BLEU-1 (simple_tokenize)',
  title: 'BLEU-1 (simple_tokenize variant)',
  short: 'B1 simple',
  formula:
    'NLTK sentence_bleu, weights (1,0,0,0), smoothing method1, on Mem0 simple_tokenize tokens (a variant; not what Mem0 reports)',
  range: [0, 1],
  better: 'higher',
  source: 'answer',
  categories: 'answerable',
  score: ({ prediction, gold, errored }) => (errored ? 0 : bleu1Simple(prediction, gold ?? '')),
};
