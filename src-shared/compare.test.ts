import { describe, expect, it } from 'vitest';
import {
  compareRuns,
  configDiff,
  onSharedQuestions,
  runCost,
  scoreOf,
  table2Columns,
} from './compare';
import type { AnswerRecord } from './experiment';

function answer(
  sampleId: string,
  questionIndex: number,
  officialF1: number,
  category: AnswerRecord['category'] = 4,
): AnswerRecord {
  return {
    sampleId,
    testIndex: 0,
    questionIndex,
    category,
    question: `q${questionIndex}`,
    gold: 'gold',
    prediction: `p${officialF1}`,
    retrieved: [],
    scores: { officialF1, evidenceRecall: null, setF1: null, bleu1: null, judge: null },
    retrieveMs: 0,
    answerMs: 0,
    error: null,
    judge: null,
    usage: null,
  };
}

describe('compareRuns', () => {
  const baseline = {
    runId: 'a',
    label: 'A',
    answers: [answer('s1', 0, 1), answer('s1', 1, 0), answer('s1', 2, 0.5, 2)],
  };
  // Candidate: q0 regresses, q1 improves, q2 stays, q3 exists only here.
  const candidate = {
    runId: 'b',
    label: 'B',
    answers: [answer('s1', 0, 0), answer('s1', 1, 1), answer('s1', 2, 0.5, 2), answer('s1', 3, 1)],
  };

  it('aligns by sample and question and classifies flips, with missing never counted as wrong', () => {
    const result = compareRuns([baseline, candidate]);
    expect(result.rows.map((r) => r.flips[1])).toEqual([
      'regressed',
      'improved',
      'unchanged',
      'missing',
    ]);
    expect(result.rows[3]!.cells[0]).toBeNull();
    expect(result.flipCounts[1]).toEqual({ improved: 1, regressed: 1, unchanged: 1, missing: 1 });
  });

  it('reports per-category means over answered questions and a paired delta', () => {
    const result = compareRuns([baseline, candidate], { resamples: 200, seed: 7 });
    const all = result.categories.find((c) => c.category === null)!;
    // Baseline answered 3 questions (1 + 0 + 0.5); the candidate 4 (0 + 1 + 0.5 + 1).
    expect(all.perRun.map((m) => m.n)).toEqual([3, 4]);
    expect(all.perRun[0]!.mean).toBeCloseTo(0.5);
    // The paired delta only uses the 3 shared questions: (−1 + 1 + 0) / 3 = 0.
    expect(all.deltas[1]!.n).toBe(3);
    expect(all.deltas[1]!.meanDiff).toBeCloseTo(0);
    expect(all.deltas[0]).toBeNull();
    expect(result.categories.map((c) => c.category)).toEqual([null, 2, 4]);
  });

  it('is reproducible for a seed', () => {
    const a = compareRuns([baseline, candidate], { resamples: 300, seed: 3 });
    const b = compareRuns([baseline, candidate], { resamples: 300, seed: 3 });
    expect(a.categories).toEqual(b.categories);
  });

  it('refuses a single run', () => {
    expect(() => compareRuns([baseline])).toThrow('compare: needs at least two runs');
  });
});

describe('compareRuns on the Mem0-style metrics', () => {
  const scored = (
    questionIndex: number,
    setF1: number | null,
    bleu1: number | null,
    judgeMean: number | null,
  ): AnswerRecord => ({
    ...answer('s1', questionIndex, 0.5),
    scores: { officialF1: 0.5, evidenceRecall: null, setF1, bleu1, judge: judgeMean },
    judge:
      judgeMean === null
        ? null
        : { mean: judgeMean, std: 0, labels: [judgeMean, judgeMean], error: null },
  });

  it('reads set F1, BLEU-1 and the judge mean per answer', () => {
    const a = scored(0, 0.25, 0.5, 1);
    expect(scoreOf(a, 'setF1')).toBe(0.25);
    expect(scoreOf(a, 'bleu1')).toBe(0.5);
    expect(scoreOf(a, 'judge')).toBe(1);
    // A category-5 answer has no Mem0 scores and no verdict: unscored, not zero.
    const c5 = { ...answer('s1', 1, 1, 5), judge: null };
    expect(scoreOf(c5, 'setF1')).toBeNull();
    expect(scoreOf(c5, 'judge')).toBeNull();
  });

  it('flips by the judge mean and treats an unjudged answer as missing', () => {
    const base = { runId: 'a', label: 'A', answers: [scored(0, 0, 0, 0), scored(1, 1, 1, 1)] };
    // Official F1 is 0.5 everywhere, so only the judge can tell these runs apart.
    const cand = { runId: 'b', label: 'B', answers: [scored(0, 0, 0, 1), scored(1, 1, 1, null)] };
    const byJudge = compareRuns([base, cand], { metric: 'judge', resamples: 50 });
    expect(byJudge.metric).toBe('judge');
    expect(byJudge.rows.map((r) => r.flips[1])).toEqual(['improved', 'missing']);
    const bySetF1 = compareRuns([base, cand], { metric: 'setF1', resamples: 50 });
    expect(bySetF1.rows.map((r) => r.flips[1])).toEqual(['unchanged', 'unchanged']);
  });
});

