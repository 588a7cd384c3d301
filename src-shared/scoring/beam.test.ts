import { describe, expect, it } from 'vitest';
import { beamReportRow, eventOrderingScore, pyFloat, pyInt, rubricMean } from './beam';

describe('BEAM scoring quirks the reference has', () => {
  it('tau_norm rewards order over coverage, and is NaN for a one-item rubric answered right', () => {
    const rubric = ['A', 'B', 'C', 'D', 'E'];
    expect(eventOrderingScore(rubric, ['A']).tau_norm).toBeCloseTo(0.816227766016838, 15);
    expect(eventOrderingScore(rubric, ['A']).recall).toBe(0.2);
    expect(eventOrderingScore(rubric, ['x']).tau_norm).toBeCloseTo(0.21132486540518713, 15);
    expect(eventOrderingScore(['A'], ['A']).tau_norm).toBeNaN();
    expect(eventOrderingScore(['A'], ['x']).tau_norm).toBe(0);
  });

  it('a NaN question makes its ability NaN for the chat and over chats; other abilities unaffected', () => {
    const chat = (
      tau: number,
    ): ReadonlyMap<string, { llm_judge_score: number; tau_norm?: number }[]> =>
      new Map([
        ['event_ordering', [{ llm_judge_score: 1, tau_norm: tau }]],
        ['summarization', [{ llm_judge_score: 0.5 }, { llm_judge_score: 1 }]],
      ]);
    const row = beamReportRow(['event_ordering', 'summarization'], [chat(NaN), chat(1)]);
    expect(row[0]).toBeNaN();
    expect(row[1]).toBe(0.75);
  });

  it("int() and float() as Python's on JSON scores", () => {
    expect([1.0, 0.5, -0.5, true, '1', ' 2 ', '1_0'].map(pyInt)).toEqual([1, 0, 0, 1, 1, 2, 10]);
    expect(['0.5', '1.0', null, NaN, {}].map(pyInt)).toEqual([null, null, null, null, null]);
    expect(['0.5', ' 1 ', '.5', '1.', true, 0.5].map(pyFloat)).toEqual([0.5, 1, 0.5, 1, 1, 0.5]);
    expect([null, 'half', []].map(pyFloat)).toEqual([null, null, null]);
    expect(rubricMean([1, 0.5, 0.5], false)).toBe(1 / 3);
    expect(rubricMean([1, 0.5, 0.5], true)).toBe(2 / 3);
    expect(rubricMean([1, '0.5'], false)).toBeNull();
  });
});
