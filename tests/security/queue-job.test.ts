import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue, QueueEvents } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../src-shared/errors';
import { ExperimentConfigSchema, type ExperimentConfigInput } from '../../src-shared/experiment';
import { loadDatasetFile } from '../../src-main/core/dataset/load';
import { planTests } from '../../src-main/core/dataset/testPlan';
import { startRunBypassingLauncher } from '../../src-main/core/launch/testSeam';
import { RunStore } from '../../src-main/core/runs/store';
import { sha256Hex } from '../../src-main/core/canonical-hash';
import {
  bullmqExecutor,
  checkSampleJob,
  jobCollectionDir,
  jobIdOf,
} from '../../src-main/core/sweeps/distributed';
import { pythonCommand } from '../support/memory-services';
import { startCliWorker } from '../support/cli-worker';
import { startRedis, type TestRedis } from '../support/redis-server';

/**
 * An attacker who can write to the Redis of a distributed sweep adds jobs by hand (issue 23 item
 * 1): an id that walks out of the worker's data folder and a memory "service" that is a shell
 * command. Real redis-server on 127.0.0.1, real `cli worker` processes.
 */

const repo = fileURLToPath(new URL('../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const fixtures = dirname(mini);
const root = mkdtempSync(join(tmpdir(), 'workbench-sec-queue-'));
const RUN_ID = '20260101-120000-000-abcdef';
let redis: TestRedis;
const workers: ChildProcess[] = [];
let counter = 0;

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  await redis?.stop();
  rmSync(root, { recursive: true, force: true });
});

/** A `cli worker` process on `queue` that may read the fixtures' datasets. */
async function startWorker(queue: string, dataDir: string, extra: string[] = []): Promise<void> {
  const args = ['--redis', redis.url, '--queue', queue, '--data-dir', dataDir];
  workers.push(await startCliWorker([...args, '--dataset-dir', fixtures, ...extra]));
}

/** Job data with the coordinator's exact shape, around a config the attacker wrote. */
async function craftedData(config: ExperimentConfigInput): Promise<Record<string, unknown>> {
  const { samples } = await loadDatasetFile(mini);
  const sample = samples[0];
  if (!sample) throw new Error('mini.json has no sample');
  return {
    runId: RUN_ID,
    sample,
    plan: planTests(sample),
    config: ExperimentConfigSchema.parse(config),
    benchmark: 'locomo',
    skipTests: [],
  };
}

/** A memory "service" that is a shell command leaving a marker file behind. */
function markerCommand(marker: string): string {
  return `sh -c 'id > ${marker}'`;
}

/** Adds the job and waits for it to end; the failure reason, or null if it completed. */
async function runJob(queueName: string, jobId: string, data: unknown): Promise<string | null> {
  const connection = { url: redis.url, maxRetriesPerRequest: null };
  const queue = new Queue(queueName, { connection });
  const events = new QueueEvents(queueName, { connection });
  try {
    await events.waitUntilReady();
    const job = await queue.add('sample', data, { jobId, attempts: 1 });
    try {
      await job.waitUntilFinished(events, 60_000);
      return null;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  } finally {
    await events.close();
    await queue.close();
  }
}

function victimFolder(): string {
  const victim = join(root, `victim-${++counter}`);
  mkdirSync(victim);
  writeFileSync(join(victim, 'keep.txt'), 'data that must survive');
  return victim;
}

describe('a job written straight into the Redis queue', () => {
  it('with id ../../victim and a shell command is refused: no command runs, no folder outside the data dir goes', async () => {
    const queue = `q-crafted-${counter}`;
    // <root>/worker-n/data/collections/../../victim is <root>/worker-n/victim.
    const workerRoot = join(root, `worker-${++counter}`);
    const dataDir = join(workerRoot, 'data');
    const victim = join(workerRoot, 'victim');
    mkdirSync(victim, { recursive: true });
    writeFileSync(join(victim, 'keep.txt'), 'data that must survive');
    const marker = join(root, `marker-${counter}`);
    await startWorker(queue, dataDir);

    const reason = await runJob(
      queue,
      '../../victim',
      await craftedData({
        datasetPath: mini,
        memory: { preset: 'external', config: { command: markerCommand(marker) } },
      }),
    );
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(join(victim, 'keep.txt'))).toBe(true);
    expect(reason).toMatch(/^INVALID_INPUT: queue job "\.\.\/\.\.\/victim": its id is not/);
  });

  it('with the right id but a memory command is refused unless the worker allows commands', async () => {
    const queue = `q-command-${counter}`;
    const marker = join(root, `marker-${++counter}`);
    await startWorker(queue, join(root, `worker-${counter}`));
    const data = await craftedData({
      datasetPath: mini,
      memory: { preset: 'external', config: { command: markerCommand(marker) } },
    });
    const reason = await runJob(queue, jobIdOf(RUN_ID, 'mini-1'), data);
    expect(existsSync(marker)).toBe(false);
    expect(reason).toMatch(/^FORBIDDEN: memory preset "external": a command runs a program/);
  });

  it('pointed at a loopback service that is not a memory service, never reports its reply', async () => {
    const secret = 'sk-live-51HxTopSecretValue0123456789';
    const service = createServer((_req, res) => res.end(`ADMIN_PASSWORD=${secret}\n`));
    await new Promise<void>((done) => service.listen(0, '127.0.0.1', done));
    try {
      const queue = `q-loopback-${++counter}`;
      await startWorker(queue, join(root, `worker-${counter}`));
      const port = (service.address() as AddressInfo).port;
      const data = await craftedData({
        datasetPath: mini,
        memory: { preset: 'external', config: { url: `http://127.0.0.1:${port}` } },
      });
      // The failure reason is what anyone reading the queue sees.
      const reason = await runJob(queue, jobIdOf(RUN_ID, 'mini-1'), data);
      expect(reason).toContain(`memory service http://127.0.0.1:${port}/: hello`);
      expect(reason).not.toContain(secret);
    } finally {
      service.close();
    }
  });

  it('a worker started with --allow-memory-command still runs a legitimate command job', async () => {
    const queue = `q-allowed-${counter}`;
    await startWorker(queue, join(root, `worker-${++counter}`), ['--allow-memory-command']);
    const store = RunStore.open(join(root, `coord-${counter}.db`));
    const distributed = await bullmqExecutor({ redisUrl: redis.url, queue });
    try {
      const handle = await startRunBypassingLauncher(
        { datasetPath: mini, memory: { preset: 'external', config: { command: pythonCommand } } },
        {
          store,
          dataDir: join(root, `coord-data-${counter}`),
          executor: distributed.executor,
          mayStartProcesses: true,
        },
      );
      const outcome = await handle.done;
      expect(outcome.error).toBeNull();
      expect(outcome.status).toBe('completed');
      expect(store.getRun(handle.runId).sampleInfo.map((s) => s.status)).toEqual([
        'completed',
        'completed',
      ]);
    } finally {
      await distributed.close();
      store.close();
    }
  }, 120_000);
});

