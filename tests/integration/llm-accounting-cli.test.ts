import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadDatasetFile } from '../../src-main/core/dataset/load';
import { planTests } from '../../src-main/core/dataset/testPlan';
import { RunStore } from '../../src-main/core/runs/store';
import { openSqlite } from '../../src-main/core/sqlite';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../support/fake-openai-server';

/**
 * What a run says it spent, against what the server saw: the real CLI in a child process, the fake
 * OpenAI-compatible server in this one. A run killed with SIGKILL in the middle of a test and then
 * resumed reports exactly the requests the server received; a run whose every call is refused
 * (a wrong key) ends `failed` with a non-zero exit, not `completed`.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const dir = mkdtempSync(join(tmpdir(), 'workbench-llm-accounting-'));
const KEY_ENV = 'MW_TEST_LLM_ACCOUNTING_API_KEY';
const KEY = 'sk-test-accounting-3c7e01';

let server: FakeOpenAIServer;
/** From this many chat requests on, the server never answers (the run is killed meanwhile). */
let hangFrom: number | null = null;
beforeAll(async () => {
  server = await startFakeOpenAIServer({
    apiKey: KEY,
    chat: async () => {
      const seen = server.requests.filter((r) => r.path === '/v1/chat/completions').length;
      if (hangFrom !== null && seen >= hangFrom) await new Promise(() => undefined);
      return 'Paris';
    },
  });
});
afterEach(() => {
  hangFrom = null;
  server.setFault(null);
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function start(args: string[], key = KEY): { child: ChildProcess; done: Promise<Result> } {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(repo, 'src-main/cli/main.ts'), ...args],
    { cwd: repo, env: { ...process.env, [KEY_ENV]: key, MEMORY_WORKBENCH_DATA: dir } },
  );
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const done = new Promise<Result>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, out, err }));
  });
  return { child, done };
}

interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

const chatRequests = (): number =>
  server.requests.filter((r) => r.path === '/v1/chat/completions').length;

function llmArgs(db: string): string[] {
  return [
    '--samples',
    'mini-1',
    '--answerer',
    'llm',
    '--base-url',
    server.url,
    '--model',
    'fake-chat',
    '--api-key-env',
    KEY_ENV,
    '--runs-db',
    db,
    // The counts below are mini-1's questions with evidence (5 final answers).
    '--exclude-no-evidence',
    // The counts are the run's own calls; the preflight call is tested on its own below, and
    // every request is sent (none answered by the response cache an earlier test filled).
    '--no-preflight',
    '--no-cache',
    // One question at a time, so "the second question of the third test" is the one request in
    // flight when the kill lands (LLM runs default to many in flight).
    '--concurrency',
    '1',
  ];
}

/** What the runs DB has on disk now, read by another connection (the CLI may still be running). */
function onDisk(db: string): { runId: string | null; calls: number; answers: number } {
  const sqlite = openSqlite(db, { readonly: true, fileMustExist: true });
  try {
    const run = sqlite.prepare('SELECT id FROM runs').get() as { id: string } | undefined;
    const calls = sqlite.prepare('SELECT COALESCE(SUM(calls), 0) AS n FROM llm_calls').get() as {
      n: number;
    };
    const answers = sqlite.prepare('SELECT count(*) AS n FROM answers').get() as { n: number };
    return { runId: run?.id ?? null, calls: calls.n, answers: answers.n };
  } finally {
    sqlite.close();
  }
}

