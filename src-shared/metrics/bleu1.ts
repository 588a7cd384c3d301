import { bleu1 } from '../scoring/mem0';
import type { MetricDefinition } from './types';

export const bleu1Metric: MetricDefinition = {
  id: 'bleu1',
  label: 'BLEU-1',
  title: 'BLEU-1',
  short: 'BLEU-1',
  formula:
    'NLTK sentence_bleu, weights (1,0,0,0), smoothing method1, on nltk.word_tokenize(text.lower()) tokens (NLTK 3.8 rules, Punkt sentences), as Mem0 reports it',
  range: [0, 1],
  better: 'higher',
  source: 'answer',
  categories: 'answerable',
  score: ({ prediction, gold, errored }) => (errored ? 0 : bleu1(prediction, gold ?? '')),
};
