import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDatasetFile } from '../../src-main/core/dataset/load';
import { planTests } from '../../src-main/core/dataset/testPlan';
import { RunStore } from '../../src-main/core/runs/store';
import type { RunManifest } from '../../src-shared/runs';
import { openSqlite } from '../../src-main/core/sqlite';
import { fakeMem0Chat } from '../support/fake-mem0-model';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../support/fake-openai-server';

/**
 * The response cache's counters over every launch of a run: the real CLI in a child process with
 * the cache on, killed with SIGKILL while a request hangs, then resumed. The killed launch never
 * wrote its manifest, so its hits and misses survive only if they were filed as they happened.
 * The final manifest's answer-cache misses must equal the requests the fake server received, and
 * hits plus misses every answer looked up: the killed launch's (read from the file after the kill)
 * plus the resumed launch's (every question of every test it ran). Every other role's counters
 * too: the memory LLM's, the judge's and the embedder's requests and cache counts in the manifest
 * equal the ledger's sums and the requests the fake server logged for that role's model.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const dir = mkdtempSync(join(tmpdir(), 'workbench-resume-counters-'));

let server: FakeOpenAIServer;
/** Answer requests that ask one of these questions hang (the launch is then killed). */
let hangOn: readonly string[] = [];
/** Each role asks its own model, so the server's log says which role sent a request. */
const MODEL = {
  answer: 'fake-chat',
  memory: 'fake-memory',
  judge: 'fake-judge',
  embedder: 'fake-embed',
} as const;
type Role = keyof typeof MODEL;
const requestsOf = (role: Role): number =>
  server.requests.filter((r) => (r.body as { model?: string }).model === MODEL[role]).length;