async function until(what: string, condition: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('LLM call accounting through the CLI', () => {
  it('counts every call across a SIGKILL mid-test and a resume: recorded == received', async () => {
    const db = join(dir, 'killed.db');
    server.requests.length = 0;
    // Hang on the second question of mini-1's third test: the kill lands inside that test.
    const sample = (await loadDatasetFile(mini)).samples.find((s) => s.sampleId === 'mini-1');
    const perTest = planTests(sample!).tests.map((t) => t.questionIndices.length);
    expect(perTest.length).toBeGreaterThanOrEqual(3);
    const committedBefore = (perTest[0] ?? 0) + (perTest[1] ?? 0);
    const madeBefore = committedBefore + 2;
    hangFrom = madeBefore;
    const first = start(['experiment', '--data', mini, ...llmArgs(db)]);
    await until('the request that hangs', () => chatRequests() >= madeBefore);
    // Every request the server saw is on disk before any kill, the one still in flight included.
    await until('the ledger to catch up', () => onDisk(db).calls === madeBefore, 10_000);
    first.child.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    const afterKill = onDisk(db);
    expect(afterKill.calls).toBe(chatRequests());
    // Only the first two tests were committed: their answer rows alone miss two calls.
    expect(afterKill.answers).toBe(committedBefore);

    const runId = afterKill.runId as string;
    // Before any resume, the killed run's manifest already shows what it spent.
    const killedStore = RunStore.open(db);
    const killedRun = killedStore.getRun(runId);
    killedStore.close();
    expect(killedRun.status).toBe('interrupted');
    expect(killedRun.manifest.usage?.answer.calls).toBe(madeBefore);

    hangFrom = null;
    const resumed = await start([
      'resume',
      runId,
      '--runs-db',
      db,
      '--json',
      '--no-preflight',
      '--no-cache',
    ]).done;
    expect(resumed.err).not.toContain('error:');
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.out)).toMatchObject({ runId, status: 'completed' });

    const store = RunStore.open(db);
    const usage = store.getRun(runId).manifest.usage?.answer;
    store.close();
    // Those before the kill, then every test from the third on, asked in full.
    const after = perTest.slice(2).reduce((n, q) => n + q, 0);
    expect(chatRequests()).toBe(madeBefore + after);
    expect(usage?.calls).toBe(chatRequests());
    expect(usage?.failures).toBe(0);
  }, 90_000);

  it('ends a run whose every call is refused (401) as failed, exit 1, every call counted', async () => {
    const db = join(dir, 'refused.db');
    server.requests.length = 0;
    const run = await start(
      [
        'experiment',
        // Relative on purpose: the run must store where the file really is.
        '--data',
        relative(repo, mini),
        ...llmArgs(db),
        '--json',
      ],
      'sk-wrong-key-0000',
    ).done;
    expect(run.code).toBe(1);
    const result = JSON.parse(run.out) as { runId: string; status: string; error: string };
    expect(result.status).toBe('failed');
    expect(result.error).toBe('every final answer is an error (5 of 5)');
    const store = RunStore.open(db);
    const info = store.getRun(result.runId);
    store.close();
    expect(info.status).toBe('failed');
    expect(info.manifest.usage?.answer).toMatchObject({
      calls: chatRequests(),
      failures: chatRequests(),
    });
    expect(info.manifest.dataset.path).toBe(mini);
    expect(info.manifest.config.datasetPath).toBe(mini);
  }, 60_000);

  it('refuses to start a run whose endpoint refuses the key (preflight), with a hint', async () => {
    const db = join(dir, 'preflight.db');
    server.requests.length = 0;
    const args = llmArgs(db).filter((a) => a !== '--no-preflight' && a !== '--no-cache');
    const run = await start(['experiment', '--data', mini, ...args], 'sk-wrong-key-0000').done;
    expect(run.code).not.toBe(0);
    expect(run.err).toMatch(
      /preflight: the run was not started: answerer fake-chat at http:\/\/127\.0\.0\.1:\d+\/v1: .*HTTP 401.*\(hint: The server refused the key \(HTTP 401\)/,
    );
    // One call, and no run.
    expect(chatRequests()).toBe(1);
    expect(onDisk(db).runId).toBeNull();
  }, 60_000);

  it('ends a run above --max-error-share as degraded with exit code 3, and below it as completed', async () => {
    const db = join(dir, 'degraded.db');
    // One answer fails for good (a 400 is not retried): the very last one asked, which is final.
    const sample = (await loadDatasetFile(mini)).samples.find((s) => s.sampleId === 'mini-1');
    const answersAsked = planTests(sample!)
      .tests.map((t) => t.questionIndices.length)
      .reduce((n, q) => n + q, 0);
    let asked = 0;
    server.setFault(
      {
        kind: 'transform',
        fn: (response) =>
          ++asked === answersAsked
            ? { status: 400, json: { error: { message: 'bad request' } } }
            : response,
      },
      { path: '/v1/chat/completions', times: answersAsked },
    );
    const degraded = await start([
      'experiment',
      '--data',
      mini,
      ...llmArgs(db),
      '--max-error-share',
      '0.1',
    ]).done;
    expect(degraded.code).toBe(3);
    expect(degraded.out).toContain(
      'degraded: 1 of 5 final answers are errors (20%, more than maxErrorShare 10%)',
    );
    expect(degraded.out).not.toContain('resume');

    asked = 0;
    server.setFault(null);
    server.setFault(
      {
        kind: 'transform',
        fn: (response) =>
          ++asked === answersAsked
            ? { status: 400, json: { error: { message: 'bad request' } } }
            : response,
      },
      { path: '/v1/chat/completions', times: answersAsked },
    );
    const tolerated = await start([
      'experiment',
      '--data',
      mini,
      ...llmArgs(db),
      '--max-error-share',
      '0.25',
    ]).done;
    expect(tolerated.code).toBe(0);
    server.setFault(null);
  }, 60_000);
});
