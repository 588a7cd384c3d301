import { describe, expect, it } from 'vitest';
import { LONGMEMEVAL_PROFILE } from '../../../src-shared/benchmarks';
import { isAdversarialRequest } from './types';

describe('isAdversarialRequest', () => {
  const abstention = LONGMEMEVAL_PROFILE.categories.find((c) => c.adversarial)!;
  const answerable = LONGMEMEVAL_PROFILE.categories.find((c) => !c.adversarial)!;

  it("reads the request's own benchmark when the request carries no flag", () => {
    expect(isAdversarialRequest({ category: abstention.id, benchmark: 'longmemeval' })).toBe(true);
    expect(isAdversarialRequest({ category: answerable.id, benchmark: 'longmemeval' })).toBe(false);
  });

  it("keeps the flag the request carries, and reads LoCoMo's 5 by its profile", () => {
    expect(
      isAdversarialRequest({
        category: abstention.id,
        benchmark: 'longmemeval',
        adversarial: false,
      }),
    ).toBe(false);
    expect(isAdversarialRequest({ category: 5, benchmark: 'locomo' })).toBe(true);
  });
});
