import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExperimentConfigInput } from '../../src-shared/experiment';
import { loadDatasetFile } from '../../src-main/core/dataset/load';
import { planTests } from '../../src-main/core/dataset/testPlan';
import { workerExecutor } from '../../src-main/core/pipeline/executors';
import {
  resumeRunBypassingLauncher,
  startRunBypassingLauncher,
} from '../../src-main/core/launch/testSeam';
import { RunStore } from '../../src-main/core/runs/store';
import { bullmqExecutor } from '../../src-main/core/sweeps/distributed';
import {
  defaultChatReply,
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from '../support/fake-openai-server';
import { startCliWorker } from '../support/cli-worker';
import { startRedis, type TestRedis } from '../support/redis-server';

/**
 * The distributed executor against a real redis-server on 127.0.0.1 and `cli worker` processes:
 * a distributed run records the same answers and scores as a local one, and a worker killed with
 * SIGKILL mid-sample loses nothing (another worker finishes the sample) and duplicates nothing.
 */

const repo = fileURLToPath(new URL('../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const root = mkdtempSync(join(tmpdir(), 'workbench-distributed-'));
let redis: TestRedis;
let llm: FakeOpenAIServer;
const workers: ChildProcess[] = [];
let counter = 0;

beforeAll(async () => {
  redis = await startRedis();
  // A slow, deterministic model: long enough per sample to kill a worker in the middle of one.
  llm = await startFakeOpenAIServer({
    chat: async (chat) => {
      await new Promise((r) => setTimeout(r, 120));
      return defaultChatReply(chat);
    },
  });
});

afterAll(async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  await redis?.stop();
  await llm?.close();
  rmSync(root, { recursive: true, force: true });
});

/** A `cli worker` process with short job locks, so a killed worker's job is retried quickly. */
async function startWorker(
  queue: string,
  concurrency = 1,
  extra: string[] = [],
  onStart?: (at: number) => void,
): Promise<ChildProcess> {
  const child = await startCliWorker(
    [
      '--redis',
      redis.url,
      '--queue',
      queue,
      '--concurrency',
      String(concurrency),
      '--data-dir',
      join(root, `worker-${++counter}`),
      '--lock-ms',
      '1500',
      '--stalled-check-ms',
      '500',
      // The runs' dataset: a worker refuses a job whose dataset lies outside its folders.
      '--dataset-dir',
      dirname(mini),
      ...extra,
    ],
    (text) => {
      for (const _ of text.matchAll(/: started\n/g)) onStart?.(Date.now());
    },
  );
  workers.push(child);
  return child;
}

function config(): ExperimentConfigInput {
  return {
    datasetPath: mini,
    memory: { preset: 'text' },
    answerer: { kind: 'llm', baseUrl: llm.url, model: 'fake-chat', baseDelayMs: 1 },
  };
}

const comparable = (store: RunStore, runId: string) =>
  store.answersByTest(runId).map((a) => ({ ...a, retrieveMs: 0, answerMs: 0 }));

async function localRun(
  input: ExperimentConfigInput = config(),
): Promise<{ store: RunStore; runId: string }> {
  const store = RunStore.open(join(root, `local-${++counter}.db`));
  const handle = await startRunBypassingLauncher(input, {
    store,
    dataDir: join(root, `local-data-${counter}`),
    executor: workerExecutor(),
  });
  expect((await handle.done).status).toBe('completed');
  return { store, runId: handle.runId };
}

describe('distributed executor (BullMQ on a real Redis, worker processes)', () => {
  it('records the same answers and scores as a local run', async () => {
    const queue = `q-same-${counter}`;
    await startWorker(queue, 2);
    const local = await localRun();
    const store = RunStore.open(join(root, `coord-${++counter}.db`));
    const distributed = await bullmqExecutor({ redisUrl: redis.url, queue });
    try {
      const handle = await startRunBypassingLauncher(config(), {
        store,
        dataDir: join(root, `coord-data-${counter}`),
        executor: distributed.executor,
      });
      const outcome = await handle.done;
      expect(outcome.status).toBe('completed');
      expect(comparable(store, handle.runId)).toEqual(comparable(local.store, local.runId));
      expect(outcome.summary).toEqual(local.store.summary(local.runId));
      // The workers' LLM calls reach the coordinator's call ledger as a local run's do.
      const ledger = store.callLedger(handle.runId);
      expect(ledger.map((r) => [r.role, r.calls])).toEqual([['answer', expect.any(Number)]]);
      expect(ledger[0]?.calls).toBeGreaterThan(0);
      expect(ledger).toEqual(local.store.callLedger(local.runId));
      expect(store.getRun(handle.runId).sampleInfo.map((s) => s.status)).toEqual([
        'completed',
        'completed',
      ]);
    } finally {
      await distributed.close();
      store.close();
      local.store.close();
    }
  }, 120_000);

  it('finishes a sample on another worker after one is SIGKILLed mid-sample: nothing lost or duplicated', async () => {
    const queue = `q-kill-${counter}`;
    const doomed = await startWorker(queue, 2);
    const local = await localRun();
    const store = RunStore.open(join(root, `coord-${++counter}.db`));
    const distributed = await bullmqExecutor({ redisUrl: redis.url, queue });
    const { samples } = await loadDatasetFile(mini);
    const planned = new Map(samples.map((s) => [s.sampleId, planTests(s).tests.length]));
    let killedAfter = -1;
    try {
      const handle = await startRunBypassingLauncher(config(), {
        store,
        dataDir: join(root, `coord-data-${counter}`),
        executor: distributed.executor,
        onProgress: (event) => {
          // Kill the only worker once mini-1's first test is recorded, while the rest is to come.
          if (event.type === 'test-committed' && event.sampleId === 'mini-1' && killedAfter < 0) {
            killedAfter = store.committedTests(handle.runId, 'mini-1').length;
            doomed.kill('SIGKILL');
            void startWorker(queue);
          }
        },
      });
      const outcome = await handle.done;
      expect(killedAfter).toBeGreaterThan(0);
      expect(killedAfter).toBeLessThan(planned.get('mini-1') ?? 0);
      expect(doomed.signalCode).toBe('SIGKILL');
      expect(outcome.status).toBe('completed');
      for (const [sampleId, tests] of planned) {
        expect(store.committedTests(handle.runId, sampleId)).toEqual([...Array(tests).keys()]);
      }
      // Every test once, every answer once, and the same as an uninterrupted local run.
      expect(comparable(store, handle.runId)).toEqual(comparable(local.store, local.runId));
    } finally {
      await distributed.close();
      store.close();
      local.store.close();
    }
  }, 120_000);

  it('shares one job budget across worker processes (--limit n/ms is queue-wide)', async () => {
    const queue = `q-limit-${counter}`;
    const starts: number[] = [];
    const window = 1500;
    // Two processes that could each start a sample at once; the limit allows one per window.
    await startWorker(queue, 2, ['--limit', `1/${window}`], (at) => starts.push(at));
    await startWorker(queue, 2, ['--limit', `1/${window}`], (at) => starts.push(at));
    const store = RunStore.open(join(root, `coord-${++counter}.db`));
    const distributed = await bullmqExecutor({ redisUrl: redis.url, queue });
    try {
      // Two runs of two samples: four jobs.
      const handles = await Promise.all(
        [1, 2].map((seed) =>
          startRunBypassingLauncher(
            { datasetPath: mini, memory: { preset: 'text' }, seed },
            {
              store,
              dataDir: join(root, `coord-data-${counter}-${seed}`),
              executor: distributed.executor,
            },
          ),
        ),
      );
      for (const h of handles) expect((await h.done).status).toBe('completed');
      expect(starts).toHaveLength(4);
      starts.sort((a, b) => a - b);
      // Never two starts within one window, whichever process took the job (a little slack for
      // the clocks of two processes reporting through pipes).
      for (let i = 1; i < starts.length; i++) {
        expect((starts[i] as number) - (starts[i - 1] as number)).toBeGreaterThan(window - 200);
      }
    } finally {
      await distributed.close();
      store.close();
    }
  }, 120_000);

  it('cancels a run whose samples wait for a worker, and resume runs them once a worker comes', async () => {
    const queue = `q-resume-${counter}`;
    const store = RunStore.open(join(root, `coord-${++counter}.db`));
    const dataDir = join(root, `coord-data-${counter}`);
    const distributed = await bullmqExecutor({ redisUrl: redis.url, queue });
    try {
      // No worker yet: both jobs wait in the queue until the cancel withdraws them.
      const handle = await startRunBypassingLauncher(
        { datasetPath: mini, memory: { preset: 'text' } },
        { store, dataDir, executor: distributed.executor },
      );
      // The cancel lands once both samples are jobs waiting in the queue, not after a guess.
      const waiting = new Queue(queue, { connection: { url: redis.url } });
      try {
        await expect.poll(() => waiting.getWaitingCount(), { timeout: 30_000 }).toBe(2);
      } finally {
        await waiting.close();
      }
      handle.cancel();
      const cancelled = await handle.done;
      expect(cancelled.status).toBe('cancelled');
      expect(store.committedTests(handle.runId, 'mini-1')).toEqual([]);

      await startWorker(queue);
      const resumed = await resumeRunBypassingLauncher(handle.runId, {
        store,
        dataDir,
        executor: distributed.executor,
      });
      expect((await resumed.done).status).toBe('completed');
      const local = await localRun({ datasetPath: mini, memory: { preset: 'text' } });
      expect(comparable(store, handle.runId)).toEqual(comparable(local.store, local.runId));
      local.store.close();
    } finally {
      await distributed.close();
      store.close();
    }
  }, 120_000);

  it('keeps --calls-per-minute as one LLM request budget across worker processes', async () => {
    const queue = `q-rate-${counter}`;
    // Two processes, each able to run a sample; 2 requests a minute with no burst: one request
    // may start now, the next only 30 s later, whichever process asks.
    const first = await startWorker(queue, 1, ['--calls-per-minute', '2']);
    const second = await startWorker(queue, 1, ['--calls-per-minute', '2']);
    const store = RunStore.open(join(root, `coord-${++counter}.db`));
    const distributed = await bullmqExecutor({ redisUrl: redis.url, queue });
    const chats = (): number =>
      llm.requests.filter((r) => r.path === '/v1/chat/completions').length;
    const before = chats();
    // Every take of the shared rate budget (redisTokenBucket.ts's script on its key), by the
    // Redis connection that made it: the test waits on these instead of sleeping.
    const watcher = new Redis(redis.url);
    const monitor = await watcher.monitor();
    const takes: string[] = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (args[0]?.toLowerCase() === 'eval' && args[3]?.startsWith(`${queue}:llm-rate:`)) {
        takes.push(source);
      }
    });
    try {
      const handle = await startRunBypassingLauncher(config(), {
        store,
        dataDir: join(root, `coord-data-${counter}`),
        executor: distributed.executor,
      });
      // Both samples are taken (one per process) and ask for their first answers: wait until
      // both processes have asked the shared bucket and it has refused at least two takes (three
      // takes, one token), then no second request may have reached the server.
      const deadline = Date.now() + 20_000;
      while (
        (takes.length < 3 || new Set(takes).size < 2 || chats() === before) &&
        Date.now() < deadline
      ) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(new Set(takes).size).toBe(2);
      expect(chats() - before).toBe(1);
      // The samples are active on the workers: the cancel reaches them there, promptly (each
      // waits 30 s for its next request otherwise).
      const cancelledAt = Date.now();
      handle.cancel();
      expect((await handle.done).status).toBe('cancelled');
      expect(Date.now() - cancelledAt).toBeLessThan(15_000);
      expect(chats() - before).toBe(1);
      first.kill('SIGKILL');
      second.kill('SIGKILL');
    } finally {
      monitor.disconnect();
      watcher.disconnect();
      await distributed.close();
      store.close();
    }
  }, 120_000);
});
