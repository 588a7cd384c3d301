import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src-main/core/sqlite';
import { openRunsDb } from '../../src-main/core/runs/db';
import { repairRunsDb, type RepairReport } from '../../src-main/core/runs/repair';
import { runCli } from '../support/cli';
import { RUNS, buildDb, corruptHeader, corruptLeafPage, tableCounts } from '../support/runs-db';

/**
 * Issue 23 item 2: `runs repair` must copy every table the schema has, say per table what it
 * recovered and lost, keep the damaged original, and fail (leaving the file alone) when it
 * recovered nothing. Real runs databases made by the product's store, damaged byte by byte.
 */

const dir = mkdtempSync(join(tmpdir(), 'workbench-security-repair-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const clean = join(dir, 'clean.db');
buildDb(clean);
const cleanCounts = tableCounts(clean);

let copies = 0;
function damagedCopy(damage: (file: string) => void): string {
  const file = join(dir, `damaged-${++copies}.db`);
  copyFileSync(clean, file);
  damage(file);
  return file;
}

/** The tables a freshly migrated runs database has, read from SQLite itself. */
function freshSchemaTables(): string[] {
  const file = join(dir, `fresh-${++copies}.db`);
  openRunsDb(file).close();
  const db = openSqlite(file, { readonly: true });
  try {
    return (
      db
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .all() as Array<{ name: string }>
    ).map((r) => r.name);
  } finally {
    db.close();
  }
}

const recoveredOf = (report: RepairReport, table: string): number | undefined =>
  report.tables.find((t) => t.table === table)?.recovered;

describe('runs repair loses nothing readable (issue 23 item 2)', () => {
  it('every table of the schema holds rows in the fixture, so leaving one out is seen', () => {
    const tables = freshSchemaTables();
    expect(tables).toEqual(
      expect.arrayContaining(['answer_scores', 'llm_calls', 'protocol_judge_scores']),
    );
    for (const table of tables) expect(cleanCounts[table], table).toBeGreaterThan(0);
  });

  it('copies every table the migrations create; a table a new migration adds fails here until repair copies it', () => {
    const file = damagedCopy((f) => corruptLeafPage(f, 'answers'));
    const report = repairRunsDb(file);
    expect(report.outcome).toBe('repaired');
    expect(report.tables.map((t) => t.table).sort()).toEqual(freshSchemaTables());
    // Only the answers page was damaged: every other table comes back whole (scores of the lost
    // answers are kept as orphans, listed in the report).
    for (const [table, count] of Object.entries(cleanCounts)) {
      if (table === 'answers') continue;
      expect(recoveredOf(report, table), table).toBe(count);
    }
    expect(tableCounts(file)).toMatchObject(
      Object.fromEntries(Object.entries(cleanCounts).filter(([t]) => t !== 'answers')),
    );
    expect(report.orphans['answer_scores']).toBeGreaterThan(0);
    expect(report.recovered).toBe(report.tables.reduce((s, t) => s + t.recovered, 0));
  });

  it('a bad page in the middle of a WITHOUT ROWID table costs only that page: the scan goes on past it', () => {
    let pageRows = 0;
    const file = damagedCopy((f) => (pageRows = corruptLeafPage(f, 'answer_scores')));
    const report = repairRunsDb(file);
    const scores = report.tables.find((t) => t.table === 'answer_scores');
    const total = cleanCounts['answer_scores'] as number;
    const lost = total - (scores?.recovered ?? 0);
    expect(pageRows).toBeGreaterThan(0);
    expect(lost).toBeGreaterThanOrEqual(pageRows);
    // The page's own rows, plus at most the rest of the last answer read before it (4 metrics).
    expect(lost).toBeLessThanOrEqual(pageRows + 4);
    expect(scores?.unreadableKeys).toHaveLength(1);
    const range = scores?.unreadableKeys[0];
    expect(range?.after).not.toBeNull();
    expect(range?.before).not.toBeNull();
    for (const table of ['runs', 'answers', 'protocol_judge_scores', 'llm_calls']) {
      expect(recoveredOf(report, table), table).toBe(cleanCounts[table]);
    }
  });

  it('CLI: reports per table what it recovered and lost, keeps the damaged original, exits 0', async () => {
    const file = damagedCopy((f) => corruptLeafPage(f, 'answer_scores'));
    const damaged = readFileSync(file);
    const result = await runCli(['runs', 'repair', '--runs-db', file]);
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    for (const table of freshSchemaTables()) {
      expect(result.out).toMatch(new RegExp(`^  ${table} +\\d+ rows recovered; `, 'm'));
    }
    expect(result.out).toMatch(
      /^ {2}answer_scores +\d+ rows recovered; lost unreadable keys after \(/m,
    );
    expect(result.out).toMatch(/^ {2}answers +\d+ rows recovered; no unreadable page met$/m);
    const kept = result.out.match(/the damaged file is kept as (.+)$/m)?.[1] ?? '';
    expect(kept).not.toBe(file);
    expect(readFileSync(kept).equals(damaged)).toBe(true);
    expect(result.out).toMatch(new RegExp(`${RUNS.length} run\\(s\\) in the repaired database`));
  });

  it('CLI: a destroyed header recovers nothing: exit 1, the file left byte for byte, no empty database in its place', async () => {
    const file = damagedCopy(corruptHeader);
    const damaged = readFileSync(file);
    const result = await runCli(['runs', 'repair', '--runs-db', file]);
    expect(result.code).toBe(1);
    expect(result.err).toContain(
      `error RUNS_DB_CORRUPT: runs repair could not read a single row of ${file}; the file was left exactly as it was`,
    );
    expect(readFileSync(file).equals(damaged)).toBe(true);
    const besides = readdirSync(dir).filter((f) => f.startsWith(`${basename(file)}.`));
    expect(besides).toEqual([]);

    const json = await runCli(['runs', 'repair', '--runs-db', file, '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toMatchObject({
      outcome: 'nothing-recovered',
      recovered: 0,
      damagedCopy: null,
    });
  });
});
