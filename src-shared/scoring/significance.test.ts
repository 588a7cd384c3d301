import { describe, expect, it } from 'vitest';
import {
  clusterBootstrapCI,
  discordantPairs,
  mcnemarExact,
  minimumDetectableEffect,
  normalCdf,
  normalQuantile,
  normalTestPower,
} from './significance';
import { pairedBootstrapCI } from './stats';
import significanceGolden from '../../tests/fixtures/golden/significance.json';

/** Written by scripts/golden/generate-stats.py from SciPy 1.10 and statsmodels 0.13 (Debian). */
interface Golden {
  normalCdf: Array<{ x: number; cdf: number }>;
  normalQuantile: Array<{ p: number; ppf: number }>;
  mcnemar: Array<{ baselineOnly: number; candidateOnly: number; pValue: number }>;
  power: Array<{ d: number; n: number; alpha: number; ratio: number; power: number }>;
  mde: Array<{ n: number; alpha: number; power: number; ratio: number; d: number }>;
  clusterBootstrap: {
    baseline: Array<number | null>;
    candidate: Array<number | null>;
    clusters: string[];
    cases: Array<{
      seed: number;
      resamples: number;
      confidence: number;
      result: { meanDiff: number; low: number; high: number; n: number; clusters: number };
    }>;
  };
}

const golden: Golden = significanceGolden;

/** |a - b| within a relative tolerance, with an absolute floor for values that underflow. */
function close(actual: number, expected: number, relative: number, absolute = 1e-300): boolean {
  return Math.abs(actual - expected) <= Math.max(absolute, relative * Math.abs(expected));
}

describe('normal distribution (against scipy.stats.norm)', () => {
  it.each(golden.normalCdf)('cdf($x)', ({ x, cdf }) => {
    expect(close(normalCdf(x), cdf, 1e-13)).toBe(true);
  });
  it.each(golden.normalQuantile)('ppf($p)', ({ p, ppf }) => {
    expect(close(normalQuantile(p), ppf, 1e-13)).toBe(true);
  });
  it('refuses a probability outside [0, 1], naming it', () => {
    expect(() => normalQuantile(1.5)).toThrow('normalQuantile: p must be in [0, 1], got 1.5');
  });
});

describe('McNemar exact (against statsmodels mcnemar(exact=True))', () => {
  it.each(golden.mcnemar)('b=$baselineOnly c=$candidateOnly', (item) => {
    const result = mcnemarExact(item.baselineOnly, item.candidateOnly);
    expect(close(result.pValue, item.pValue, 1e-10)).toBe(true);
  });
  it('counts discordant pairs at a threshold and leaves missing pairs out', () => {
    // correct = score >= 0.5: q0 both right, q1 baseline only, q2 candidate only, q3 missing.
    expect(discordantPairs([1, 0.6, 0.2, null], [0.9, 0.1, 0.5, 1], 0.5)).toEqual({
      baselineOnly: 1,
      candidateOnly: 1,
      n: 3,
    });
  });
  it('refuses negative or fractional counts', () => {
    expect(() => mcnemarExact(-1, 2)).toThrow(
      'mcnemarExact: baselineOnly must be a non-negative integer, got -1',
    );
  });
});

describe('power and minimum detectable effect (against statsmodels NormalIndPower)', () => {
  it.each(golden.power)('power(d=$d, n=$n, alpha=$alpha, ratio=$ratio)', (item) => {
    expect(close(normalTestPower(item.d, item.n, item.alpha, item.ratio), item.power, 1e-12)).toBe(
      true,
    );
  });
  it.each(golden.mde)('mde(n=$n, alpha=$alpha, power=$power, ratio=$ratio)', (item) => {
    const d = minimumDetectableEffect(item.n, {
      alpha: item.alpha,
      power: item.power,
      ratio: item.ratio,
    });
    // statsmodels' solver stops early (the power at its answer is off the target by up to 3e-5);
    // ours bisects to machine precision, so it agrees to that tolerance and hits the power exactly.
    expect(close(d, item.d, 1e-4)).toBe(true);
    expect(normalTestPower(d, item.n, item.alpha, item.ratio)).toBeCloseTo(item.power, 12);
  });
  it('shrinks like 1/sqrt(n): four times the questions halve the detectable effect', () => {
    const ratio = minimumDetectableEffect(400) / minimumDetectableEffect(1600);
    expect(ratio).toBeCloseTo(2, 6);
  });
});

describe('cluster bootstrap', () => {
  const { baseline, candidate, clusters, cases } = golden.clusterBootstrap;
  it.each(cases)('matches the NumPy resampling (seed $seed)', (item) => {
    const result = clusterBootstrapCI(baseline, candidate, clusters, item);
    expect(result.n).toBe(item.result.n);
    expect(result.clusters).toBe(item.result.clusters);
    expect(close(result.meanDiff, item.result.meanDiff, 1e-12)).toBe(true);
    expect(close(result.low, item.result.low, 1e-12)).toBe(true);
    expect(close(result.high, item.result.high, 1e-12)).toBe(true);
  });

  it('is wider than the question bootstrap when whole conversations move together', () => {
    // Ten conversations of 30 questions; the candidate is better on five and worse on five,
    // by conversation. Question-level resampling treats 300 independent draws; the truth is 10.
    const base: number[] = [];
    const cand: number[] = [];
    const conv: string[] = [];
    for (let c = 0; c < 10; c++) {
      for (let q = 0; q < 30; q++) {
        base.push(0.5);
        cand.push(c % 2 === 0 ? 0.8 : 0.2 + 0.01 * c);
        conv.push(`conv-${c}`);
      }
    }
    const cluster = clusterBootstrapCI(base, cand, conv, { seed: 1 });
    const question = pairedBootstrapCI(base, cand, { seed: 1 });
    expect(cluster.meanDiff).toBeCloseTo(question.meanDiff, 12);
    expect(cluster.high - cluster.low).toBeGreaterThan(3 * (question.high - question.low));
  });

  it('refuses clusters that do not line up with the questions', () => {
    expect(() => clusterBootstrapCI([1, 0], [0, 1], ['a'])).toThrow(
      'clusterBootstrapCI: one cluster per question is needed, got 1 for 2 questions',
    );
  });
});
