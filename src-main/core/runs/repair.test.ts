import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RUNS, buildDb, corruptAnswersPage } from '../../../tests/support/runs-db';
import { repairRunsDb } from './repair';
import { RunStore } from './store';

const dir = mkdtempSync(join(tmpdir(), 'workbench-repair-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('runs DB corruption', () => {
  it('open refuses a damaged file with RUNS_DB_CORRUPT naming it and the repair command', () => {
    const clean = join(dir, 'clean-1.db');
    buildDb(clean);
    // A copy this process has never opened: the once-per-process check runs on it.
    const f = join(dir, 'damaged-1.db');
    copyFileSync(clean, f);
    corruptAnswersPage(f);
    const before = readFileSync(f);
    let caught: unknown;
    try {
      RunStore.open(f);
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 'RUNS_DB_CORRUPT', where: f });
    expect((caught as Error).message).toMatch(
      new RegExp(
        `^runs database ${f} is damaged \\(.+\\); the file was not changed; run "npm run -s cli -- runs repair --runs-db ${f}"`,
      ),
    );
    expect(readFileSync(f).equals(before)).toBe(true);
  });

  it('repair copies every readable row into a fresh file and keeps the damaged one', () => {
    const clean = join(dir, 'clean-2.db');
    const total = buildDb(clean);
    const f = join(dir, 'damaged-2.db');
    copyFileSync(clean, f);
    corruptAnswersPage(f);
    const damaged = readFileSync(f);

    const report = repairRunsDb(f, { now: () => Date.UTC(2025, 0, 2, 3, 4, 5, 6) });
    expect(report.problems.length).toBeGreaterThan(0);
    expect(report.damagedCopy).toBe(`${f}.corrupt-20250102T030405-006Z`);
    expect(readFileSync(report.damagedCopy as string).equals(damaged)).toBe(true);
    expect(report.runs).toEqual(RUNS);
    const answers = report.tables.find((t) => t.table === 'answers');
    const lost = total - (answers?.recovered ?? 0);
    // Only the rows of the one overwritten page are gone (a 4 KiB page holds a handful).
    expect(lost).toBeGreaterThan(0);
    expect(lost).toBeLessThan(10);
    expect(answers?.unreadable).toHaveLength(1);
    for (const table of ['runs', 'run_samples', 'tests']) {
      expect(report.tables.find((t) => t.table === table)?.unreadable).toEqual([]);
    }

    const store = RunStore.open(f);
    expect(
      store
        .listRuns()
        .map((r) => r.id)
        .sort(),
    ).toEqual(RUNS);
    let readable = 0;
    for (const runId of RUNS) {
      expect(store.getRun(runId).status).toBe('completed');
      readable += store.answersByTest(runId).length;
    }
    expect(readable).toBe(answers?.recovered);
    store.close();
  });

  it('repair leaves an intact file alone', () => {
    const f = join(dir, 'intact.db');
    buildDb(f);
    const before = readFileSync(f);
    const report = repairRunsDb(f);
    expect(report).toMatchObject({ problems: [], damagedCopy: null, tables: [] });
    expect(readFileSync(f).equals(before)).toBe(true);
    expect(existsSync(`${f}.repair-${process.pid}.tmp`)).toBe(false);
  });
});
