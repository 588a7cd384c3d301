import { describe, expect, it } from 'vitest';
import { LOCOMO_PROFILE } from '../benchmarks';
import {
  mean,
  mulberry32,
  overallMeans,
  pairedBootstrapCI,
  quantileSorted,
  stdDev,
  type ScoredQuestion,
} from './stats';

describe('mean and stdDev', () => {
  it('mean is NaN for no values', () => {
    expect(mean([])).toBeNaN();
    expect(mean([1, 2, 3, 4])).toBe(2.5);
  });

  it('sample and population standard deviation', () => {
    // Deviations from 5: -3,-1,-1,-1,0,0,2,4 -> squares sum 32; population sqrt(32/8) = 2.
    const values = [2, 4, 4, 4, 5, 5, 7, 9];
    expect(stdDev(values, 0)).toBe(2);
    expect(stdDev(values)).toBeCloseTo(Math.sqrt(32 / 7), 15);
    expect(stdDev([0.7])).toBe(0);
  });
});

describe('overall means', () => {
  const items: ScoredQuestion[] = [
    { category: 1, score: 1 },
    { category: 1, score: 0 },
    { category: 4, score: 0.5 },
    { category: 5, score: 1 },
  ];

  it('reports both overall conventions over questions, not over category means', () => {
    // All: (1 + 0 + 0.5 + 1) / 4 = 0.625; categories 1-4: (1 + 0 + 0.5) / 3 = 0.5.
    expect(overallMeans(items, LOCOMO_PROFILE)).toEqual({
      all: { mean: 0.625, n: 4 },
      answerable: { mean: 0.5, n: 3 },
    });
  });
});

describe('mulberry32', () => {
  it('is deterministic per seed and stays in [0, 1)', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const c = mulberry32(43);
    const seqA = Array.from({ length: 1000 }, a);
    expect(Array.from({ length: 1000 }, b)).toEqual(seqA);
    expect(Array.from({ length: 1000 }, c)).not.toEqual(seqA);
    expect(seqA.every((x) => x >= 0 && x < 1)).toBe(true);
  });

  it('keeps its reference sequence (changing it would change every stored CI)', () => {
    // Reference mulberry32 values for seed 1 (state += 0x6D2B79F5 variant).
    const rng = mulberry32(1);
    expect([rng(), rng(), rng()]).toEqual([
      0.6270739405881613, 0.002735721180215478, 0.5274470399599522,
    ]);
  });
});

describe('quantileSorted', () => {
  it('interpolates linearly like NumPy', () => {
    expect(quantileSorted([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantileSorted([1, 2, 3, 4], 0.025)).toBeCloseTo(1.075, 15);
    expect(quantileSorted([7], 0.9)).toBe(7);
  });
});

describe('pairedBootstrapCI', () => {
  it('gives a zero-width interval at 0 for identical runs', () => {
    const scores = [0, 1, 0.5, 0.25, 1];
    expect(pairedBootstrapCI(scores, scores)).toEqual({ meanDiff: 0, low: 0, high: 0, n: 5 });
  });

  it('gives a zero-width interval at the shift when every question moves by the same amount', () => {
    const base = [0, 0.25, 0.5];
    const result = pairedBootstrapCI(
      base,
      base.map((x) => x + 0.5),
    );
    expect(result).toEqual({ meanDiff: 0.5, low: 0.5, high: 0.5, n: 3 });
  });

  it('drops questions missing from either run and reports n', () => {
    const result = pairedBootstrapCI([1, null, 0, 1], [1, 1, null, 0], { resamples: 50 });
    // Pairs left: (1,1) and (1,0): diffs 0 and -1.
    expect(result.n).toBe(2);
    expect(result.meanDiff).toBe(-0.5);
    expect(result.low).toBeGreaterThanOrEqual(-1);
    expect(result.high).toBeLessThanOrEqual(0);
  });

  it('is reproducible for a seed and brackets the observed difference', () => {
    const rng = mulberry32(7);
    const base = Array.from({ length: 300 }, () => (rng() < 0.5 ? 1 : 0));
    const cand = base.map((x) => (rng() < 0.2 ? 1 - x : x));
    const first = pairedBootstrapCI(base, cand, { seed: 3 });
    expect(pairedBootstrapCI(base, cand, { seed: 3 })).toEqual(first);
    expect(first.low).toBeLessThanOrEqual(first.meanDiff);
    expect(first.high).toBeGreaterThanOrEqual(first.meanDiff);
    expect(first.high - first.low).toBeGreaterThan(0);
  });

  it('returns NaN with no pairs and rejects misaligned or bad input', () => {
    expect(pairedBootstrapCI([null], [1])).toEqual({ meanDiff: NaN, low: NaN, high: NaN, n: 0 });
    expect(() => pairedBootstrapCI([1, 2], [1])).toThrow(
      'pairedBootstrapCI: runs must be aligned by question, got 2 and 1 scores',
    );
    expect(() => pairedBootstrapCI([NaN], [1])).toThrow(/not a finite number/);
    expect(() => pairedBootstrapCI([1], [1], { resamples: 0 })).toThrow(/resamples/);
  });
});