const chatRequests = (): number => requestsOf('answer');
beforeAll(async () => {
  server = await startFakeOpenAIServer({
    chat: async (chat, request) => {
      if (chat.model === MODEL.judge) return '{"label": "CORRECT"}';
      if (chat.model !== MODEL.answer) return fakeMem0Chat(chat, request);
      const prompt = chat.messages.map((m) => m.content).join('\n');
      if (hangOn.some((question) => prompt.includes(question))) await new Promise(() => undefined);
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
    {
      cwd: repo,
      // MEM0_DIR: where the library would keep its user id file, inside the test's folder.
      env: {
        ...process.env,
        MEMORY_WORKBENCH_DATA: join(dir, 'data'),
        MEM0_DIR: join(dir, 'mem0'),
      },
    },
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

/** A role's ledger as the file holds it now, read over SQL by another connection. */
function ledger(
  db: string,
  role: Role = 'answer',
): { runId: string; calls: number; hits: number; misses: number } {
  const sqlite = openSqlite(db, { readonly: true, fileMustExist: true });
  try {
    const run = sqlite.prepare('SELECT id FROM runs').get() as { id: string };
    const sums = sqlite
      .prepare(
        'SELECT COALESCE(SUM(calls), 0) AS calls, COALESCE(SUM(cache_hits), 0) AS hits, COALESCE(SUM(cache_misses), 0) AS misses FROM llm_calls WHERE role = ?',
      )
      .get(role) as { calls: number; hits: number; misses: number };
    return { runId: run.id, ...sums };
  } finally {
    sqlite.close();
  }
}
const answerLedger = (db: string) => ledger(db, 'answer');

/** Each role's counters as the manifest states them: requests sent, cache hits and misses. */
function manifestCounters(
  m: RunManifest,
): Record<Role, { calls: number; hits: number; misses: number }> {
  return {
    answer: {
      calls: m.usage?.answer.calls ?? 0,
      hits: m.answerCache?.hits ?? 0,
      misses: m.answerCache?.misses ?? 0,
    },
    memory: {
      calls: m.usage?.memory?.calls ?? 0,
      hits: m.memoryCache?.hits ?? 0,
      misses: m.memoryCache?.misses ?? 0,
    },
    // The judge cache is the runs DB's verdicts: a hit is a verdict not asked, a miss is filed
    // for none (each verdict asked is a call).
    judge: { calls: m.usage?.judge?.calls ?? 0, hits: m.judge?.cacheHits ?? 0, misses: 0 },
    embedder: {
      calls: m.embedding?.requests ?? 0,
      hits: m.embedding?.cacheHits ?? 0,
      misses: m.embedding?.cacheMisses ?? 0,
    },
  };
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
    // Mem0's released library stores memories through the memory LLM and embeds through the
    // OpenAI embedder (both served by the fake server); the judge judges the final answers.
    const args = [
      '--memory',
      'mem0',
      '--memory-base-url',
      server.url,
      '--memory-model',
      MODEL.memory,
      '--embedder-base-url',
      server.url,
      '--embedder-model',
      MODEL.embedder,
      '--judge-base-url',
      server.url,
      '--judge-model',
      MODEL.judge,
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
    expect(perTest.length).toBeGreaterThanOrEqual(4);
    // Hang points are questions, not request counts: how many requests a launch sends depends on
    // which re-asked questions the cache answers. A question first asked at test t is only asked
    // once the packets before test t are in.
    const tests = planTests(sample!).tests;
    const newAt = (t: number): string[] =>
      (tests[t]?.questionIndices ?? [])
        .filter((i) => !(tests[t - 1]?.questionIndices ?? []).includes(i))
        .map((i) => sample!.qa.find((q) => q.index === i)?.question ?? '');
    const asks = (questions: readonly string[]) => (): boolean =>
      server.requests.some((r) => {
        const body = r.body as { model?: string; messages?: Array<{ content?: string }> };
        const prompt = (body.messages ?? []).map((m) => m.content ?? '').join('\n');
        return body.model === MODEL.answer && questions.some((q) => prompt.includes(q));
      });
    expect(newAt(2).length).toBeGreaterThan(0);
    expect(newAt(3).length).toBeGreaterThan(0);
    // A first run hangs on the first question new at the third test: its replies to the first two
    // tests (and its memory LLM's and embedder's for the packets before the third) are in the cache.
    const prefill = join(dir, 'prefill.db');
    hangOn = newAt(2);
    const filler = start(['experiment', '--data', mini, ...args, '--runs-db', prefill]);
    await until('the prefill to hang on the third test', asks(hangOn));
    await until('two committed tests', () => testsIn(prefill) >= 2);
    filler.child.kill('SIGKILL');
    await filler.done;
    server.requests.length = 0;
    // The second run finds what the cache holds (hits), asks the rest (misses), inserts the packets
    // before the fourth test, which no launch sent before, so its memory LLM must be asked, and
    // hangs on the first question new at the fourth test.
    hangOn = newAt(3);
    const first = start(['experiment', '--data', mini, ...args, '--runs-db', db]);
    await until('the request that hangs', asks(hangOn));
    const roles = Object.keys(MODEL) as Role[];
    await until(
      'the ledger to catch up',
      () => roles.every((role) => ledger(db, role).calls === requestsOf(role)),
      10_000,
    );
    const killedLedger = Object.fromEntries(roles.map((role) => [role, ledger(db, role)]));
    // The killed launch sent memory-LLM and embedding requests and filed cache lookups for them.
    expect(killedLedger['memory']?.calls).toBeGreaterThan(0);
    expect(killedLedger['embedder']?.hits).toBeGreaterThan(0);
    first.child.kill('SIGKILL');
    await first.done;
    const killed = answerLedger(db);
    // The killed launch looked answers up and filed every lookup: hits and misses both.
    expect(killed.hits).toBeGreaterThan(0);
    expect(killed.misses).toBe(chatRequests());
    const testsCommitted = testsIn(db);

    hangOn = [];
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
    // Every role: the manifest's counters are the ledger's sums over both launches, and the
    // requests it says were sent are those the server logged for the role's model.
    const counted = manifestCounters(manifest);
    for (const role of roles) {
      const { runId: _r, ...sums } = ledger(db, role);
      expect(counted[role], role).toEqual(sums);
      expect(counted[role].calls, `${role} requests logged`).toBe(requestsOf(role));
      expect(counted[role].calls, `${role} sent requests`).toBeGreaterThan(0);
    }
  }, 180_000);
});
