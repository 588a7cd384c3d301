import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ApiHandlers } from '../../src-shared/api';
import { dispatch } from '../../src-main/core/dispatch';
import { openSqlite } from '../../src-main/core/sqlite';
import { printable } from '../../src-main/cli/output';
import { REPO, runCli } from '../support/cli';
import { buildDb } from '../support/runs-db';

/**
 * Issue 39 item 12: run names took control characters, and `cli compare` printed an ESC sequence
 * and a forged line raw. Names are refused with them at the boundary (CLI flag, API); what the
 * CLI prints of any stored or remote string has them escaped (an older runs DB may hold one).
 */

const dir = mkdtempSync(join(tmpdir(), 'workbench-sec-controls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FORGED = 'evil\u001b[2J\u001b[31m\nforged: all checks passed\r\u009b1m\u202e';

describe('control characters in names (issue 39 item 12)', () => {
  it('CLI: experiment --name with control characters is refused, naming the field', async () => {
    const r = await runCli([
      'experiment',
      '--data',
      join(REPO, 'tests/fixtures/locomo/mini.json'),
      '--name',
      FORGED,
      '--runs-db',
      join(dir, 'refused.db'),
    ]);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/name: must not contain control characters/);
    // The refusal quotes nothing raw either.
    expect(r.err).not.toMatch(/\p{Cc}(?<![\n])|\u202e/u);
  });

  it('API: runs.setIdentity refuses a name or tag with control characters, naming the field', async () => {
    for (const [field, value] of [
      ['name', FORGED],
      ['tags', ['ok', 'bad\u0007']],
    ] as const) {
      const result = await dispatch({} as ApiHandlers, 'runs.setIdentity', {
        runId: 'r',
        [field]: value,
      });
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect(result.error.code).toBe('INVALID_INPUT');
      expect(result.error.message).toContain('must not contain control characters');
      expect(result.error.message).toContain(field);
    }
  });

  it('CLI compare prints a stored name with control characters escaped, on its own line', async () => {
    const file = join(dir, 'runs.db');
    buildDb(file);
    // A name stored before the rule (or written by another tool) is printed, not obeyed.
    const db = openSqlite(file);
    db.prepare('UPDATE runs SET name = ? WHERE id = ?').run(FORGED, 'run-a');
    db.close();
    const r = await runCli(['compare', 'run-a', 'run-b', '--runs-db', file]);
    expect(r.code).toBe(0);
    expect(r.out).not.toMatch(/(?![\n])\p{Cc}|\u202e/u);
    expect(r.out).not.toMatch(/^forged/m);
    expect(r.out).toContain('evil\\u001b[2J\\u001b[31m\\u000aforged');
  });

  it('printable escapes every control character and leaves other text alone', () => {
    expect(printable('a\tb\nc\u001b\u007f\u0085\u2066d é 日本')).toBe(
      'a\\u0009b\\u000ac\\u001b\\u007f\\u0085\\u2066d é 日本',
    );
  });
});
