import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExperimentConfigInput } from '../../src-shared/experiment';
import { inlineExecutor, workerExecutor } from '../../src-main/core/pipeline/executors';
import { startRunBypassingLauncher } from '../../src-main/core/launch/testSeam';
import type { RunOptions } from '../../src-main/core/pipeline/runner';
import { RunStore } from '../../src-main/core/runs/store';
import { runSweep } from '../../src-main/core/sweeps/run';
import { loadSweep } from '../../src-main/core/sweeps/spec';
import { RecencyMemory } from '../fixtures/experiment/test-presets';
import {
  defaultChatReply,
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from '../support/fake-openai-server';

/**
 * The answerer's response cache: a second run of the same config is answered from the cache
 * (counted as hits, no request sent); `only` replays it with the endpoint gone, byte for byte;
 * `off` asks again; a request the cache lacks fails in `only` mode instead of calling out. A
 * sweep's repeats are independent runs: each asks the endpoint, and a replay replays each its own.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const presetsModule = join(repo, 'tests/fixtures/experiment/test-presets.ts');
const root = mkdtempSync(join(tmpdir(), 'workbench-response-cache-'));

let server: FakeOpenAIServer;
/** A reply that differs per call: a cached answer is recognisable by its number. */
let replies = 0;
beforeAll(async () => {
  server = await startFakeOpenAIServer({
    chat: (chat) => `${defaultChatReply(chat)} #${++replies}`,
  });
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

const chatCalls = (): number =>
  server.requests.filter((r) => r.path === '/v1/chat/completions').length;
const config = (seed = 42): ExperimentConfigInput => ({
  datasetPath: mini,
  memory: { preset: 'test-recency' },
  answerer: { kind: 'llm', baseUrl: server.url, model: 'fake-chat', maxRetries: 0 },
  seed,
  maxConsecutiveFailures: 1000,
  maxErrorShare: 1,
});
const predictions = (store: RunStore, runId: string): string[] =>
  store.answersByTest(runId).map((a) => a.prediction);

async function run(
  store: RunStore,
  options: Omit<RunOptions, 'store'>,
  seed?: number,
): Promise<string> {
  const handle = await startRunBypassingLauncher(config(seed), { store, ...options });
  const outcome = await handle.done;
  // Another seed is not in the cache: in cache-only mode every answer of it is an error.
  if (seed === undefined) expect(outcome.error).toBeNull();
  else expect(outcome.error).toBe(`every final answer is an error (8 of 8)`);
  return handle.runId;
}

describe('LLM response cache', () => {
  it('answers a repeated run from the cache and replays it offline byte for byte', async () => {
    const store = RunStore.open(join(root, 'runs.db'));
    const dataDir = join(root, 'data');
    const executor = inlineExecutor({ createMemory: async (ctx) => new RecencyMemory(ctx) });
    const base = { dataDir, executor };

    const before = chatCalls();
    const first = await run(store, { ...base, responseCache: 'on' });
    const sent = chatCalls() - before;
    expect(sent).toBeGreaterThan(0);
    const firstCache = store.getRun(first).manifest.answerCache;
    expect(firstCache).toMatchObject({ mode: 'on', misses: sent });
    // Within one run, identical re-asks are already hits.
    const asked = store.answersByTest(first).length;
    expect((firstCache?.hits ?? 0) + sent).toBe(asked);

    const second = await run(store, { ...base, responseCache: 'on' });
    expect(chatCalls() - before).toBe(sent);
    expect(store.getRun(second).manifest.answerCache).toEqual({
      mode: 'on',
      hits: asked,
      misses: 0,
    });
    expect(predictions(store, second)).toEqual(predictions(store, first));

    // The endpoint is gone: cache-only still replays the run, on worker threads too.
    server.setFault({ kind: 'drop' }, { times: Infinity });
    const replay = await run(store, {
      dataDir,
      executor: workerExecutor({ presetModules: [presetsModule] }),
      responseCache: 'only',
    });
    expect(predictions(store, replay)).toEqual(predictions(store, first));
    expect(store.getRun(replay).answerErrors).toBe(0);

    // A request the cache never saw (another seed) fails in cache-only mode without calling out.
    const calls = chatCalls();
    const missing = await run(store, { ...base, responseCache: 'only' }, 7);
    expect(chatCalls()).toBe(calls);
    expect(store.answersByTest(missing)[0]?.error).toMatch(/no cached reply to this request/);
    server.setFault(null);

    // Off: asked again, fresh replies.
    const fresh = await run(store, { ...base, responseCache: 'off' });
    expect(chatCalls() - calls).toBe(asked);
    expect(store.getRun(fresh).manifest.answerCache).toBeUndefined();
    expect(predictions(store, fresh)).not.toEqual(predictions(store, first));
    store.close();
  });
});

describe('LLM response cache of repeats', () => {
  it("a sweep's repeat asks the endpoint rather than replay another repeat's replies, and replays its own", async () => {
    const store = RunStore.open(join(root, 'repeats.db'));
    const dataDir = join(root, 'repeats');
    // A sweep's repeats share the seed, so their requests are byte for byte the same; one
    // request in flight, so each distinct request is one miss and the counts are exact.
    const base = { ...config(), concurrency: 1 };
    const sweepOf = (name: string) => loadSweep({ name, base, repeats: 2 }, `${name}.json`, root);
    const options = {
      store,
      dataDir,
      executor: workerExecutor({ presetModules: [presetsModule] }),
    };
    try {
      const before = chatCalls();
      const ran = await runSweep(sweepOf('independent'), {
        ...options,
        preflight: false,
        responseCache: 'on',
      });
      expect(ran.cells.map((c) => c.status)).toEqual(['completed', 'completed']);
      const [first, second] = ran.cells.map((c) => c.runId as string) as [string, string];
      const firstCache = store.getRun(first).manifest.answerCache;
      expect(firstCache).toMatchObject({ mode: 'on' });
      expect(firstCache?.misses).toBeGreaterThan(0);
      // Repeat 1 was asked afresh: as many misses as repeat 0, every one a request sent.
      expect(store.getRun(second).manifest.answerCache).toEqual(firstCache);
      expect(chatCalls() - before).toBe(2 * (firstCache?.misses ?? 0));
      // The server numbers its replies: no answer of repeat 1 is one of repeat 0's.
      const replyNumbers = (runId: string) =>
        new Set(predictions(store, runId).map((p) => p.replace(/^.*#/, '')));
      const shared = [...replyNumbers(second)].filter((n) => replyNumbers(first).has(n));
      expect(shared).toEqual([]);

      // With the endpoint gone, a replay of the same grid gives each repeat its own answers.
      server.setFault({ kind: 'drop' }, { times: Infinity });
      const calls = chatCalls();
      const replay = await runSweep(sweepOf('replay'), { ...options, responseCache: 'only' });
      expect(chatCalls()).toBe(calls);
      expect(replay.cells.map((c) => c.status)).toEqual(['completed', 'completed']);
      const replayed = replay.cells.map((c) => predictions(store, c.runId as string));
      expect(replayed).toEqual([predictions(store, first), predictions(store, second)]);
    } finally {
      server.setFault(null);
      store.close();
    }
  });
});
