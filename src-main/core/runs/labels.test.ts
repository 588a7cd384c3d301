import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCOMO_PROFILE } from '../../../src-shared/benchmarks';
import { metricOf, metricScores } from '../../../src-shared/metrics';
import { labelsToCsv, parseLabelsCsv, type HumanLabel } from '../../../src-shared/labels';
import { insertOldSchemaRun } from '../../../tests/support/runs-db';
import { fixtureManifest, writeFixtureRun } from '../../../tests/support/runs-fixture';
import { openRunsDb } from './db';
import { drawLabelSample, type SampleCandidate } from './labelSample';
import {
  createLabelSession,
  humanLabels,
  importLabels,
  labellingSession,
  saveLabel,
} from './labels';
import { MIGRATIONS } from './migrations';
import { RunStore } from './store';

const dir = mkdtempSync(join(tmpdir(), 'workbench-labels-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
const file = (): string => join(dir, `runs-${++counter}.db`);

/** The fixture's final test: every test re-asks all visible questions, so the last one holds all. */
const TESTS = 3;
const FINAL = TESTS - 1;

function storeWithRun(runId = 'run-a', samples = 3): RunStore {
  const store = RunStore.open(file());
  writeFixtureRun(store, { runId, samples, tests: TESTS, step: 4 });
  return store;
}

const judgedCategories = new Set(
  LOCOMO_PROFILE.categories.filter((c) => metricScores(metricOf('judge'), c)).map((c) => c.id),
);

describe('labels migration', () => {
  // Found by what it adds, never by its number: the lead renumbers migrations at merge.
  const index = MIGRATIONS.findIndex((m) => /human labels/.test(m.description));
  const labelsVersion = MIGRATIONS[index]?.version ?? Number.NaN;
  const before = MIGRATIONS[index - 1]?.version ?? Number.NaN;

  it("adds the label tables to an older file and keeps its runs' answers readable", () => {
    expect(index).toBeGreaterThan(0);
    const f = file();
    const old = openRunsDb(f, { targetVersion: before });
    insertOldSchemaRun(old, fixtureManifest('r1', 'hybrid', ['s']), [
      { question: 'Where?', gold: 'Paris', prediction: 'Paris' },
    ]);
    const tables = (db: ReturnType<typeof openRunsDb>) =>
      (
        db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{
          name: string;
        }>
      ).map((t) => t.name);
    expect(tables(old)).not.toContain('human_labels');
    old.close();

    const migrated = openRunsDb(f, { targetVersion: labelsVersion });
    expect(migrated.pragma('user_version', { simple: true })).toBe(labelsVersion);
    expect(tables(migrated)).toEqual(
      expect.arrayContaining(['human_labels', 'label_plans', 'label_sample']),
    );
    migrated.close();

    const store = RunStore.open(f);
    expect(store.finalAnswers('r1').map((a) => [a.question, a.prediction])).toEqual([
      ['Where?', 'Paris'],
    ]);
    const saved = saveLabel(store, {
      runId: 'r1',
      key: { sampleId: 's', testIndex: 0, questionIndex: 0 },
      labeller: 'ann',
      label: 'correct',
    });
    expect(saved).toMatchObject({ category: 4, label: 'correct' });
    store.close();
  });

  it('refuses a label the schema does not know', () => {
    const store = storeWithRun();
    expect(() =>
      store.db
        .prepare("INSERT INTO human_labels VALUES ('run-a', 'conv-1', 2, 0, 'ann', 'maybe', 't')")
        .run(),
    ).toThrow(/CHECK constraint failed/);
    store.close();
  });
});

describe('drawLabelSample', () => {
  const candidates: SampleCandidate[] = Array.from({ length: 60 }, (_, i) => ({
    sampleId: `conv-${i % 3}`,
    testIndex: 0,
    questionIndex: i,
    // 30 of category 1, 20 of category 2, 10 of category 3.
    category: i < 30 ? 1 : i < 50 ? 2 : 3,
  }));

  it('takes perCategory from each category and all of a smaller one', () => {
    const drawn = drawLabelSample(candidates, { perCategory: 12, seed: 7 });
    const perCategory = (c: number) => drawn.filter((d) => d.category === c).length;
    expect([perCategory(1), perCategory(2), perCategory(3)]).toEqual([12, 12, 10]);
    expect(new Set(drawn.map((d) => d.questionIndex)).size).toBe(drawn.length);
  });

  it('is the same for a seed whatever the input order, and another seed draws another sample', () => {
    const a = drawLabelSample(candidates, { perCategory: 5, seed: 3 });
    const b = drawLabelSample([...candidates].reverse(), { perCategory: 5, seed: 3 });
    expect(b).toEqual(a);
    const c = drawLabelSample(candidates, { perCategory: 5, seed: 4 });
    expect(c.map((d) => d.questionIndex)).not.toEqual(a.map((d) => d.questionIndex));
  });

  it('mixes the categories in the shown order', () => {
    const drawn = drawLabelSample(candidates, { perCategory: 10, seed: 1 });
    const categories = drawn.map((d) => d.category);
    // Drawn category by category but shown shuffled: not sorted by category.
    expect(categories).not.toEqual([...categories].sort((x, y) => x - y));
  });
});

describe('labelling sessions and labels in a real runs DB', () => {
  it("draws a stratified sample of the run's judged final answers and stores it", () => {
    const store = storeWithRun();
    const session = createLabelSession(store, 'run-a', { perCategory: 2, seed: 11 });
    // The fixture's categories 1-5 (q % 5 + 1); LoCoMo's judge scores 1-4 only.
    expect(new Set(session.items.map((i) => i.category))).toEqual(judgedCategories);
    for (const c of judgedCategories)
      expect(session.items.filter((i) => i.category === c)).toHaveLength(2);
    expect(session.items.every((i) => i.testIndex === FINAL)).toBe(true);
    expect(session.next).toBe(0);
    // Stored: the same answers come back after the file is closed and opened again.
    const keys = session.items.map((i) => `${i.sampleId}/${i.questionIndex}`);
    store.close();
    const again = RunStore.open(store.file);
    expect(
      labellingSession(again, 'run-a')?.items.map((i) => `${i.sampleId}/${i.questionIndex}`),
    ).toEqual(keys);
    // The same request returns it; another would mismatch labels already given.
    expect(createLabelSession(again, 'run-a', { perCategory: 2, seed: 11 }).items).toHaveLength(8);
    expect(() => createLabelSession(again, 'run-a', { perCategory: 3, seed: 11 })).toThrow(
      expect.objectContaining({ code: 'CONFLICT' }),
    );
    again.close();
  });

  it('saves each label at once and resumes each labeller where they stopped', () => {
    const store = storeWithRun();
    const session = createLabelSession(store, 'run-a', { perCategory: 3, seed: 5 });
    const give = (labeller: string, at: number, label: HumanLabel) => {
      const item = session.items[at];
      if (!item) throw new Error(`no item ${at}`);
      saveLabel(store, {
        runId: 'run-a',
        key: {
          sampleId: item.sampleId,
          testIndex: item.testIndex,
          questionIndex: item.questionIndex,
        },
        labeller,
        label,
      });
    };
    give('ann', 0, 'correct');
    give('ann', 1, 'wrong');
    give('ann', 2, 'skip');
    give('bob', 0, 'wrong');
    // A second label of one answer by one labeller replaces the first.
    give('ann', 1, 'unsure');
    store.close();

    const reopened = RunStore.open(store.file);
    const ann = labellingSession(reopened, 'run-a', 'ann');
    expect(ann?.labels.slice(0, 4)).toEqual(['correct', 'unsure', 'skip', null]);
    expect(ann?.next).toBe(3);
    expect(labellingSession(reopened, 'run-a', 'bob')?.next).toBe(1);
    expect(labellingSession(reopened, 'run-a', 'cat')?.next).toBe(0);
    expect(humanLabels(reopened, 'run-a')).toHaveLength(4);
    reopened.close();
  });

  it("refuses a label on an answer that is not the question's final one", () => {
    const store = storeWithRun();
    expect(() =>
      saveLabel(store, {
        runId: 'run-a',
        key: { sampleId: 'conv-1', testIndex: 0, questionIndex: 0 },
        labeller: 'ann',
        label: 'correct',
      }),
    ).toThrow(/no final answer conv-1 qa\[0\] at test 0/);
    store.close();
  });

  it("deleting a run deletes its sample and labels, and no other run's", () => {
    const store = storeWithRun('run-a');
    writeFixtureRun(store, { runId: 'run-b', samples: 2, tests: TESTS, step: 4 });
    for (const runId of ['run-a', 'run-b']) {
      createLabelSession(store, runId, { perCategory: 1, seed: 0 });
      saveLabel(store, {
        runId,
        key: { sampleId: 'conv-1', testIndex: FINAL, questionIndex: 0 },
        labeller: 'ann',
        label: 'correct',
      });
    }
    expect(store.deleteRun('run-a')).toBe(true);
    const count = (table: string) =>
      (
        store.db
          .prepare(`SELECT count(*) AS n, count(DISTINCT run_id) AS runs FROM ${table}`)
          .get() as {
          runs: number;
        }
      ).runs;
    expect([count('human_labels'), count('label_plans'), count('label_sample')]).toEqual([1, 1, 1]);
    expect(humanLabels(store, 'run-b')).toHaveLength(1);
    store.close();
  });
});

describe('labels CSV', () => {
  function labelledStore(): RunStore {
    const store = storeWithRun();
    const at = (q: number) => ({ sampleId: 'conv-2', testIndex: FINAL, questionIndex: q });
    saveLabel(store, { runId: 'run-a', key: at(0), labeller: 'ann', label: 'correct' }, () => 1e12);
    saveLabel(
      store,
      { runId: 'run-a', key: at(1), labeller: '=ann, "the second"', label: 'wrong' },
      () => 2e12,
    );
    saveLabel(store, { runId: 'run-a', key: at(2), labeller: 'bob', label: 'unsure' }, () => 3e12);
    return store;
  }

  it('round-trips into a second runs DB that holds the run', () => {
    const store = labelledStore();
    const csv = labelsToCsv(humanLabels(store, 'run-a'));
    // A second data folder: a copy of the runs DB taken before any label was given.
    const second = file();
    const other = RunStore.open(second);
    writeFixtureRun(other, { runId: 'run-a', samples: 3, tests: TESTS, step: 4 });
    expect(humanLabels(other, 'run-a')).toEqual([]);
    const result = importLabels(other, parseLabelsCsv(csv));
    expect(result).toEqual({
      imported: 3,
      runs: ['run-a'],
      labellers: ['ann', '=ann, "the second"', 'bob'],
    });
    expect(humanLabels(other, 'run-a')).toEqual(humanLabels(store, 'run-a'));
    store.close();
    other.close();
  });

  it('keeps the newer of two labels one labeller gave an answer when an older file is imported again', () => {
    const store = labelledStore();
    const old = labelsToCsv(humanLabels(store, 'run-a'));
    saveLabel(
      store,
      {
        runId: 'run-a',
        key: { sampleId: 'conv-2', testIndex: FINAL, questionIndex: 0 },
        labeller: 'ann',
        label: 'wrong',
      },
      () => 4e12,
    );
    importLabels(store, parseLabelsCsv(old));
    expect(humanLabels(store, 'run-a').find((l) => l.labeller === 'ann')?.label).toBe('wrong');
    store.close();
  });

  const header = 'run_id,sample_id,test_index,question_index,category,labeller,label,labelled_at';
  const row = (cells: Partial<Record<string, string>> = {}) =>
    [
      cells['run_id'] ?? 'run-a',
      cells['sample_id'] ?? 'conv-1',
      cells['test_index'] ?? String(FINAL),
      cells['question_index'] ?? '0',
      cells['category'] ?? '1',
      cells['labeller'] ?? 'ann',
      cells['label'] ?? 'correct',
      cells['labelled_at'] ?? '2026-01-01T00:00:00.000Z',
    ].join(',');

  it.each([
    [
      'a label it does not know',
      `${header}\n${row()}\n${row({ label: 'maybe' })}\n`,
      /^labels CSV row 3, column label: /,
    ],
    [
      'a test index that is not a number',
      `${header}\n${row({ test_index: 'two' })}\n`,
      /^labels CSV row 2, column test_index: must be a whole number/,
    ],
    [
      'a time that is not ISO 8601',
      `${header}\n${row({ labelled_at: 'yesterday' })}\n`,
      /^labels CSV row 2, column labelled_at: must be an ISO 8601 time/,
    ],
    [
      'an empty labeller',
      `${header}\n${row({ labeller: '' })}\n`,
      /^labels CSV row 2, column labeller: must not be empty/,
    ],
    [
      'a missing field',
      `${header}\n${row()},extra\n`,
      /^labels CSV row 2: has 9 fields, the header has 8/,
    ],
    ['another header', `run,sample\n${row()}\n`, /^labels CSV row 1: the header must be run_id,/],
    [
      'an unclosed quote',
      `${header}\n"run-a,conv-1\n`,
      /^labels CSV row 2: a quoted field is not closed/,
    ],
  ])('refuses %s, naming the row and column', (_what, csv, message) => {
    expect(() => parseLabelsCsv(csv)).toThrow(message);
  });

  it.each([
    [
      'a run this database does not hold',
      { run_id: 'run-z' },
      /row 2, column run_id: run run-z is not in /,
    ],
    [
      'a question the run never asked',
      { question_index: '99' },
      /row 2, column question_index: run run-a has no question conv-1 qa\[99\]/,
    ],
    [
      'an answer that is not the final one',
      { test_index: '0' },
      /row 2, column test_index: the final answer of conv-1 qa\[0\] is at test 2/,
    ],
    [
      'another category than the answer',
      { category: '3' },
      /row 2, column category: the answer is of category 1, not 3/,
    ],
  ])('refuses to import %s, storing nothing', (_what, cells, message) => {
    const store = storeWithRun();
    // The bad row is line 2; the good one after it (question 5, category 1) is not stored either.
    const csv = `${header}\n${row(cells)}\n${row({ question_index: '5' })}\n`;
    expect(() => importLabels(store, parseLabelsCsv(csv))).toThrow(message);
    expect(humanLabels(store, 'run-a')).toEqual([]);
    store.close();
  });
});
