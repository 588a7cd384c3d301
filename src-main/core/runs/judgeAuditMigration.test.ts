import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { insertOldSchemaRun } from '../../../tests/support/runs-db';
import { fixtureManifest } from '../../../tests/support/runs-fixture';
import { openRunsDb } from './db';
import { MIGRATIONS } from './migrations';
import { RunStore } from './store';

const dir = mkdtempSync(join(tmpdir(), 'workbench-audit-migration-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Found by what it creates, not by number: the lead renumbers migrations at merge.
const index = MIGRATIONS.findIndex((m) => m.up.includes('CREATE TABLE judge_audit_sets'));
const audit = MIGRATIONS[index]!;
const before = MIGRATIONS[index - 1]!;

const tables = (db: ReturnType<typeof openRunsDb>): string[] =>
  (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{
      name: string;
    }>
  ).map((t) => t.name);

describe('the judge audit migration', () => {
  it('adds the audit tables to an older file and keeps its runs and judge cache readable', () => {
    expect(index).toBeGreaterThan(0);
    const file = join(dir, 'runs.db');
    const old = openRunsDb(file, { targetVersion: before.version });
    const oldTables = tables(old);
    insertOldSchemaRun(old, fixtureManifest('r1'));
    old
      .prepare(
        "INSERT INTO judge_cache (key, model, prompt_sha256, repeat, label, reason, created_at) VALUES ('k', 'm', 'p', 0, 'CORRECT', 'r', 't')",
      )
      .run();
    old.close();

    const migrated = openRunsDb(file, { targetVersion: audit.version });
    expect(migrated.pragma('user_version', { simple: true })).toBe(audit.version);
    expect(tables(migrated)).toEqual(
      [...oldTables, 'judge_audit_items', 'judge_audit_sets', 'judge_audit_verdicts'].sort(),
    );
    migrated.close();

    const store = RunStore.open(file);
    try {
      expect(store.getRun('r1').status).toBe('completed');
      expect(store.finalAnswers('r1').map((a) => a.prediction)).toEqual(['a']);
      expect(store.judgeCache().get('k')).toEqual({ label: 'CORRECT', reason: 'r' });
    } finally {
      store.close();
    }
  });

  it('deletes a set’s items and verdicts with it (and refuses a verdict for no item)', () => {
    const store = RunStore.open(join(dir, 'cascade.db'));
    try {
      const db = store.db;
      db.prepare(
        "INSERT INTO judge_audit_sets VALUES ('s1', 't', 'locomo', 'd.json', 'x', 0, 1, 1)",
      ).run();
      db.prepare(
        "INSERT INTO judge_audit_items VALUES ('s1', 0, 'conv', 0, 4, 'gold', 'q', 'g', 'g', 'correct')",
      ).run();
      const verdict = db.prepare(
        "INSERT INTO judge_audit_verdicts VALUES ('s1', ?, 'mem0', 'm', 'http://h', 'p', 1, '[1]', NULL, 't')",
      );
      verdict.run(0);
      expect(() => verdict.run(1)).toThrow(/FOREIGN KEY/);
      db.prepare("DELETE FROM judge_audit_sets WHERE id = 's1'").run();
      expect(db.prepare('SELECT count(*) AS n FROM judge_audit_verdicts').get()).toEqual({ n: 0 });
    } finally {
      store.close();
    }
  });
});
