import { describe, expect, it } from 'vitest';
import { LOCOMO_PROFILE } from './benchmarks';
import { compareRuns, scoreIntervals } from './compare';
import { compareCategoryCsv, compareTable, distinctRunNames } from './compareTable';
import type { AnswerRecord } from './experiment';
import { runLabel, runTitle } from './runs';

function answer(questionIndex: number, officialF1: number, category: number): AnswerRecord {
  return {
    sampleId: 's1',
    testIndex: 0,
    questionIndex,
    category,
    question: `q${questionIndex}`,
    gold: 'gold',
    prediction: 'p',
    retrieved: [],
    scores: { officialF1, evidenceRecall: null, setF1: null, bleu1: null, judge: null },
    retrieveMs: 0,
    answerMs: 0,
    error: null,
    judge: null,
    usage: null,
  };
}

// The baseline gets every temporal (2) question wrong and the candidate every one right, so that
// row's interval is [+1, +1] and must be marked; single-hop (4) is a tie.
const baseline = [answer(0, 0, 2), answer(1, 0, 2), answer(2, 1, 4), answer(3, 0, 4)];
const candidate = [answer(0, 1, 2), answer(1, 1, 2), answer(2, 1, 4), answer(3, 0, 4)];
const comparison = compareRuns(
  [
    {
      runId: 'r-1',
      label: runLabel({ id: 'r-1', name: 'BM25 & co', preset: 'text' }),
      answers: baseline,
    },
    {
      runId: 'r-2',
      label: runLabel({ id: 'r-2', name: '', preset: 'hybrid' }),
      answers: candidate,
    },
  ],
  { resamples: 200, seed: 0 },
);

describe('run names', () => {
  it('a named run is called by its name, an unnamed one by its preset and id', () => {
    expect(runTitle({ id: 'r-1', name: 'BM25', preset: 'text' })).toBe('BM25');
    expect(runTitle({ id: 'r-2', name: '', preset: 'text' })).toBe('text · r-2');
    expect(runLabel({ id: 'r-1', name: 'BM25', preset: 'text' })).toBe('BM25 · r-1');
  });

  it('short names stay distinct: two runs of one preset keep their ids', () => {
    expect(
      distinctRunNames([{ label: 'text · a' }, { label: 'text · b' }, { label: 'X · c' }]),
    ).toEqual(['text · a', 'text · b', 'X']);
  });
});

describe('the per-category table for a paper (the same compareTable `cli compare` prints)', () => {
  const input = {
    comparison,
    fairness: [],
    questionSets: { shared: 4, perRun: [4, 4] },
    benchmark: LOCOMO_PROFILE,
  };
  const names = distinctRunNames(comparison.runs);

  it('Markdown: runs headed by name, Δ and its interval in cells of their own, never a run id', () => {
    const md = compareTable(input, { markup: 'md', scheme: 'official', names });
    const lines = md.split('\n');
    expect(lines[0]).toMatch(
      /^\| category \| BM25 & co \(baseline\) \| hybrid \| n \| Δ \| 95% CI \|/,
    );
    const temporal = lines.find((line) => line.startsWith('| 2 temporal |'));
    expect(temporal).toContain('| 0.000 | 1.000 | 2 | +1.000 | [+1.000, +1.000] |');
    expect(md).not.toContain('r-1');
  });

  it('LaTeX: complete tabulars, runs by letter with their escaped names below, Δ in math mode', () => {
    const tex = compareTable(input, { markup: 'latex', scheme: 'official', names });
    expect(tex.startsWith('\\begin{tabular}{l')).toBe(true);
    expect(tex).toContain('category & $\\Delta$ B $-$ A & 95\\% CI & by conv. \\\\');
    expect(tex).toContain('A: BM25 \\& co (baseline); B: hybrid.');
    expect(tex.trimEnd().endsWith('\\end{tabular}')).toBe(true);
  });

  it('CSV: name-headed columns, numbers as numbers', () => {
    const csv = compareCategoryCsv(comparison, {
      scheme: 'official',
      profile: LOCOMO_PROFILE,
      names,
    }).split('\r\n');
    expect(csv[0]).toBe(
      'category,n,mean[BM25 & co],mean[hybrid],delta[hybrid - BM25 & co],ciLow[hybrid - BM25 & co],ciHigh[hybrid - BM25 & co]',
    );
    expect(csv).toContain('2 temporal,2,0,1,1,1,1');
  });
});

describe('scoreIntervals', () => {
  it('the headline interval holds the mean; a category all right has the interval [1, 1]', () => {
    const ci = scoreIntervals(candidate, 'officialF1', { resamples: 500, seed: 0 });
    expect(ci.all.meanDiff).toBeCloseTo(0.75);
    expect(ci.all.low).toBeLessThanOrEqual(0.75);
    expect(ci.all.high).toBeGreaterThanOrEqual(0.75);
    expect(ci.all.high - ci.all.low).toBeGreaterThan(0);
    expect(ci.byCategory[2]).toMatchObject({ meanDiff: 1, low: 1, high: 1, n: 2 });
    expect(ci.byCategory[4]?.n).toBe(2);
  });
});

describe('a metric that reads past the top-k', () => {
  // LongMemEval's turn recall_all: run A reached the reference's depth on both questions, run B's
  // memory capped its results on one, and run C was stored before the depth was recorded.
  const lme = (questionIndex: number, value: number, reached: boolean | null): AnswerRecord => ({
    ...answer(questionIndex, 0, 1),
    scores: { lmeTurnRecall: value },
    ...(reached === null ? {} : { scoringRanking: { turns: ['D1:1'], reached } }),
  });
  const compared = compareRuns(
    [
      { runId: 'a', label: 'A', answers: [lme(0, 1, true), lme(1, 0, true)] },
      { runId: 'b', label: 'B', answers: [lme(0, 1, true), lme(1, 0, false)] },
      { runId: 'c', label: 'C', answers: [lme(0, 1, null), lme(1, 1, null)] },
    ],
    { metric: 'lmeTurnRecall', resamples: 50, seed: 0 },
  );

  it('marks the runs whose figure is a lower bound, with the count, or not recorded', () => {
    expect(compared.runs.map((r) => r.rankingDepth)).toEqual([
      { scored: 2, lowerBound: 0 },
      { scored: 2, lowerBound: 1 },
      null,
    ]);
    for (const markup of ['text', 'md', 'latex'] as const) {
      const table = compareTable(
        {
          comparison: compared,
          fairness: [],
          questionSets: { shared: 2, perRun: [2, 2, 2] },
          benchmark: LOCOMO_PROFILE,
        },
        { markup, scheme: 'official', names: ['A', 'B', 'C'] },
      );
      expect(table, markup).toContain('B: lower bound: 1 of 2 questions');
      expect(table, markup).toContain('C: ranking depth not recorded');
      expect(table, markup).not.toMatch(/A: (lower bound|ranking depth)/);
    }
  });
});
