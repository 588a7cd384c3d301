import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunStore } from '../../src-main/core/runs/store';
import { openSqlite } from '../../src-main/core/sqlite';
import { CLI_ARGS, REPO } from '../support/cli';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../support/fake-openai-server';
import { fakeMem0Chat, isMem0Extraction } from '../support/fake-mem0-model';

/**
 * `cli experiment --memory mem0` end to end: the real CLI in a child process, its samples in
 * experiment workers that load the released mem0ai library, against the fake OpenAI-compatible
 * server (Mem0's extraction answered with deterministic JSON, deterministic embeddings). Every
 * library call is in the run's ledger; the run contacts no host but the loopback; `--cache-only`
 * replays it with zero requests; a run killed with SIGKILL and resumed gives the same answers.
 */
const mini = join(REPO, 'tests/fixtures/locomo/mini.json');
const guard = join(REPO, 'tests/fixtures/experiment/network-guard.ts');
const dir = mkdtempSync(join(tmpdir(), 'workbench-mem0-cli-'));
const guardLog = join(dir, 'connections.log');
const mem0Home = join(dir, 'mem0-home');

let server: FakeOpenAIServer;
/** From this many answer requests on, the server never answers (the run is killed meanwhile). */
let hangAnswersFrom: number | null = null;
const answerRequests = (): number =>
  server.requests.filter(
    (r) =>
      r.path === '/v1/chat/completions' && (r.body as { model?: string }).model === 'fake-chat',
  ).length;

beforeAll(async () => {
  server = await startFakeOpenAIServer({
    chat: async (chat, request) => {
      if (chat.model === 'fake-chat' && hangAnswersFrom !== null) {
        if (answerRequests() > hangAnswersFrom) await new Promise(() => undefined);
      }
      return fakeMem0Chat(chat, request);
    },
  });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

function start(args: string[]): { child: ChildProcess; done: Promise<Result> } {
  const child = spawn(process.execPath, [...CLI_ARGS, ...args], {
    cwd: REPO,
    env: {
      ...process.env,
      MEMORY_WORKBENCH_DATA: join(dir, 'data'),
      MEMORY_WORKBENCH_EXTRA_PRESETS: guard,
      MW_NETWORK_GUARD_LOG: guardLog,
      // Where the library would keep its user id file: it must never be written.
      MEM0_DIR: mem0Home,
    },
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const done = new Promise<Result>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, out, err })),
  );
  return { child, done };
}

function mem0Args(db: string, ...extra: string[]): string[] {
  return [
    'experiment',
    '--data',
    mini,
    '--memory',
    'mem0',
    '--memory-base-url',
    server.url,
    '--memory-model',
    'fake-memory',
    '--embedder-base-url',
    server.url,
    '--embedder-model',
    'fake-embed',
    '--answerer',
    'llm',
    '--base-url',
    server.url,
    '--model',
    'fake-chat',
    '--answer-protocol',
    'mem0',
    '--runs-db',
    db,
    '--no-preflight',
    '--json',
    ...extra,
  ];
}

/** Each question's answer at its sample's last test, keyed `sample/question`. */
function finalAnswers(db: string): Record<string, string> {
  const sqlite = openSqlite(db, { readonly: true, fileMustExist: true });
  try {
    const rows = sqlite
      .prepare(
        `SELECT a.sample_id AS s, a.question_index AS q, a.prediction AS p FROM answers a
         WHERE a.test_index = (SELECT MAX(b.test_index) FROM answers b
           WHERE b.run_id = a.run_id AND b.sample_id = a.sample_id AND b.question_index = a.question_index)
         ORDER BY s, q`,
      )
      .all() as Array<{ s: string; q: number; p: string }>;
    return Object.fromEntries(rows.map((r) => [`${r.s}/${r.q}`, r.p]));
  } finally {
    sqlite.close();
  }
}

/** The run's call ledger by role, and its run id. */
function ledger(db: string): { runId: string | null; calls: Record<string, number> } {
  const sqlite = openSqlite(db, { readonly: true, fileMustExist: true });
  try {
    const run = sqlite.prepare('SELECT id FROM runs').get() as { id: string } | undefined;
    const rows = sqlite
      .prepare('SELECT role, SUM(calls) AS n FROM llm_calls GROUP BY role')
      .all() as Array<{ role: string; n: number }>;
    return { runId: run?.id ?? null, calls: Object.fromEntries(rows.map((r) => [r.role, r.n])) };
  } finally {
    sqlite.close();
  }
}

function serverCounts(): { memory: number; extraction: number; answer: number; embed: number } {
  const chats = server.requests.filter((r) => r.path === '/v1/chat/completions');
  return {
    memory: chats.filter((r) => (r.body as { model?: string }).model === 'fake-memory').length,
    extraction: chats.filter((r) => isMem0Extraction(r.body)).length,
    answer: answerRequests(),
    embed: server.requests.filter((r) => r.path === '/v1/embeddings').length,
  };
}

