import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MEMORY_LLM_MAX_TOKENS } from '../../src-shared/experiment';
import { openSqlite } from '../../src-main/core/sqlite';
import { REPO, runCli } from '../support/cli';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../support/fake-openai-server';
import { fakeMem0Chat, isMem0Extraction } from '../support/fake-mem0-model';

/**
 * A memory LLM whose replies overrun max_tokens, on the `mem0` preset (the released library in
 * the experiment worker), through the real CLI: the run never says "completed, 0 errors" over an
 * empty memory. Every extraction this model writes needs OVERRUN_NEEDS tokens; under that it
 * stops halfway through the JSON with `finish_reason: "length"`, as an OpenAI endpoint does.
 */
const mini = join(REPO, 'tests/fixtures/locomo/mini.json');
const dir = mkdtempSync(join(tmpdir(), 'workbench-mem0-health-'));
const OVERRUN_NEEDS = 1000;

let server: FakeOpenAIServer;
/** Which extraction requests overrun: all of them, or every other one. */
let overrun: 'all' | 'alternate' = 'all';
let extractions = 0;

beforeAll(async () => {
  server = await startFakeOpenAIServer({
    chat: async (chat, request) => {
      const reply = await fakeMem0Chat(chat, request);
      if (typeof reply !== 'string' || !isMem0Extraction(request.body)) return reply;
      extractions++;
      const cut =
        (chat.max_tokens ?? Infinity) < OVERRUN_NEEDS &&
        (overrun === 'all' || extractions % 2 === 0);
      if (!cut) return reply;
      const content = reply.slice(0, Math.floor(reply.length / 2));
      return {
        json: {
          id: 'chatcmpl-overrun',
          object: 'chat.completion',
          model: chat.model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'length' }],
          usage: { prompt_tokens: 100, completion_tokens: chat.max_tokens, total_tokens: 100 },
        },
      };
    },
  });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

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
    '--no-cache',
    ...extra,
  ];
}

const env = (name: string): NodeJS.ProcessEnv => ({
  MEMORY_WORKBENCH_DATA: join(dir, `data-${name}`),
  MEM0_DIR: join(dir, 'mem0-home'),
});

/** The max_tokens of each memory-LLM request the server received. */
function memoryMaxTokens(): Set<unknown> {
  return new Set(
    server.requests
      .filter((r) => (r.body as { model?: string }).model === 'fake-memory')
      .map((r) => (r.body as { max_tokens?: number }).max_tokens),
  );
}

function storedRun(db: string): { status: string; error: string | null; warnings: string[] } {
  const sqlite = openSqlite(db, { readonly: true, fileMustExist: true });
  try {
    const row = sqlite.prepare('SELECT status, error, manifest FROM runs').get() as {
      status: string;
      error: string | null;
      manifest: string;
    };
    const manifest = JSON.parse(row.manifest) as { warnings?: string[] };
    return { status: row.status, error: row.error, warnings: manifest.warnings ?? [] };
  } finally {
    sqlite.close();
  }
}

describe('a mem0 run whose memory LLM overruns max_tokens', () => {
  it('fails with MEMORY_EMPTY when every reply is cut off, naming the cause and the flag', async () => {
    overrun = 'all';
    server.requests.length = 0;
    const db = join(dir, 'all.db');
    const run = await runCli([...mem0Args(db), '--json'], env('all'));
    // The request carried the one schema default, and the run says what it did with it.
    expect(memoryMaxTokens()).toEqual(new Set([DEFAULT_MEMORY_LLM_MAX_TOKENS]));
    expect(run.code).toBe(1);
    const out = JSON.parse(run.out) as { status: string; error: string };
    expect(out.status).toBe('failed');
    expect(out.error).toContain('MEMORY_EMPTY');
    expect(out.error).toMatch(/stored 0 Mem0 memories from \d+ turns/);
    expect(out.error).toContain(
      `cut off at max_tokens (max_tokens ${DEFAULT_MEMORY_LLM_MAX_TOKENS}`,
    );
    expect(out.error).toContain('--memory-llm-max-tokens');
    expect(storedRun(db)).toMatchObject({ status: 'failed' });
  }, 180_000);

  it('completes with warnings in the manifest and on the exit line when some replies are cut off', async () => {
    overrun = 'alternate';
    extractions = 0;
    server.requests.length = 0;
    const db = join(dir, 'alternate.db');
    const run = await runCli(mem0Args(db), env('alternate'));
    expect(run.code).toBe(0);
    const stored = storedRun(db);
    expect(stored.status).toBe('completed');
    const cut = stored.warnings.filter((w) => /memory LLM: \d+ of \d+ replies cut off/.test(w));
    expect(cut.length).toBeGreaterThan(0);
    expect(stored.warnings.some((w) => /replies asked as JSON did not parse/.test(w))).toBe(true);
    expect(run.out).toMatch(
      new RegExp(`run \\S+ completed with ${stored.warnings.length} warnings in `),
    );
    for (const warning of stored.warnings) expect(run.out).toContain(`warning: ${warning}`);
  }, 180_000);

  it('--memory-llm-max-tokens sends the given max_tokens, and replies that fit give a clean run', async () => {
    overrun = 'all';
    server.requests.length = 0;
    const db = join(dir, 'raised.db');
    const run = await runCli(
      [...mem0Args(db, '--memory-llm-max-tokens', String(OVERRUN_NEEDS)), '--json'],
      env('raised'),
    );
    expect(memoryMaxTokens()).toEqual(new Set([OVERRUN_NEEDS]));
    expect(run.code).toBe(0);
    const out = JSON.parse(run.out) as { status: string; warnings: string[] };
    expect(out.status).toBe('completed');
    expect(out.warnings).toEqual([]);
  }, 180_000);
});
