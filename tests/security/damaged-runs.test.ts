import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src-main/core/sqlite';
import { SqliteRunReader } from '../../src-main/core/runs/reader';
import { runCli } from '../support/cli';
import { buildDb } from '../support/runs-db';

/**
 * Issue 39 item 9: one run whose stored manifest or summary did not parse made `runs list` fail
 * for every run, `runs repair` said there was no damage, and `rescore` could not rebuild the
 * summary. A real runs DB whose rows SQLite reads fine but the product cannot parse.
 */

const dir = mkdtempSync(join(tmpdir(), 'workbench-sec-damaged-runs-'));
const file = join(dir, 'runs.db');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(() => {
  buildDb(file);
  const db = openSqlite(file);
  db.prepare('UPDATE runs SET manifest = ? WHERE id = ?').run('{"runId": "run-b", ', 'run-b');
  db.prepare('UPDATE runs SET summary = ? WHERE id = ?').run('{"overall": 7}', 'run-c');
  db.close();
});

describe('a damaged run never hides the others (issue 39 item 9)', () => {
  it('runs list (the runs.list call the Runs view makes) names the damaged runs and lists the rest', async () => {
    const reader = SqliteRunReader.openReadOnly(file);
    const runs = reader.listRuns();
    reader.close();
    expect(runs.map((r) => r.id).sort()).toEqual(['run-a', 'run-b', 'run-c']);
    expect(runs.find((r) => r.id === 'run-a')?.damaged).toBeUndefined();
    expect(runs.find((r) => r.id === 'run-b')?.damaged).toMatch(/^manifest: not valid JSON/);
    expect(runs.find((r) => r.id === 'run-c')?.damaged).toMatch(/^summary: /);

    const r = await runCli(['runs', 'list', '--runs-db', file]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^run-a {2}completed/m);
    expect(r.out).toMatch(/^run-b {2}damaged: manifest: not valid JSON/m);
    expect(r.out).toMatch(/^run-c {2}damaged: summary: /m);
  });

  it('runs repair reports the damaged runs although every page is intact', async () => {
    const r = await runCli(['runs', 'repair', '--runs-db', file]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('integrity_check found no damage; nothing was changed, but 2 run(s)');
    expect(r.out).toMatch(/^ {2}run run-b: damaged: manifest: not valid JSON/m);
    expect(r.out).toMatch(/^ {2}run run-c: damaged: summary: /m);
    const json = await runCli(['runs', 'repair', '--runs-db', file, '--json']);
    expect(JSON.parse(json.out)).toMatchObject({
      outcome: 'intact',
      damagedRuns: [
        { runId: 'run-c', damaged: expect.stringMatching(/^summary/) as unknown },
        { runId: 'run-b', damaged: expect.stringMatching(/^manifest/) as unknown },
      ],
    });
  });

  it('rescore rebuilds a broken summary from the stored answers', async () => {
    const r = await runCli(['rescore', 'run-c', '--runs-db', file]);
    expect(r.err).not.toMatch(/error/);
    expect(r.code).toBe(0);
    const reader = SqliteRunReader.openReadOnly(file);
    const run = reader.listRuns().find((x) => x.id === 'run-c');
    const intact = reader.listRuns().find((x) => x.id === 'run-a');
    reader.close();
    expect(run?.damaged).toBeUndefined();
    expect(run?.summary).not.toBeNull();
    // Rebuilt, not the broken value: it has the shape of an intact run's summary.
    expect(Object.keys(run?.summary ?? {}).sort()).toEqual(
      Object.keys(intact?.summary ?? {}).sort(),
    );
    expect(run?.summary).not.toHaveProperty('overall', 7);
  });
});
