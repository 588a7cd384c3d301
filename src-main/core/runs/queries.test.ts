import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixtureManifest } from '../../../tests/support/runs-fixture';
import { JudgeConfigSchema, type AnswerRecord } from '../../../src-shared/experiment';
import { MAX_ANSWERS_PAGE, apiMethods } from '../../../src-shared/api';
import { judgeCacheKey, legacyJudgeCacheKey } from '../answer/judge';
import { runQueries } from './queries';
import { SqliteRunReader } from './reader';
import { RunStore } from './store';

const dir = mkdtempSync(join(tmpdir(), 'workbench-queries-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
const file = (): string => join(dir, `runs-${++counter}.db`);

const answer = (
  sampleId: string,
  testIndex: number,
  questionIndex: number,
  f1: number,
): AnswerRecord => ({
  sampleId,
  testIndex,
  questionIndex,
  category: 4,
  question: `q${questionIndex}`,
  gold: 'g',
  prediction: `p${testIndex}`,
  retrieved: [{ id: `m${testIndex}`, diaId: `D1:${testIndex + 1}`, score: 0.5 }],
  scores: { officialF1: f1, evidenceRecall: null, setF1: f1, bleu1: f1 },
  retrieveMs: 1,
  answerMs: 1,
  error: null,
  judge: null,
  usage: null,
});

const test = (sampleId: string, testIndex: number, answers: AnswerRecord[]) => ({
  sampleId,
  testIndex,
  packetIdx: testIndex,
  dialogsInserted: 2,
  visibleCount: answers.length,
  questionIndices: answers.map((a) => a.questionIndex),
  answers,
});

const plan = (sampleId: string) => ({
  sampleId,
  totalPackets: 3,
  totalQuestions: 3,
  threshold: 1,
  plannedTests: 3,
});

/** Run a answers q0 at tests 0..2 and q1 at 1..2; run b only ever answered q0 (at test 0). */
function twoRuns(): string {
  const f = file();
  const store = RunStore.open(f);
  store.createRun(fixtureManifest('a', 'hybrid'), [plan('s1')]);
  store.createRun(fixtureManifest('b', 'text'), [plan('s1')]);
  store.commitTest('a', test('s1', 0, [answer('s1', 0, 0, 0.1)]));
  store.commitTest('a', test('s1', 1, [answer('s1', 1, 0, 0.2), answer('s1', 1, 1, 0.3)]));
  store.commitTest('a', test('s1', 2, [answer('s1', 2, 0, 0.4), answer('s1', 2, 1, 0.5)]));
  store.commitTest('b', test('s1', 0, [answer('s1', 0, 0, 0.9)]));
  store.close();
  return f;
}

describe("runs.question: one question's final answer in each run", () => {
  it('takes the last test that asked it in each run, null where a run lacks the question', () => {
    const reader = SqliteRunReader.openReadOnly(twoRuns());
    const queries = runQueries(reader);
    const q0 = queries['runs.question']({ runIds: ['a', 'b'], sampleId: 's1', questionIndex: 0 });
    // The same answer the comparison row shows: a's test 2 (F1 0.4), b's only one (0.9).
    expect(q0.runs.map((r) => [r.runId, r.answer?.testIndex, r.answer?.scores.officialF1])).toEqual(
      [
        ['a', 2, 0.4],
        ['b', 0, 0.9],
      ],
    );
    expect(q0.runs[0]?.answer?.retrieved).toEqual([{ id: 'm2', diaId: 'D1:3', score: 0.5 }]);
    expect(q0.runs.map((r) => [r.label, r.topK, r.datasetSha256, r.judgeProtocol])).toEqual([
      ['hybrid · a', 10, 'x', null],
      ['text · b', 10, 'x', null],
    ]);
    const q1 = queries['runs.question']({ runIds: ['a', 'b'], sampleId: 's1', questionIndex: 1 });
    expect(q1.runs.map((r) => r.answer?.testIndex ?? null)).toEqual([2, null]);
    reader.close();
  });
});

describe('runs.compare over different question sets', () => {
  it('compares on the questions both runs answered and says how many each has', () => {
    const reader = SqliteRunReader.openReadOnly(twoRuns());
    const result = runQueries(reader)['runs.compare']({
      runIds: ['a', 'b'],
      baselineRunId: 'a',
      metric: 'officialF1',
      seed: 0,
    });
    expect(result.questionSets).toEqual({ perRun: [2, 1], shared: 1 });
    // q1, which only a answered, is neither a row nor in a's mean (0.4 on q0 alone, not 0.45).
    expect(result.comparison.rows.map((r) => r.questionIndex)).toEqual([0]);
    expect(result.comparison.categories[0]?.perRun.map((m) => m.mean)).toEqual([0.4, 0.9]);
    expect(result.fairness.map((w) => w.kind)).toContain('questions');
    reader.close();
  });
});

describe("runs.question: the judge's reasons", () => {
  const judge = {
    model: 'judge-model',
    repeats: 2,
    prompt: { style: 'mem0', sha256: 'prompt-sha', templates: {} },
  };
  const judged = {
    ...answer('s1', 0, 0, 1),
    judge: { mean: 0.5, std: 0.7, labels: [1, 0], error: null },
  };
  const item = { question: judged.question, gold: 'g', answer: judged.prediction };
  const verdict = (repeat: number, reason: string, promptSha256 = 'prompt-sha') => ({
    model: 'judge-model',
    promptSha256,
    repeat,
    verdict: { label: repeat === 0 ? ('CORRECT' as const) : ('WRONG' as const), reason },
    usage: null,
  });
  function reasonsOf(f: string): Array<string | null> | null | undefined {
    const reader = SqliteRunReader.openReadOnly(f);
    try {
      const q = runQueries(reader)['runs.question']({
        runIds: ['j'],
        sampleId: 's1',
        questionIndex: 0,
      });
      expect(q.runs[0]?.judgeProtocol).toBe('mem0');
      return q.runs[0]?.judgeReasons;
    } finally {
      reader.close();
    }
  }

  it('finds each repeat’s reason under the key the judge stored it with: its endpoint’s', () => {
    const f = file();
    const store = RunStore.open(f);
    const manifest = fixtureManifest('j');
    const endpoint = { model: 'judge-model', baseUrl: 'http://127.0.0.1:9/v1' };
    store.createRun(
      {
        ...manifest,
        judge,
        config: { ...manifest.config, judge: JudgeConfigSchema.parse(endpoint) },
      },
      [plan('s1')],
    );
    store.commitTest('j', test('s1', 0, [judged]));
    const cache = store.judgeCache();
    (['same city', 'wrong year'] as const).forEach((reason, repeat) =>
      cache.put(judgeCacheKey(item, endpoint, 'prompt-sha', repeat), verdict(repeat, reason)),
    );
    // Another server's verdicts on the same answer, model and prompt are not this run's.
    const elsewhere = { ...endpoint, baseUrl: 'http://127.0.0.2:9/v1' };
    cache.put(judgeCacheKey(item, elsewhere, 'prompt-sha', 0), verdict(0, 'other server'));
    // Nor is another prompt's.
    cache.put(
      judgeCacheKey(item, endpoint, 'other-prompt', 0),
      verdict(0, 'other prompt', 'other-prompt'),
    );
    store.close();
    expect(reasonsOf(f)).toEqual(['same city', 'wrong year']);
  });

  it('still shows the reasons of a run judged before the endpoint was keyed', () => {
    const f = file();
    const store = RunStore.open(f);
    store.createRun({ ...fixtureManifest('j'), judge }, [plan('s1')]);
    store.commitTest('j', test('s1', 0, [judged]));
    const cache = store.judgeCache();
    cache.put(legacyJudgeCacheKey(item, 'judge-model', 'prompt-sha', 0), verdict(0, 'same city'));
    store.close();
    expect(reasonsOf(f)).toEqual(['same city', null]);
  });
});

describe('runs.answersPage: the final answers a page at a time', () => {
  it('pages through exactly the final answers in their order, each with its scores, and says how many there are', () => {
    const f = file();
    const store = RunStore.open(f);
    store.createRun(fixtureManifest('p', 'hybrid'), [plan('s1'), plan('s2')]);
    // q0-q4 of s1 at test 0, re-asked (new scores) at test 1; q0-q2 of s2 once.
    const s1 = [0, 1, 2, 3, 4];
    store.commitTest(
      'p',
      test(
        's1',
        0,
        s1.map((q) => answer('s1', 0, q, 0.1)),
      ),
    );
    store.commitTest(
      'p',
      test(
        's1',
        1,
        s1.map((q) => answer('s1', 1, q, q / 10)),
      ),
    );
    store.commitTest(
      'p',
      test(
        's2',
        0,
        [0, 1, 2].map((q) => answer('s2', 0, q, 0.5)),
      ),
    );
    store.close();
    const reader = SqliteRunReader.openReadOnly(f);
    const page = runQueries(reader)['runs.answersPage'];
    const all = reader.finalAnswers('p');
    expect(all).toHaveLength(8);
    const pages = [0, 3, 6].map((offset) => page({ runId: 'p', offset, limit: 3 }));
    expect(pages.map((p) => [p.offset, p.total, p.answers.length])).toEqual([
      [0, 8, 3],
      [3, 8, 3],
      [6, 8, 2],
    ]);
    expect(pages.flatMap((p) => p.answers)).toEqual(all);
    expect(pages[1]?.answers.map((a) => [a.sampleId, a.testIndex, a.scores.officialF1])).toEqual([
      ['s1', 1, 0.3],
      ['s1', 1, 0.4],
      ['s2', 0, 0.5],
    ]);
    expect(page({ runId: 'p', offset: 8, limit: 3 })).toEqual({ offset: 8, total: 8, answers: [] });
    expect(() => page({ runId: 'nope', offset: 0, limit: 3 })).toThrow(/no run nope/);
    reader.close();
  });

  it('refuses an offset or limit out of range, naming the field', () => {
    const input = apiMethods['runs.answersPage'].input;
    expect(input.safeParse({ runId: 'p', offset: 0, limit: MAX_ANSWERS_PAGE }).success).toBe(true);
    for (const [bad, field] of [
      [{ runId: 'p', offset: -1, limit: 10 }, 'offset'],
      [{ runId: 'p', offset: 0.5, limit: 10 }, 'offset'],
      [{ runId: 'p', offset: 0, limit: 0 }, 'limit'],
      [{ runId: 'p', offset: 0, limit: MAX_ANSWERS_PAGE + 1 }, 'limit'],
    ] as const) {
      const parsed = input.safeParse(bad);
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.path).toEqual([field]);
    }
  });
});
