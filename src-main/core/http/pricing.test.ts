import { describe, expect, it } from 'vitest';
import { costOf } from './pricing';

describe('costOf', () => {
  it('prices tokens per million', () => {
    expect(costOf({ promptTokens: 1_000_000, completionTokens: 500_000 }, undefined)).toBeNull();
    expect(
      costOf(
        { promptTokens: 2_000, completionTokens: 1_000 },
        { inputPerMillion: 0.15, outputPerMillion: 0.6 },
      ),
    ).toBeCloseTo(0.0009, 12);
  });
});
