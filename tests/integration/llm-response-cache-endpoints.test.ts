import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExperimentConfigInput } from '../../src-shared/experiment';
import { RESPONSE_CACHE_FILE, ResponseCache } from '../../src-main/core/answer/responseCache';
import { dataCacheDir } from '../../src-main/core/embed/cache';
import { inlineExecutor } from '../../src-main/core/pipeline/executors';
import { startRunBypassingLauncher } from '../../src-main/core/launch/testSeam';
import type { RunOptions } from '../../src-main/core/pipeline/runner';
import { RunStore } from '../../src-main/core/runs/store';
import { RecencyMemory } from '../fixtures/experiment/test-presets';
import {
  defaultChatReply,
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from '../support/fake-openai-server';

/**
 * Issue 39 item 1: the response cache's key was the request body alone, which names the model and
 * not the server, so a run against one server was answered with another's replies under the same
 * model name. The key covers the endpoint now; entries written before (schema 1) still answer the
 * runs they were made for, and only those (answer/responseCache.ts `adoptLegacy`).
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const root = mkdtempSync(join(tmpdir(), 'workbench-cache-endpoints-'));
const MODEL = 'gpt-4o-mini';

let local: FakeOpenAIServer;
let hosted: FakeOpenAIServer;
beforeAll(async () => {
  local = await startFakeOpenAIServer({ chat: (chat) => `${defaultChatReply(chat)} [local]` });
  hosted = await startFakeOpenAIServer({ chat: (chat) => `${defaultChatReply(chat)} [hosted]` });
});
afterAll(async () => {
  await local.close();
  await hosted.close();
  rmSync(root, { recursive: true, force: true });
});

const config = (server: FakeOpenAIServer): ExperimentConfigInput => ({
  datasetPath: mini,
  memory: { preset: 'test-recency' },
  answerer: { kind: 'llm', baseUrl: server.url, model: MODEL, maxRetries: 0 },
  seed: 42,
  maxConsecutiveFailures: 1000,
  maxErrorShare: 1,
});

async function run(
  store: RunStore,
  server: FakeOpenAIServer,
  options: Omit<RunOptions, 'store'>,
): Promise<string[]> {
  const handle = await startRunBypassingLauncher(config(server), { store, ...options });
  await handle.done;
  return store.answersByTest(handle.runId).map((a) => a.prediction);
}

const world = (name: string) => {
  const dataDir = join(root, name);
  mkdirSync(dataDir, { recursive: true });
  return {
    store: RunStore.open(join(dataDir, 'runs.db')),
    base: {
      dataDir,
      executor: inlineExecutor({ createMemory: async (ctx) => new RecencyMemory(ctx) }),
    },
  };
};

describe('the response cache keys replies by their endpoint', () => {
  it('two servers under one model name each get their own answers, and each replays its own', async () => {
    const { store, base } = world('two-servers');
    const fromLocal = await run(store, local, { ...base, responseCache: 'on' });
    const fromHosted = await run(store, hosted, { ...base, responseCache: 'on' });
    expect(fromLocal.length).toBeGreaterThan(0);
    expect(fromLocal.every((p) => p.endsWith('[local]'))).toBe(true);
    // Before: every one of these was the local server's reply, from the cache.
    expect(fromHosted.every((p) => p.endsWith('[hosted]'))).toBe(true);
    // A replay of each, with the servers' answers only in the cache.
    expect(await run(store, local, { ...base, responseCache: 'only' })).toEqual(fromLocal);
    expect(await run(store, hosted, { ...base, responseCache: 'only' })).toEqual(fromHosted);
    store.close();
  });

  it('a cache written before endpoint keys still answers the run it was made for, and no other', async () => {
    const { store, base } = world('legacy');
    // The run that filled the cache, then its entries rewritten as schema 1 wrote them: keyed by
    // the body's hash alone, with no endpoint.
    const made = await run(store, local, { ...base, responseCache: 'on' });
    const sent = local.requests
      .filter((r) => r.path === '/v1/chat/completions')
      .map((r) => r.rawBody);
    const cacheDir = dataCacheDir(base.dataDir);
    const file = join(cacheDir, RESPONSE_CACHE_FILE);
    const legacyOf = new Map<string, Buffer>();
    const cache = ResponseCache.open(cacheDir, 'only');
    for (const body of sent) {
      const key = cache.keyOf(`${local.url}/chat/completions`, body);
      legacyOf.set(key.key.toString('hex'), key.legacy);
    }
    cache.close();
    const current = new Database(file);
    const rows = current.prepare('SELECT * FROM responses').all() as Array<{
      key: Buffer;
      model: string;
      content: string;
      reply_model: string;
      prompt_tokens: number | null;
      completion_tokens: number | null;
    }>;
    current.close();
    expect(rows.length).toBeGreaterThan(0);
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    // Schema 1 exactly: no endpoint column, keys the body's hash.
    const v1 = new Database(file);
    v1.exec(`CREATE TABLE responses (
        key BLOB PRIMARY KEY,
        model TEXT NOT NULL,
        content TEXT NOT NULL,
        reply_model TEXT NOT NULL,
        prompt_tokens INTEGER,
        completion_tokens INTEGER
      ) WITHOUT ROWID`);
    const insert = v1.prepare('INSERT INTO responses VALUES (?, ?, ?, ?, ?, ?)');
    for (const r of rows) {
      const legacy = legacyOf.get(r.key.toString('hex'));
      expect(legacy).toBeDefined();
      insert.run(legacy, r.model, r.content, r.reply_model, r.prompt_tokens, r.completion_tokens);
    }
    v1.pragma('user_version = 1');
    v1.close();

    // Replayed offline: the runs DB proves these entries were made against the local server.
    expect(await run(store, local, { ...base, responseCache: 'only' })).toEqual(made);
    // The same model name on another server is not answered from them.
    const elsewhere = await run(store, hosted, { ...base, responseCache: 'only' });
    expect(elsewhere.every((p) => !p.endsWith('[local]'))).toBe(true);
    store.close();
  });

  it('entries of a model recorded at two endpoints stay unattributed: kept, never read', () => {
    const dir = join(root, 'ambiguous');
    const cache = ResponseCache.open(dir, 'on');
    const body = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'q' }] });
    const key = cache.keyOf(`${local.url}/chat/completions`, body);
    cache.close();
    const db = new Database(join(dir, RESPONSE_CACHE_FILE));
    db.prepare(
      "INSERT INTO responses (key, model, content, reply_model) VALUES (?, ?, 'old', ?)",
    ).run(key.legacy, MODEL, MODEL);
    db.close();
    const attributed = ResponseCache.adoptLegacy(dir, () => [
      { model: MODEL, baseUrl: local.url },
      { model: MODEL, baseUrl: `${hosted.url}/` },
    ]);
    expect(attributed).toBe(0);
    const reopened = ResponseCache.open(dir, 'only');
    expect(reopened.get(key)).toBeUndefined();
    reopened.close();
    // Attribution happens once: later runs cannot change what the old entries are taken for.
    expect(ResponseCache.adoptLegacy(dir, () => [{ model: MODEL, baseUrl: local.url }])).toBe(0);
  });
});
