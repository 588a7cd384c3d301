import { describe, expect, it } from 'vitest';
import { compareJudges, type RunJudgesInput } from './compareJudges';
import { compareTable } from './compareTable';
import { LOCOMO_PROFILE } from './benchmarks';
import type { JudgeIdentity } from './judges';
import { compareRuns } from './compare';
import type { AnswerRecord } from './experiment';

const judgeA: JudgeIdentity = {
  protocol: 'mem0',
  model: 'a',
  origin: 'http://127.0.0.1:1',
  repeats: 1,
};
const judgeB: JudgeIdentity = { ...judgeA, protocol: 'strict' };

// Four questions in two conversations.
const questions = [
  { key: 'q0', cluster: 'c1' },
  { key: 'q1', cluster: 'c1' },
  { key: 'q2', cluster: 'c2' },
  { key: 'q3', cluster: 'c2' },
];
const labelsOf = (verdicts: Record<string, number[]>) => new Map(Object.entries(verdicts));

describe('compareJudges: runs compared under each judge they share', () => {
  const runs: RunJudgesInput[] = [
    {
      questions,
      judges: [
        { identity: judgeA, own: true, labels: labelsOf({ q0: [1], q1: [0], q2: [1], q3: [1] }) },
        { identity: judgeB, own: false, labels: labelsOf({ q0: [1], q1: [1], q2: [1], q3: [1] }) },
      ],
    },
    {
      questions,
      // Judge A also scored this run (q3 failed: no verdict); judge B never did.
      judges: [
        { identity: judgeA, own: true, labels: labelsOf({ q0: [0], q1: [0], q2: [1], q3: [] }) },
      ],
    },
  ];

  it('gives each run its J and the paired Δ on the questions the judge scored in every run', () => {
    const [a, ...rest] = compareJudges(runs, 0, () => null, { resamples: 200, seed: 1 });
    expect(rest).toEqual([]);
    expect(a?.judge).toEqual(judgeA);
    // q3 has no verdict in run 2: n = 3 paired questions.
    expect(a?.questions).toBe(3);
    expect(a?.perRun.map((r) => r.meanDiff)).toEqual([2 / 3, 1 / 3]);
    expect(a?.vsBaseline[0]).toBeNull();
    expect(a?.vsBaseline[1]?.meanDiff).toBeCloseTo(-1 / 3, 12);
    expect(a?.vsBaseline[1]?.clusters).toBe(2);
    for (const r of a?.perRun ?? []) {
      expect(r.low).toBeLessThanOrEqual(r.meanDiff);
      expect(r.high).toBeGreaterThanOrEqual(r.meanDiff);
    }
  });

  it("prints a row per shared judge in cli compare's table, with the judge's measured error", () => {
    const answer = (sampleId: string, questionIndex: number, f1: number): AnswerRecord =>
      ({
        sampleId,
        questionIndex,
        testIndex: 0,
        category: 1,
        question: `q${questionIndex}`,
        gold: 'g',
        prediction: 'p',
        scores: { officialF1: f1 },
        error: null,
      }) as unknown as AnswerRecord;
    const comparison = compareRuns(
      [
        { runId: 'r1', label: 'one', answers: [answer('c1', 0, 1), answer('c2', 1, 0)] },
        { runId: 'r2', label: 'two', answers: [answer('c1', 0, 0), answer('c2', 1, 0)] },
      ],
      { metric: 'officialF1', baselineIndex: 0, seed: 0 },
    );
    const judges = compareJudges(runs, 0, () => ({
      source: 'audit',
      falseAcceptance: { successes: 8, n: 100, estimate: 0.08, low: 0.04, high: 0.15 },
    }));
    const text = compareTable(
      {
        comparison,
        fairness: [],
        questionSets: { perRun: [2, 2], shared: 2 },
        benchmark: LOCOMO_PROFILE,
        judges,
      },
      { markup: 'text', scheme: 'official', names: ['one', 'two'] },
    );
    expect(text).toContain('J one (baseline) [95% CI]');
    expect(text).toContain('Δ J two [95% CI]');
    const row = text.split('\n').find((line) => line.trimStart().startsWith('mem0'));
    expect(row).toContain('0.667 [');
    expect(row).toContain('-0.333 [');
    expect(row).toContain('judge accepts 8% [4%, 15%] of known-wrong answers (audit, n = 100)');
    expect(text).not.toMatch(/^\s*strict/m);
  });
});