describe('onSharedQuestions', () => {
  it('cuts runs over different question sets to the questions all answered, with the counts', () => {
    // A ran two samples, B only s1 and lost s1 q2: the shared questions are s1 q0 and q1.
    const a = {
      runId: 'a',
      label: 'A',
      answers: [answer('s1', 0, 0), answer('s1', 1, 0), answer('s1', 2, 1), answer('s2', 0, 0)],
    };
    const b = { runId: 'b', label: 'B', answers: [answer('s1', 0, 1), answer('s1', 1, 1)] };
    const { runs, questionSets } = onSharedQuestions([a, b]);
    expect(questionSets).toEqual({ perRun: [4, 2], shared: 2 });
    expect(runs.map((r) => r.answers.map((x) => `${x.sampleId}/${x.questionIndex}`))).toEqual([
      ['s1/0', 's1/1'],
      ['s1/0', 's1/1'],
    ]);
    // On the shared questions B is better on both; over the union A's extra right answer (s1 q2)
    // would have lifted its mean and the table would have listed questions B never saw.
    const comparison = compareRuns(runs);
    expect(comparison.rows).toHaveLength(2);
    expect(comparison.flipCounts[1]).toEqual({
      improved: 2,
      regressed: 0,
      unchanged: 0,
      missing: 0,
    });
    expect(comparison.categories[0]?.perRun.map((m) => m.mean)).toEqual([0, 1]);
  });

  it('leaves runs over the same questions as they are', () => {
    const a = { runId: 'a', label: 'A', answers: [answer('s1', 0, 0), answer('s1', 1, 1)] };
    const b = { runId: 'b', label: 'B', answers: [answer('s1', 1, 0), answer('s1', 0, 1)] };
    const { runs, questionSets } = onSharedQuestions([a, b]);
    expect(questionSets).toEqual({ perRun: [2, 2], shared: 2 });
    expect(runs[0]).toBe(a);
    expect(runs[1]).toBe(b);
  });
});

describe('configDiff', () => {
  it('lists only the keys that differ, by dotted path', () => {
    expect(
      configDiff([
        { memory: { preset: 'hybrid', config: { k: 1 } }, seed: 42 },
        { memory: { preset: 'text', config: { k: 1 } }, seed: 42, extra: true },
      ]),
    ).toEqual([
      { path: 'extra', values: [undefined, 'true'] },
      { path: 'memory.preset', values: ['"hybrid"', '"text"'] },
    ]);
  });
});

