import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  defaultChatReply,
  startFakeOpenAIServer,
  type FakeChatRequest,
  type FakeOpenAIServer,
} from '../support/fake-openai-server';

/**
 * `rescore <run> --judge <protocol>` (issue 11 item 8) on a real run of the deterministic test
 * preset, judged by the local fake OpenAI server: verdicts are stored per protocol, the answers
 * and their scores stay byte for byte, and `report` shows J per protocol.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const dir = mkdtempSync(join(tmpdir(), 'workbench-rescore-judge-'));
const db = join(dir, 'runs.db');
const env = {
  ...process.env,
  MEMORY_WORKBENCH_DATA: join(dir, 'data'),
  MEMORY_WORKBENCH_EXTRA_PRESETS: join(repo, 'tests/fixtures/experiment/test-presets.ts'),
};
const cliArgs = ['--import', 'tsx', join(repo, 'src-main/cli/main.ts')];

/** Asynchronous: the fake judge answers from this process while the CLI runs. */
async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const r = await promisify(execFile)(process.execPath, [...cliArgs, ...args], {
      cwd: repo,
      env,
      encoding: 'utf8',
    });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, out: e.stdout ?? '', err: e.stderr ?? '' };
  }
}

function rows(sql: string): unknown[] {
  const conn = new Database(db, { readonly: true });
  try {
    return conn.prepare(sql).all();
  } finally {
    conn.close();
  }
}

const answersAndScores = (): unknown[] => [
  ...rows('SELECT * FROM answers ORDER BY sample_id, test_index, question_index'),
  ...rows('SELECT * FROM answer_scores ORDER BY sample_id, test_index, question_index, metric'),
];

let server: FakeOpenAIServer;
let runId: string;
const judgePrompts: string[] = [];

beforeAll(async () => {
  server = await startFakeOpenAIServer({
    // The fake's default reply (CORRECT when the answer contains the gold), recording the prompt.
    chat: (chat: FakeChatRequest) => {
      judgePrompts.push(chat.messages.at(-1)?.content ?? '');
      return defaultChatReply(chat);
    },
  });
  const run = spawnSync(
    process.execPath,
    [
      ...cliArgs,
      'experiment',
      '--data',
      mini,
      '--preset',
      'test-recency',
      '--runs-db',
      db,
      '--json',
    ],
    { cwd: repo, env, encoding: 'utf8' },
  );
  expect(run.status, run.stderr).toBe(0);
  runId = (JSON.parse(run.stdout) as { runId: string }).runId;
}, 120_000);

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('rescore --judge', () => {
  const judgeFlags = (protocol: string): string[] => [
    '--judge',
    protocol,
    '--judge-base-url',
    server.url,
    '--judge-model',
    'fake-judge',
    '--runs-db',
    db,
  ];

  it('stores J per protocol without touching answers, and report shows each', async () => {
    const before = answersAndScores();
    const finalJudged = rows(
      `SELECT a.sample_id FROM answers a
       JOIN (SELECT sample_id, question_index, MAX(test_index) AS t FROM answers GROUP BY 1, 2) f
         ON a.sample_id = f.sample_id AND a.question_index = f.question_index AND a.test_index = f.t
       WHERE a.category != 5`,
    ).length;
    expect(finalJudged).toBeGreaterThan(0);

    const strict = await cli('rescore', runId, ...judgeFlags('strict'));
    expect(strict.err).toBe('');
    expect(strict.code).toBe(0);
    expect(judgePrompts.length).toBeGreaterThan(0);
    expect(judgePrompts.every((p) => p.includes('Generated answer:'))).toBe(true);
    expect(strict.out).toContain(`judged ${finalJudged} final answers under strict (fake-judge)`);
    expect(strict.out).toContain('J per judge protocol (rescore --judge)');

    const stored = rows(
      "SELECT protocol, model, mean FROM protocol_judge_scores WHERE protocol = 'strict'",
    ) as Array<{ protocol: string; model: string; mean: number | null }>;
    expect(stored).toHaveLength(finalJudged);
    expect(stored.every((r) => r.model === 'fake-judge' && (r.mean === 0 || r.mean === 1))).toBe(
      true,
    );

    const callsAfterStrict = judgePrompts.length;
    const mem0 = await cli('rescore', runId, ...judgeFlags('mem0'), '--json');
    expect(mem0.code).toBe(0);
    const result = JSON.parse(mem0.out) as { metrics: string[]; judge: { protocol: string } };
    // --judge alone rescores no metric.
    expect(result.metrics).toEqual([]);
    expect(result.judge.protocol).toBe('mem0');
    expect(judgePrompts.slice(callsAfterStrict).some((p) => p.includes('Hawaii'))).toBe(true);

    // The answers, every metric value and the run's own J are as the run left them.
    expect(answersAndScores()).toEqual(before);

    const report = await cli('report', runId, '--runs-db', db);
    expect(report.code).toBe(0);
    const table = report.out.slice(report.out.indexOf('J per judge protocol'));
    expect(table.split('\n')[1]).toMatch(/^category\s+J mem0\s+J strict$/);
    const mean = (
      rows("SELECT AVG(mean) AS m FROM protocol_judge_scores WHERE protocol = 'strict'")[0] as {
        m: number;
      }
    ).m;
    expect(table).toMatch(
      new RegExp(
        `^overall\\s+\\S+ \\(${finalJudged}\\)\\s+${mean.toFixed(3)} \\(${finalJudged}\\)$`,
        'm',
      ),
    );

    // Judging again under the same protocol and model asks the judge nothing (judge cache).
    const callsBefore = judgePrompts.length;
    const again = await cli('rescore', runId, ...judgeFlags('strict'));
    expect(again.code).toBe(0);
    expect(judgePrompts.length).toBe(callsBefore);
  }, 180_000);

  it('needs an endpoint when the run had no judge', async () => {
    const r = await cli('rescore', runId, '--judge', 'strict', '--runs-db', db);
    expect(r.code).toBe(2);
    expect(r.err).toContain(
      `--judge needs --judge-base-url and --judge-model (run ${runId} had no judge to reuse)`,
    );
  }, 60_000);
});
