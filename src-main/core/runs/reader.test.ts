import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../src-shared/errors';
import { fixtureManifest, writeFixtureRun } from '../../../tests/support/runs-fixture';
import { openSqlite } from '../sqlite';
import { ANSWER_COLUMNS } from './answerRows';
import { runQueries } from './queries';
import { SqliteRunReader } from './reader';
import { RunStore } from './store';

const dir = mkdtempSync(join(tmpdir(), 'workbench-reader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
const file = (): string => join(dir, `runs-${++counter}.db`);

const answer = (sampleId: string, testIndex: number, questionIndex: number, f1: number) => ({
  sampleId,
  testIndex,
  questionIndex,
  category: 4 as const,
  question: `q${questionIndex}`,
  gold: 'g',
  prediction: `p${testIndex}`,
  retrieved: [],
  scores: {
    officialF1: f1,
    evidenceRecall: null,
    setF1: f1,
    bleu1: f1,
  },
  retrieveMs: 1,
  answerMs: 1,
  error: null,
  judge: null,
  usage: null,
});

const test = (sampleId: string, testIndex: number, answers: ReturnType<typeof answer>[]) => ({
  sampleId,
  testIndex,
  packetIdx: testIndex,
  dialogsInserted: 2,
  visibleCount: answers.length,
  questionIndices: answers.map((a) => a.questionIndex),
  answers,
});

describe('RunReader headline SQL (finalAnswers)', () => {
  it("takes each question's answer at the last test that asked it, per sample and per run only", () => {
    const f = file();
    const store = RunStore.open(f);
    const plan = (sampleId: string) => ({
      sampleId,
      totalPackets: 3,
      totalQuestions: 3,
      threshold: 1,
      plannedTests: 3,
    });
    store.createRun(fixtureManifest('a'), [plan('s1'), plan('s2')]);
    store.createRun(fixtureManifest('b'), [plan('s1')]);
    // s1: q0 is asked at tests 0, 1, 2 and q1 at 1, 2; its final answers are test 2's.
    store.commitTest('a', test('s1', 0, [answer('s1', 0, 0, 0.1)]));
    store.commitTest('a', test('s1', 1, [answer('s1', 1, 0, 0.2), answer('s1', 1, 1, 0.3)]));
    store.commitTest('a', test('s1', 2, [answer('s1', 2, 0, 0.4), answer('s1', 2, 1, 0.5)]));
    // s2: q0 was only asked at test 0 (a later test skipped it): test 0 stays its headline.
    store.commitTest('a', test('s2', 0, [answer('s2', 0, 0, 0.6), answer('s2', 0, 1, 0.7)]));
    store.commitTest('a', test('s2', 1, [answer('s2', 1, 1, 0.8)]));
    // Another run's later test of the same question must not leak into run a.
    store.commitTest('b', test('s1', 5, [answer('s1', 5, 0, 1)]));
    store.close();

    const reader = SqliteRunReader.openReadOnly(f);
    const final = reader.finalAnswers('a');
    expect(
      final.map((a) => [a.sampleId, a.questionIndex, a.testIndex, a.scores['officialF1']]),
    ).toEqual([
      ['s1', 0, 2, 0.4],
      ['s1', 1, 2, 0.5],
      ['s2', 0, 0, 0.6],
      ['s2', 1, 1, 0.8],
    ]);
    // Per-test answers keep every test, in sample, test, question order.
    expect(reader.answersByTest('a', { sampleId: 's1' }).map((a) => a.testIndex)).toEqual([
      0, 1, 1, 2, 2,
    ]);
    // The headline summary is the mean over final answers, never pooled over tests.
    expect(reader.summary('a').overall.all['officialF1']?.mean).toBeCloseTo(
      (0.4 + 0.5 + 0.6 + 0.8) / 4,
    );
    reader.close();
  });

  it('reads what the writer commits after the reader opened (WAL), without writing itself', () => {
    const f = file();
    const store = RunStore.open(f);
    const reader = SqliteRunReader.openReadOnly(f);
    expect(reader.listRuns()).toEqual([]);
    const rows = writeFixtureRun(store, { runId: 'r1', samples: 1, tests: 2, step: 2 });
    expect(reader.answersByTest('r1')).toHaveLength(rows);
    expect(reader.getRun('r1').status).toBe('completed');
    expect(() => reader.db.prepare('DELETE FROM runs').run()).toThrow(/readonly/i);
    reader.close();
    store.close();
  });

  it('refuses a file that is not a runs database, with code RUNS_DB', () => {
    const f = file();
    const other = openSqlite(f);
    other.exec('CREATE TABLE t (x)');
    other.close();
    const error = (() => {
      try {
        SqliteRunReader.openReadOnly(f);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(WorkbenchError);
    expect((error as WorkbenchError).code).toBe('RUNS_DB');
    const missing = join(dir, 'missing.db');
    expect(() => SqliteRunReader.openReadOnly(missing)).toThrow(/cannot open for reading/);
  });
});

describe("the run view's scoring reads (curve, intervals) skip the retrieved memories", () => {
  it('runs.get gives the same curve and intervals without reading a retrieved column', () => {
    const f = file();
    const store = RunStore.open(f);
    writeFixtureRun(store, { runId: 'r1', samples: 2, tests: 3, step: 4 });
    store.close();
    const before = SqliteRunReader.openReadOnly(f);
    const expected = runQueries(before)['runs.get']({ runId: 'r1' });
    before.close();
    // Unreadable memories: any read of them fails, so a read that succeeds never touched them.
    const db = openSqlite(f);
    db.prepare("UPDATE answers SET retrieved = 'not json'").run();
    db.close();

    const reader = SqliteRunReader.openReadOnly(f);
    const detail = runQueries(reader)['runs.get']({ runId: 'r1' });
    expect(detail.curve).toEqual(expected.curve);
    expect(detail.intervals).toEqual(expected.intervals);
    expect(detail.curve.length).toBeGreaterThan(0);
    // The answers table still reads (and checks) them.
    expect(() => reader.finalAnswers('r1')).toThrow(/retrieved/);
    reader.close();
  });

  it('ANSWER_COLUMNS names every column of the answers table', () => {
    const store = RunStore.open(file());
    const columns = (
      store.db.prepare('PRAGMA table_info(answers)').all() as Array<{ name: string }>
    ).map((c) => c.name);
    store.close();
    expect([...ANSWER_COLUMNS, 'run_id'].sort()).toEqual(columns.sort());
  });
});