describe('runCost', () => {
  const tokens = (cost: number | null) => ({
    calls: 2,
    promptTokens: 100,
    completionTokens: 10,
    cost,
  });
  const timed = (retrieveMs: number, answerMs: number, error: string | null = null) => ({
    retrieveMs,
    answerMs,
    error,
  });

  it('sums the priced roles and averages latency over answers that did not fail', () => {
    const cost = runCost('r1', { answer: tokens(0.5), judge: tokens(null), memory: tokens(0.25) }, [
      timed(1, 10),
      timed(3, 30),
      timed(100, 1000, 'answer: TIMEOUT'),
    ]);
    expect(cost).toMatchObject({
      runId: 'r1',
      totalCost: 0.75,
      meanRetrieveMs: 2,
      meanAnswerMs: 20,
      judge: { cost: null },
    });
  });

  it('has no cost without prices, no roles without usage, and no latency without answers', () => {
    expect(runCost('r2', { answer: tokens(null), judge: null }, [])).toEqual({
      runId: 'r2',
      answer: tokens(null),
      judge: null,
      memory: null,
      totalCost: null,
      meanRetrieveMs: null,
      meanAnswerMs: null,
      table2: { searchMs: null, totalMs: null, ingest: null, memoryTokens: null },
    });
    expect(runCost('r3', undefined, [timed(1, 1)]).answer).toBeNull();
  });

  it("gives Mem0 Table 2's columns: search and total p50/p95, memory LLM calls and tokens per conversation", () => {
    // Search 1..20 ms, answer 10 ms each, over two conversations; one failed answer left out.
    const answers = Array.from({ length: 20 }, (_, i) => ({
      ...timed(i + 1, 10),
      sampleId: i < 10 ? 'c1' : 'c2',
    }));
    answers.push({ ...timed(999, 999, 'answer: TIMEOUT'), sampleId: 'c2' });
    const { table2 } = runCost(
      'r4',
      { answer: tokens(null), judge: null, memory: tokens(null) },
      answers,
    );
    // numpy.percentile([1..20], 50) = 10.5, (…, 95) = 19.05.
    expect(table2.searchMs?.p50).toBeCloseTo(10.5, 10);
    expect(table2.searchMs?.p95).toBeCloseTo(19.05, 10);
    expect(table2.totalMs?.p50).toBeCloseTo(20.5, 10);
    expect(table2.totalMs?.p95).toBeCloseTo(29.05, 10);
    // 2 calls and 110 tokens over 2 conversations.
    expect(table2.ingest).toEqual({
      conversations: 2,
      callsPerConversation: 1,
      tokensPerConversation: 55,
    });
  });

  it('gives memory tokens per question over the answers that counted them: none counted is unknown, not 0', () => {
    const counted = (memoryTokens: number | null | undefined, error: string | null = null) => ({
      ...timed(1, 1, error),
      memoryTokens,
    });
    // Runs from before memory tokens were stored: every answer null (or missing).
    expect(table2Columns(null, [counted(null), counted(undefined)]).memoryTokens).toBeNull();
    // A failed answer and an uncounted one do not pull the mean or the median.
    expect(
      table2Columns(null, [
        counted(100),
        counted(300),
        counted(800),
        counted(null),
        counted(5, 'x'),
      ]).memoryTokens,
    ).toEqual({ mean: 400, p50: 300, answers: 3 });
  });
});

describe('compareRuns significance (10 conversations, not 2,000 independent questions)', () => {
  // Three conversations of four questions. The candidate wins all of c1, loses all of c2 and ties
  // c3: per question the differences look like many independent wins and losses, but they come in
  // two blocks.
  const baseline = {
    runId: 'a',
    label: 'A',
    answers: ['c1', 'c2', 'c3'].flatMap((s) =>
      [0, 1, 2, 3].map((q) => answer(s, q, s === 'c1' ? 0 : 1)),
    ),
  };
  const candidate = {
    runId: 'b',
    label: 'B',
    answers: ['c1', 'c2', 'c3'].flatMap((s) =>
      [0, 1, 2, 3].map((q) => answer(s, q, s === 'c2' ? 0 : 1)),
    ),
  };

  it('adds a cluster bootstrap over conversations, McNemar on the flips and the detectable effect', () => {
    const all = compareRuns([baseline, candidate], { resamples: 500, seed: 3 }).categories.find(
      (c) => c.category === null,
    )!;
    expect(all.clusterDeltas[0]).toBeNull();
    expect(all.clusterDeltas[1]).toMatchObject({ n: 12, clusters: 3, meanDiff: 0 });
    // Four improvements (c1) against four regressions (c2): no evidence either way.
    expect(all.mcnemar[1]).toEqual({ baselineOnly: 4, candidateOnly: 4, pValue: 1 });
    // Paired differences: four +1, four -1, four 0 -> sample std sqrt(8/11).
    const expected = 2.8016 / Math.sqrt(12);
    expect(all.minimumDetectable[1]! / Math.sqrt(8 / 11)).toBeCloseTo(expected, 3);
    expect(all.minimumDetectable[0]).toBeNull();
  });
});
