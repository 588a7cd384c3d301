import { describe, expect, it } from 'vitest';
import { cohenKappa } from './agreement';
import {
  judgeVsHuman,
  roganGladen,
  selfConsistency,
  wilsonInterval,
  type HumanLabel,
  type LabelledAnswer,
} from './judgeError';
import type { Verdict } from './agreement';
import agreementGolden from '../../tests/fixtures/golden/agreement.json';

/** Wilson bounds written by scripts/golden/generate-agreement.py from SciPy's binomtest. */
const wilsonGolden: Array<{
  successes: number;
  n: number;
  confidence: number;
  low: number;
  high: number;
}> = agreementGolden.wilson;

describe('Wilson interval (against scipy.stats.binomtest(...).proportion_ci(method="wilson"))', () => {
  it.each(wilsonGolden)(
    '$successes of $n at $confidence',
    ({ successes, n, confidence, low, high }) => {
      const result = wilsonInterval(successes, n, confidence);
      expect(result.estimate).toBe(successes / n);
      expect(result.low).toBeCloseTo(low, 12);
      expect(result.high).toBeCloseTo(high, 12);
    },
  );

  it('is undefined with no answers and refuses impossible counts', () => {
    expect(wilsonInterval(0, 0).estimate).toBeNaN();
    expect(() => wilsonInterval(5, 3)).toThrow(
      'wilsonInterval: successes must be in [0, n], got 5 of 3',
    );
  });
});

describe('Rogan-Gladen', () => {
  it('inverts p_obs = TAR·p + FAR·(1 − p): (0.7 − 0.2)/(0.9 − 0.2) = 5/7', () => {
    const result = roganGladen(0.7, 0.9, 0.2);
    expect(result.valid).toBe(true);
    expect(result.corrected).toBeCloseTo(5 / 7, 15);
    // The formula's premise: a judge with these rates over a true share 5/7 accepts 0.7.
    expect(0.9 * (5 / 7) + 0.2 * (2 / 7)).toBeCloseTo(0.7, 15);
  });

  it('equals (p_obs + Sp − 1)/(Se + Sp − 1) with Se = TAR and Sp = 1 − FAR', () => {
    for (const [observed, tar, far] of [
      [0.61, 0.93, 0.08],
      [0.35, 0.8, 0.3],
      [0.5, 0.99, 0.01],
    ] as const) {
      const sp = 1 - far;
      expect(roganGladen(observed, tar, far).unclipped).toBeCloseTo(
        (observed + sp - 1) / (tar + sp - 1),
        14,
      );
    }
  });

  it('clips to [0, 1] and keeps the unclipped value', () => {
    const high = roganGladen(0.95, 0.9, 0.1);
    expect(high.unclipped).toBeCloseTo(1.0625, 15);
    expect(high.corrected).toBe(1);
    expect(roganGladen(0.05, 0.9, 0.1).corrected).toBe(0);
  });

  it('is undefined when the judge does not tell right from wrong (TAR ≤ FAR)', () => {
    expect(roganGladen(0.5, 0.4, 0.4)).toEqual({
      corrected: Number.NaN,
      unclipped: Number.NaN,
      valid: false,
    });
    expect(() => roganGladen(1.2, 0.9, 0.1)).toThrow(
      'roganGladen: observed must be a rate in [0, 1], got 1.2',
    );
  });
});

/**
 * Ten conversations, each with 10 answers a person calls correct (the judge accepts 9: TAR 0.9),
 * 5 called wrong (the judge accepts 1: FAR 0.2), one `unsure` (accepted) and 20 unlabelled
 * answers of which the judge accepts 10 + c in conversation c.
 */
