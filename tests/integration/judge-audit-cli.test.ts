import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_ANSWER_CLASS_IDS } from '../../src-shared/judgeAudit';
import { REPO, runCli } from '../support/cli';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../support/fake-openai-server';

/**
 * `cli judge-audit` over the small LoCoMo fixture, judged by the fake server's literal judge
 * (CORRECT when the generated answer contains the gold, case-insensitive): the per-class table it
 * prints is that judge's acceptance of each stored class, and the set is found again later.
 */
const mini = join(REPO, 'tests/fixtures/locomo/mini.json');
const dir = mkdtempSync(join(tmpdir(), 'workbench-judge-audit-cli-'));
const db = join(dir, 'runs.db');
const env = { MEMORY_WORKBENCH_DATA: join(dir, 'data') };
let server: FakeOpenAIServer;

beforeAll(async () => {
  server = await startFakeOpenAIServer();
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

interface StoredItem {
  answer_class: string;
  gold: string;
  answer: string;
}

function storedItems(): StoredItem[] {
  const conn = new Database(db, { readonly: true });
  try {
    return conn
      .prepare('SELECT answer_class, gold, answer FROM judge_audit_items ORDER BY item_index')
      .all() as StoredItem[];
  } finally {
    conn.close();
  }
}

/** The table row of a class: `  <class> <truth> <n> <accepted%>  [low, high]`. */
function row(out: string, answerClass: string): { n: number; accepted: string } | undefined {
  const match = new RegExp(`^  ${answerClass} +(correct|wrong) +(\\d+) +(\\S+)`, 'm').exec(out);
  return match ? { n: Number(match[2]), accepted: match[3] as string } : undefined;
}

describe('cli judge-audit', () => {
  it('builds the set, judges it and prints the acceptance of every class', async () => {
    const r = await runCli(
      [
        'judge-audit',
        mini,
        '--runs-db',
        db,
        '--judge-base-url',
        server.url,
        '--judge-model',
        'literal-judge',
      ],
      env,
    );
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^judge audit audit-[0-9a-f]{16}: \d+ answers of known truth/m);
    expect(r.out).toContain('built now');
    expect(r.out).toContain(`judge mem0 · literal-judge @ ${new URL(server.url).origin}`);
    const items = storedItems();
    expect(new Set(items.map((i) => i.answer_class)).size).toBeGreaterThanOrEqual(5);
    for (const answerClass of AUDIT_ANSWER_CLASS_IDS) {
      const ofClass = items.filter((i) => i.answer_class === answerClass);
      if (ofClass.length === 0) continue;
      const accepted = ofClass.filter((i) =>
        i.answer.toLowerCase().includes(i.gold.trim().toLowerCase()),
      ).length;
      expect(row(r.out, answerClass)).toEqual({
        n: ofClass.length,
        accepted: `${((100 * accepted) / ofClass.length).toFixed(1)}%`,
      });
    }
    // This literal judge accepts every gold, and so every hedge and verbose answer that holds it.
    expect(row(r.out, 'gold')?.accepted).toBe('100.0%');
    expect(row(r.out, 'verbose')?.accepted).toBe('100.0%');
    expect(row(r.out, 'wrong-date')?.accepted).toBe('0.0%');
    expect(r.out).toMatch(
      /^ {2}in a headline: judge accepts \d+% \[\d+%, \d+%\] of known-wrong answers \(audit, n = \d+\)$/m,
    );
    expect(r.out).toContain('accepted by category (n)');
    expect(r.out).toMatch(/^ {2}gold +100\.0% \(\d+\)/m);
  });

  it('finds the stored set again without a judge and shows the verdicts it holds', async () => {
    const before = server.requests.length;
    const r = await runCli(['judge-audit', mini, '--runs-db', db, '--json'], env);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as {
      set: { id: string; answers: number };
      judges: Array<{ judge: { model: string }; table: { trueAcceptance: { estimate: number } } }>;
    };
    expect(report.set.answers).toBe(storedItems().length);
    expect(report.judges.map((j) => j.judge.model)).toEqual(['literal-judge']);
    expect(report.judges[0]?.table.trueAcceptance.estimate).toBe(1);
    expect(server.requests.length).toBe(before);
  });
});
