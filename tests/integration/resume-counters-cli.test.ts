import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDatasetFile } from '../../src-main/core/dataset/load';
import { planTests } from '../../src-main/core/dataset/testPlan';
import { RunStore } from '../../src-main/core/runs/store';
import { openSqlite } from '../../src-main/core/sqlite';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../support/fake-openai-server';

/**
 * The response cache's counters over every launch of a run: the real CLI in a child process with
 * the cache on, killed with SIGKILL while a request hangs, then resumed. The killed launch never
 * wrote its manifest, so its hits and misses survive only if they were filed as they happened.
 * The final manifest's answer-cache misses must equal the requests the fake server received, and
 * hits plus misses every answer looked up: the killed launch's (read from the file after the kill)
 * plus the resumed launch's (every question of every test it ran).
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const dir = mkdtempSync(join(tmpdir(), 'workbench-resume-counters-'));

let server: FakeOpenAIServer;
let hangFrom: number | null = null;
const chatRequests = (): number =>
  server.requests.filter((r) => r.path === '/v1/chat/completions').length;
beforeAll(async () => {
  server = await startFakeOpenAIServer({
    chat: async () => {
      if (hangFrom !== null && chatRequests() >= hangFrom) await new Promise(() => undefined);
      return 'Paris';
    },
  });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function start(args: string[]): { child: ChildProcess; done: Promise<{ code: number | null }> } {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(repo, 'src-main/cli/main.ts'), ...args],
    { cwd: repo, env: { ...process.env, MEMORY_WORKBENCH_DATA: join(dir, 'data') } },
  );
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const done = new Promise<{ code: number | null }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0 && code !== null) process.stderr.write(err);
      resolve({ code });
    });
  });
  return { child, done };
}

/** The answer role's ledger as the file holds it now, read over SQL by another connection. */
function answerLedger(db: string): { runId: string; calls: number; hits: number; misses: number } {
  const sqlite = openSqlite(db, { readonly: true, fileMustExist: true });
  try {
    const run = sqlite.prepare('SELECT id FROM runs').get() as { id: string };
    const sums = sqlite
      .prepare(
        "SELECT COALESCE(SUM(calls), 0) AS calls, COALESCE(SUM(cache_hits), 0) AS hits, COALESCE(SUM(cache_misses), 0) AS misses FROM llm_calls WHERE role = 'answer'",
      )
      .get() as { calls: number; hits: number; misses: number };
    return { runId: run.id, ...sums };
  } finally {
    sqlite.close();
  }
}

/** Tests committed in the file so far (0 before it exists). */
function testsIn(db: string): number {
  try {
    const sqlite = openSqlite(db, { readonly: true, fileMustExist: true });
    try {
      return (sqlite.prepare('SELECT count(*) AS n FROM tests').get() as { n: number }).n;
    } finally {
      sqlite.close();
    }
  } catch {
    return 0;
  }
}

async function until(what: string, condition: () => boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('response-cache counters across a SIGKILL and a resume', () => {
  it("sums the killed launch's hits and misses with the resumed one's", async () => {
    const db = join(dir, 'runs.db');
    const sample = (await loadDatasetFile(mini)).samples.find((s) => s.sampleId === 'mini-1');
    const perTest = planTests(sample!).tests.map((t) => t.questionIndices.length);
    expect(perTest.length).toBeGreaterThanOrEqual(3);
    const args = [
      '--samples',
      'mini-1',
      '--answerer',
      'llm',
      '--base-url',
      server.url,
      '--model',
      'fake-chat',
      '--exclude-no-evidence',
      '--no-preflight',
      '--concurrency',
      '1',
    ];
    // A first run, killed once two tests are in, leaves their replies in the response cache; a
    // second run then finds those tests' requests there (hits) and sends the rest (misses).
    const prefill = join(dir, 'prefill.db');
    hangFrom = Number.POSITIVE_INFINITY;
    const filler = start(['experiment', '--data', mini, ...args, '--runs-db', prefill]);
    await until('two committed tests', () => {
      const committed = testsIn(prefill);
      if (committed >= 2 && hangFrom === Number.POSITIVE_INFINITY) hangFrom = chatRequests();
      return committed >= 2;
    });
    filler.child.kill('SIGKILL');
    await filler.done;
    server.requests.length = 0;
    // The second run hangs on its first request (the server logs it before it answers): the
    // first two tests came from the cache.
    hangFrom = 1;
    const first = start(['experiment', '--data', mini, ...args, '--runs-db', db]);
    await until('the request that hangs', () => chatRequests() >= 1);
    await until('the ledger to catch up', () => answerLedger(db).calls === chatRequests(), 10_000);
    first.child.kill('SIGKILL');
    await first.done;
    const killed = answerLedger(db);
    // The killed launch looked answers up and filed every lookup: hits and misses both.
    expect(killed.hits).toBeGreaterThan(0);
    expect(killed.misses).toBe(chatRequests());
    const testsCommitted = testsIn(db);

    hangFrom = null;
    const resumed = await start(['resume', killed.runId, '--runs-db', db, '--no-preflight']).done;
    expect(resumed.code).toBe(0);
    const store = RunStore.open(db);
    const { manifest } = store.getRun(killed.runId);
    store.close();
    const cache = manifest.answerCache;
    expect(cache?.mode).toBe('on');
    // Every request the server received (in this run's launches) was a lookup the cache missed.
    expect(cache?.misses).toBe(chatRequests());
    expect(manifest.usage?.answer.calls).toBe(chatRequests());
    // The resumed launch asks every question of every test not committed, each looked up once.
    const resumedLookups = perTest.slice(testsCommitted).reduce((n, q) => n + q, 0);
    expect((cache?.hits ?? 0) + (cache?.misses ?? 0)).toBe(
      killed.hits + killed.misses + resumedLookups,
    );
  }, 180_000);
});