describe('checkSampleJob: what a worker runs', () => {
  const trust = { allowMemoryCommand: true, datasetDirs: [fixtures] };
  const id = jobIdOf(RUN_ID, 'mini-1');

  function refusal(job: { id?: string; data: unknown }, t = trust): WorkbenchError {
    try {
      checkSampleJob(job, t);
    } catch (error) {
      if (error instanceof WorkbenchError) return error;
      throw error;
    }
    throw new Error('the job was accepted');
  }

  it('refuses a memory service on a non-loopback host, even with allowRemote', async () => {
    const remote = refusal({
      id,
      data: await craftedData({
        datasetPath: mini,
        memory: { preset: 'external', config: { url: 'http://192.0.2.7:8000' } },
      }),
    });
    expect(remote.code).toBe('FORBIDDEN');
    expect(remote.path).toEqual(['memory', 'config', 'url']);
    const allowed = refusal({
      id,
      data: await craftedData({
        datasetPath: mini,
        memory: { preset: 'external', config: { url: 'http://192.0.2.7:8000', allowRemote: true } },
      }),
    });
    expect(allowed.code).toBe('FORBIDDEN');
    expect(allowed.path).toEqual(['memory', 'config', 'allowRemote']);
  });

  it('refuses a dataset path outside the --dataset-dir folders, and any with none given', async () => {
    const outside = victimFolder();
    const data = await craftedData({ datasetPath: join(outside, 'keep.txt') });
    const error = refusal({ id, data });
    expect(error.code).toBe('FORBIDDEN');
    expect(error.message).toContain(`is outside the folders this worker was given`);
    const traversal = await craftedData({ datasetPath: `${fixtures}/../../../etc/passwd` });
    expect(refusal({ id, data: traversal }).code).toBe('FORBIDDEN');
    const none = refusal(
      { id, data: await craftedData({ datasetPath: mini }) },
      {
        ...trust,
        datasetDirs: [],
      },
    );
    expect(none.message).toContain('start it with --dataset-dir <folder>');
  });

  it('refuses a unix socket outside the folders, and data without the coordinator shape', async () => {
    const socket = refusal({
      id,
      data: await craftedData({
        datasetPath: mini,
        memory: { preset: 'external', config: { url: 'unix:/run/docker.sock' } },
      }),
    });
    expect(socket.code).toBe('FORBIDDEN');
    const shapeless = refusal({ id, data: { runId: RUN_ID } });
    expect(shapeless.code).toBe('INVALID_INPUT');
  });

  it('accepts the coordinator’s own job: id derived from run and sample, dataset inside', async () => {
    const data = await craftedData({ datasetPath: mini, memory: { preset: 'text' } });
    expect(checkSampleJob({ id, data }, trust).runId).toBe(RUN_ID);
  });

  it('keeps each job’s collection in a folder named by the hash of its id', () => {
    const dataDir = join(root, 'data');
    const dir = jobCollectionDir(dataDir, '../../victim');
    expect(dir).toBe(join(dataDir, 'collections', `job-${sha256Hex('../../victim')}`));
    expect(relative(join(dataDir, 'collections'), dir)).not.toMatch(/^\.\.|\//);
  });
});