async function until(what: string, condition: () => boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

let reference: Record<string, string> = {};

describe('cli experiment --memory mem0 (mem0ai/oss in the experiment worker)', () => {
  it('refuses to start without a memory LLM, before a run exists, saying what to give', async () => {
    const db = join(dir, 'refused.db');
    const run = await start(['experiment', '--data', mini, '--memory', 'mem0', '--runs-db', db])
      .done;
    expect(run.code).toBe(1);
    expect(run.err).toContain('give --memory-base-url and --memory-model');
    expect(run.err).toContain('cannot run offline');
    expect(existsSync(db) ? ledger(db).runId : null).toBeNull();
  }, 60_000);

  it('runs LoCoMo end to end with every library call in the ledger and no host but the loopback', async () => {
    const db = join(dir, 'first.db');
    server.requests.length = 0;
    const run = await start(mem0Args(db)).done;
    expect(run.err).not.toContain('error:');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out)).toMatchObject({ status: 'completed' });

    const seen = serverCounts();
    // The library's own extraction requests arrived, through the run's memory LLM client.
    expect(seen.extraction).toBeGreaterThan(0);
    expect(seen.memory).toBe(seen.extraction);
    const { calls } = ledger(db);
    expect(calls['memory']).toBe(seen.memory);
    expect(calls['embedder']).toBe(seen.embed);
    expect(calls['answer']).toBe(seen.answer);

    // `report` prints Mem0 Table 2's columns: latency percentiles and the ingest cost.
    const runId = ledger(db).runId as string;
    const report = await start(['report', runId, '--runs-db', db]).done;
    expect(report.code).toBe(0);
    const conversations = 2;
    expect(report.out).toMatch(
      new RegExp(
        `Mem0 Table 2 columns: search p50 \\d+\\.\\d{3} s, p95 \\d+\\.\\d{3} s; total \\(search \\+ answer\\) p50 \\d+\\.\\d{3} s, p95 \\d+\\.\\d{3} s; memory tokens / question mean [\\d,]+, p50 [\\d,]+; ingest ${seen.memory / conversations} memory LLM calls and [\\d,]+ tokens per conversation \\(${conversations} conversations\\)`,
      ),
    );

    // Each retrieved memory is stored with its text (no turn of the dataset can show it), the
    // text the answer prompt gave the model.
    const sent = JSON.stringify(
      server.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.body),
    );
    const store = RunStore.open(db);
    try {
      const memories = store.finalAnswers(runId).flatMap((a) => a.retrieved);
      expect(memories.length).toBeGreaterThan(0);
      for (const memory of memories) {
        expect(memory.diaId).toBeNull();
        expect(memory.text, memory.id).toMatch(/\S/);
        expect(sent).toContain(JSON.stringify(memory.text).slice(1, -1));
      }
    } finally {
      store.close();
    }

    reference = finalAnswers(db);
    expect(Object.keys(reference).length).toBeGreaterThan(0);
    // Answers come from Mem0's memories (the fake model answers with the first one's text).
    expect(Object.values(reference).filter((p) => p !== 'unknown').length).toBeGreaterThan(0);

    // Every connection any of the run's threads tried was to the fake server's port.
    const port = new URL(server.url).port;
    const tried = readFileSync(guardLog, 'utf8').trim().split('\n');
    expect(tried.length).toBeGreaterThan(0);
    for (const target of new Set(tried)) expect(target).toMatch(/^(127\.0\.0\.1|localhost):\d+$/);
    expect(tried).toContain(`127.0.0.1:${port}`);
    // ... and the library never wrote its user-id file.
    expect(existsSync(mem0Home)).toBe(false);
  }, 120_000);

  it('replays the finished run with --cache-only: zero requests, the same answers', async () => {
    const db = join(dir, 'replay.db');
    server.requests.length = 0;
    const run = await start(mem0Args(db, '--cache-only')).done;
    expect(run.err).not.toContain('error:');
    expect(run.code).toBe(0);
    expect(server.requests).toHaveLength(0);
    expect(finalAnswers(db)).toEqual(reference);
  }, 120_000);

  it('gives the same answers after a SIGKILL mid-run and a resume', async () => {
    const db = join(dir, 'killed.db');
    server.requests.length = 0;
    hangAnswersFrom = 2;
    const first = start(mem0Args(db, '--no-cache'));
    await until('the answer request that hangs', () => answerRequests() > 2);
    first.child.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    hangAnswersFrom = null;
    const runId = ledger(db).runId as string;
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
    expect(finalAnswers(db)).toEqual(reference);
    // What the run recorded is what the server received, across the kill.
    const seen = serverCounts();
    const { calls } = ledger(db);
    expect(calls['memory']).toBe(seen.memory);
    // The persistent embedding cache may answer every text by now: then none were sent.
    expect(calls['embedder'] ?? 0).toBe(seen.embed);
  }, 180_000);
});
