import { describe, expect, it } from 'vitest';
import { scoreAnswer } from '../metrics';
import { BEAM_PROFILE } from '../benchmarks/beam';
import { LOCOMO_PROFILE } from '../benchmarks/locomo';
import { lexicalRubricCoverage } from './rubricCoverage';

describe('lexical rubric coverage (not BEAM score)', () => {
  it('is the mean over items of the share of each item content words in the answer', () => {
    const rubric = [
      'LLM response should state: 8 weeks',
      'LLM response should mention: March 15, 2024',
    ];
    // Item 1: {8, weeks} both said; item 2: {march, 15, 2024}: only "march" and "2024" said.
    expect(lexicalRubricCoverage('It is 8 weeks, ending in March 2024.', rubric)).toBeCloseTo(
      (1 + 2 / 3) / 2,
      12,
    );
    // The judge-facing prefix is not content: an answer that only repeats it covers nothing.
    expect(
      lexicalRubricCoverage('LLM response should state', ['LLM response should state: 250ms']),
    ).toBe(0);
  });

  it('has no value without rubric content', () => {
    expect(lexicalRubricCoverage('anything', [])).toBeNull();
    expect(lexicalRubricCoverage('anything', ['the and of'])).toBeNull();
  });

  it('scores BEAM questions only, and an errored answer as 0', () => {
    const input = {
      prediction: 'Around 250ms',
      gold: 'Around 250ms due to caching',
      evidence: [],
      retrieved: [],
      rubric: ['LLM response should state: 250ms'],
      errored: false,
    };
    const beam = BEAM_PROFILE.categories[5]!;
    expect(scoreAnswer({ ...input, category: beam })['rubricCoverageLexical']).toBe(1);
    expect(scoreAnswer({ ...input, category: beam, errored: true })['rubricCoverageLexical']).toBe(
      0,
    );
    const locomo = LOCOMO_PROFILE.categories[0]!;
    expect(scoreAnswer({ ...input, category: locomo })['rubricCoverageLexical'] ?? null).toBeNull();
  });
});
