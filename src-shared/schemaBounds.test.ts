import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ExperimentConfigSchema, MAX_CONCURRENCY } from './experiment/config';
import { numberBoundsAt } from './schemaBounds';

describe('numberBoundsAt', () => {
  it('reads a field through the prefaults and defaults a config schema wraps it in', () => {
    // The bound moves with the schema: nothing else states it.
    const schema = z
      .object({
        retrieval: z
          .object({ topK: z.number().int().min(2).max(7).default(3) })
          .strict()
          .prefault({}),
      })
      .strict();
    expect(numberBoundsAt(schema, ['retrieval', 'topK'])).toEqual({ min: 2, max: 7, int: true });
    expect(numberBoundsAt(ExperimentConfigSchema, ['retrieval', 'topK'])).toEqual({
      min: 1,
      max: 1000,
      int: true,
    });
    expect(numberBoundsAt(ExperimentConfigSchema, ['concurrency']).max).toBe(MAX_CONCURRENCY);
  });

  it('steps a whole number past an exclusive bound, as the schema would refuse it', () => {
    const schema = z.object({ n: z.number().int().positive().lt(10).optional() });
    expect(numberBoundsAt(schema, ['n'])).toEqual({ min: 1, max: 9, int: true });
    // Not whole: the bound is the schema's own.
    expect(numberBoundsAt(z.object({ x: z.number().min(0).max(2) }), ['x'])).toEqual({
      min: 0,
      max: 2,
      int: false,
    });
  });

  it('refuses a path the schema does not have, or one that is not a number', () => {
    expect(() => numberBoundsAt(ExperimentConfigSchema, ['retrieval', 'topk'])).toThrow(
      'numberBoundsAt: no field retrieval.topk in the schema',
    );
    expect(() => numberBoundsAt(ExperimentConfigSchema, ['datasetPath'])).toThrow(
      'numberBoundsAt: datasetPath is not a number',
    );
  });
});