function labelledRun(): LabelledAnswer[] {
  const answers: LabelledAnswer[] = [];
  const add = (cluster: string, count: number, judge: Verdict, human: HumanLabel | null) => {
    for (let i = 0; i < count; i++) answers.push({ cluster, judge, human });
  };
  for (let c = 0; c < 10; c++) {
    const conv = `conv-${c}`;
    add(conv, 9, 'correct', 'correct');
    add(conv, 1, 'wrong', 'correct');
    add(conv, 1, 'correct', 'wrong');
    add(conv, 4, 'wrong', 'wrong');
    add(conv, 1, 'correct', 'unsure');
    add(conv, 10 + c, 'correct', null);
    add(conv, 10 - c, 'wrong', null);
  }
  answers.push({ cluster: 'conv-0', judge: null, human: 'correct' });
  return answers;
}

describe('judge against human labels', () => {
  const answers = labelledRun();
  const result = judgeVsHuman(answers, { seed: 2, resamples: 300 });

  it('leaves out unsure/skip labels and answers the judge did not judge', () => {
    expect(result.labelled).toBe(150);
    expect(result.excludedUnsureOrSkip).toBe(10);
  });

  it('gives accuracy, κ and the acceptance rates with Wilson intervals', () => {
    expect(result.accuracy.estimate).toBeCloseTo(130 / 150, 15);
    const pairs = answers
      .filter((a) => a.judge !== null && (a.human === 'correct' || a.human === 'wrong'))
      .map((a) => [a.judge, a.human as string]);
    expect(result.kappa.estimate).toBe(cohenKappa(pairs, 0, 1));
    expect(result.trueAcceptance).toEqual(wilsonInterval(90, 100));
    expect(result.falseAcceptance).toEqual(wilsonInterval(10, 50));
  });

  it('corrects the observed headline by Rogan-Gladen, with a clustered interval', () => {
    const observed = 255 / 360;
    expect(result.observed.estimate).toBeCloseTo(observed, 15);
    expect(result.corrected.valid).toBe(true);
    expect(result.corrected.estimate).toBeCloseTo((observed - 0.2) / (0.9 - 0.2), 14);
    expect(result.corrected.low).toBeLessThan(result.corrected.estimate);
    expect(result.corrected.high).toBeGreaterThan(result.corrected.estimate);
    expect(result.corrected.clusters).toBe(10);
    expect(judgeVsHuman(answers, { seed: 2, resamples: 300 })).toEqual(result);
  });

  it('says the correction is invalid when no human-wrong answer was labelled', () => {
    const noWrong = answers.filter((a) => a.human !== 'wrong');
    const invalid = judgeVsHuman(noWrong, { seed: 2, resamples: 50 });
    expect(invalid.falseAcceptance.n).toBe(0);
    expect(invalid.corrected.valid).toBe(false);
    expect(invalid.corrected.undefinedResamples).toBe(50);
  });
});

describe('self-consistency of one judge repeated', () => {
  it('majority vote, unanimity, pair agreement and the spread of per-repeat accuracy', () => {
    const verdicts: (Verdict | null)[][] = [
      ['correct', 'correct', 'correct'],
      ['correct', 'wrong', 'correct'],
      ['wrong', 'wrong', 'wrong'],
      ['correct', 'wrong', null],
    ];
    const result = selfConsistency(verdicts, ['a', 'a', 'b', 'b'], { seed: 1, resamples: 100 });
    expect(result.repeats).toBe(3);
    expect(result.majority).toEqual(['correct', 'correct', 'wrong', null]);
    expect(result.unanimity.estimate).toBe(0.5);
    expect(result.agreement.estimate).toBeCloseTo((1 + 1 / 3 + 1 + 0) / 4, 15);
    expect(result.perRepeatAccuracy).toEqual([0.75, 0.25, 2 / 3]);
    expect(result.spread.mean).toBeCloseTo((0.75 + 0.25 + 2 / 3) / 3, 15);
    expect(result.spread.min).toBe(0.25);
    expect(result.spread.max).toBe(0.75);
    expect(result.majorityAccuracy).toBeCloseTo(2 / 3, 15);
  });
});
