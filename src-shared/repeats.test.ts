import { describe, expect, it } from 'vitest';
import { LOCOMO_PROFILE } from './benchmarks';
import { summarizeAnswers, type AnswerRecord } from './experiment';
import { formatMeanStd, repeatSummary } from './repeats';

type Scored = Pick<AnswerRecord, 'category' | 'scores' | 'error'>;
const answer = (category: number, officialF1: number): Scored => ({
  category,
  scores: { officialF1 },
  error: null,
});

describe('repeatSummary', () => {
  it('takes mean and sample std (n - 1) of the runs means, per category and overall', () => {
    // Category 1 means per run: 0.2, 0.4, 0.9 -> mean 0.5, sample std sqrt(0.13) = 0.3606.
    const runs = [0.2, 0.4, 0.9].map((v) =>
      summarizeAnswers([answer(1, v), answer(2, 1)], LOCOMO_PROFILE),
    );
    const s = repeatSummary(runs);
    expect(s.runs).toBe(3);
    const c1 = s.byCategory[1]!['officialF1']!;
    expect(c1.values).toEqual([0.2, 0.4, 0.9]);
    expect(c1.mean).toBeCloseTo(0.5, 12);
    expect(c1.std).toBeCloseTo(Math.sqrt(0.13), 12);
    expect(s.byCategory[2]!['officialF1']!.std).toBe(0);
    expect(formatMeanStd(c1)).toBe('0.500 ± 0.361');
  });

  it('has no spread from one run, and counts only the runs with a value', () => {
    const one = repeatSummary([summarizeAnswers([answer(4, 0.5)], LOCOMO_PROFILE)]);
    expect(one.overall.all['officialF1']).toMatchObject({ mean: 0.5, std: null, runs: 1 });
    expect(formatMeanStd(one.overall.all['officialF1'])).toBe('0.500');
    // No run was judged: J has no mean, not a mean of zeros.
    expect(one.overall.all['judge']).toMatchObject({ mean: null, runs: 0 });
  });
});
