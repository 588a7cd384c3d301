import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliSync, type CliResult } from '../support/cli';

/**
 * `rescore` and `report` on a real runs DB made by a real run (the deterministic test preset on
 * the mini fixture), as child processes the way a user runs them.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const dir = mkdtempSync(join(tmpdir(), 'workbench-rescore-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = {
  ...process.env,
  MEMORY_WORKBENCH_DATA: join(dir, 'data'),
  MEMORY_WORKBENCH_EXTRA_PRESETS: join(repo, 'tests/fixtures/experiment/test-presets.ts'),
};

function cli(...args: string[]): CliResult {
  return runCliSync(args, env);
}

type ScoreRow = {
  sample_id: string;
  test_index: number;
  question_index: number;
  metric: string;
  value: number | null;
};

function scoreRows(db: string): ScoreRow[] {
  const conn = new Database(db, { readonly: true });
  try {
    return conn
      .prepare(
        'SELECT sample_id, test_index, question_index, metric, value FROM answer_scores ORDER BY 1, 2, 3, 4',
      )
      .all() as ScoreRow[];
  } finally {
    conn.close();
  }
}

function edit(db: string, sql: string): void {
  const conn = new Database(db);
  try {
    conn.exec(sql);
  } finally {
    conn.close();
  }
}

describe('rescore CLI', () => {
  const db = join(dir, 'runs.db');
  const run = cli(
    'experiment',
    '--data',
    mini,
    '--preset',
    'test-recency',
    '--runs-db',
    db,
    '--json',
  );
  const runId = (JSON.parse(run.out) as { runId: string }).runId;

  it('rewrites every answer of every test with the pipeline values, idempotently', () => {
    expect(run.code).toBe(0);
    const original = scoreRows(db);
    // More answers than final ones: every test's answers are scored.
    expect(new Set(original.map((r) => `${r.sample_id}/${r.test_index}`)).size).toBeGreaterThan(1);
    // An older run: no LoCoMo recall yet, and official F1 values from another formula.
    edit(
      db,
      "DELETE FROM answer_scores WHERE metric = 'locomoRecall'; UPDATE answer_scores SET value = 0.123 WHERE metric = 'officialF1';",
    );
    expect(scoreRows(db)).not.toEqual(original);

    const first = cli('rescore', runId, '--runs-db', db);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/rescored run \S+: \d+ answers × \d+ metric\(s\)/);
    expect(first.out).toContain('skipped judge: judge metrics need a judge endpoint');
    expect(first.out).toMatch(/overall \(all, official\)\s+0\.\d{3}\s+8/);
    expect(scoreRows(db)).toEqual(original);

    const second = cli('rescore', runId, '--runs-db', db, '--json');
    expect(second.code).toBe(0);
    const result = JSON.parse(second.out) as {
      written: number;
      answers: number;
      metrics: string[];
    };
    expect(result.written).toBe(result.answers * result.metrics.length);
    expect(scoreRows(db)).toEqual(original);
  });

  it('rescores only the metrics asked for, and refuses an unknown one', () => {
    edit(db, "UPDATE answer_scores SET value = 0.5 WHERE metric IN ('setF1', 'officialF1')");
    const r = cli('rescore', runId, '--metrics', 'setF1', '--runs-db', db, '--json');
    expect(r.code).toBe(0);
    const rows = scoreRows(db);
    expect(rows.filter((x) => x.metric === 'setF1').every((x) => x.value !== 0.5)).toBe(true);
    expect(rows.filter((x) => x.metric === 'officialF1').every((x) => x.value === 0.5)).toBe(true);
    const bad = cli('rescore', runId, '--metrics', 'nope', '--runs-db', db);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('no metric "nope"');
    cli('rescore', runId, '--runs-db', db);
  });

  it('prints the run in the papers’ table formats', () => {
    const md = cli('report', runId, '--format', 'locomo', '--as', 'md', '--runs-db', db);
    expect(md.code).toBe(0);
    const lines = md.out.split('\n');
    expect(lines[0]).toBe(
      '| method | single-hop | multi-hop | temporal | open-domain | adversarial | overall |',
    );
    expect(lines[2]).toMatch(
      new RegExp(`^\\| test-recency · ${runId} \\|( (\\d+\\.\\d|–) \\|){6}$`),
    );
    expect(lines[4]).toMatch(/^n: single-hop \d+, .* overall 8\. official F1 ×100/);
    const latex = cli('report', runId, '--format', 'mem0', '--as', 'latex', '--runs-db', db);
    expect(latex.code).toBe(0);
    expect(latex.out).toContain('\\multicolumn{3}{c}{single-hop}');
    // No judge ran: every J cell is LaTeX's en dash.
    expect(latex.out).toMatch(/ & -- \\\\\n\\bottomrule/);
    expect(cli('report', runId, '--as', 'latex', '--runs-db', db).code).toBe(2);
  });
});
