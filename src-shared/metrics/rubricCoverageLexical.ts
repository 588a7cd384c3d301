import { lexicalRubricCoverage } from '../scoring/rubricCoverage';
import type { MetricDefinition } from './types';

/** BEAM's offline signal; its names say it is not the rubric judge's score. */
export const rubricCoverageLexicalMetric: MetricDefinition = {
  id: 'rubricCoverageLexical',
  label: 'lexical rubric coverage (not the official BEAM score)',
  title: 'Rubric coverage, lexical (not the official BEAM score)',
  short: 'Rubric lex',
  formula:
    "mean over the question's rubric items of the share of each item's content words found in the answer (a word match, not BEAM's LLM rubric judge)",
  range: [0, 1],
  better: 'higher',
  source: 'answer',
  // Only a benchmark whose questions carry a rubric lists it (BEAM).
  categories: 'declared',
  score: ({ prediction, rubric, errored }) =>
    rubric === undefined ? null : errored ? 0 : lexicalRubricCoverage(prediction, rubric),
};
