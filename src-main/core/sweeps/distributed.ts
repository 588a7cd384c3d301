import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Queue, QueueEvents, UnrecoverableError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { WorkbenchError, parseOrThrow } from '../../../src-shared/errors';
import {
  DEFAULT_LLM_CONCURRENCY,
  ExperimentConfigSchema,
  type TestRecord,
} from '../../../src-shared/experiment';
import { sha256Hex } from '../canonical-hash';
import { dataCacheDir } from '../embed/cache';
import { checkMemoryCaller } from '../memory/registry';
import { resolveInsideFolders } from '../trust';
import { ApiKeySource, experimentApiKeys } from '../keys';
import { workerExecutor, type SampleExecutor } from '../pipeline/executors';
import {
  callRecordSchema,
  outcomeSchema,
  sampleSchema,
  testPlanSchema,
  testRecordSchema,
} from '../pipeline/protocol';
import { endpointLimitsOf, runBudgetLimit } from '../pipeline/runLimits';
import { sampleJobWire, type LogLevel, type SampleOutcome } from '../pipeline/runSample';
import { CallBudget } from '../http/callBudget';
import { RedisTokenBucket } from '../http/redisTokenBucket';
import { DEFAULT_LOCK_MS, DEFAULT_QUEUE, DEFAULT_STALLED_CHECK_MS } from './queueDefaults';

/**
 * The distributed executor: BullMQ on Redis. The coordinator (the process that owns the runs DB)
 * enqueues one job per (run, sample); `cli worker` processes on any machine take jobs and run them
 * with the same engine (the worker-thread executor). Each complete test goes into a Redis hash
 * keyed by (run, sample) with the test index as field (HSETNX: a test computed twice is stored
 * once), and a progress event tells the coordinator, which commits it to its runs DB. The
 * coordinator is the only writer, so a distributed run is recorded exactly like a local one.
 *
 * A worker that dies loses its job lock; BullMQ's stalled-job check hands the job to another
 * worker, which skips the tests already in the hash (as `resume` does) and finishes the sample.
 * A worker's LLM call records and warnings go into a Redis list per job that the coordinator
 * drains into the run's call ledger and manifest, including those of an attempt that died.
 * API keys never travel through Redis: each worker resolves the config's key variables through
 * its own ApiKeySource.
 */

export { DEFAULT_QUEUE };

import { displayRedisUrl, parseRedisUrl } from './redisAccess';

export { displayRedisUrl, parseRedisUrl };

const jobDataSchema = z.object({
  runId: z.string().min(1),
  sample: sampleSchema,
  /** The coordinator's plan: workers never re-plan. */
  plan: testPlanSchema,
  config: ExperimentConfigSchema,
  benchmark: z.string().min(1),
  skipTests: z.array(z.number().int().nonnegative()),
});

/** What a worker reports besides tests: its LLM calls (the ledger) and its warnings. */
const sideRecordSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('calls'), record: callRecordSchema }),
  z.object({
    type: z.literal('log'),
    level: z.enum(['info', 'warn', 'error']) satisfies z.ZodType<LogLevel>,
    message: z.string(),
  }),
]);
type SideRecord = z.infer<typeof sideRecordSchema>;

const progressSchema = z.object({ testIndex: z.number().int().nonnegative() });

/** BullMQ refuses ids with ":"; run ids and sanitised sample ids have none. */
export function jobIdOf(runId: string, sampleId: string): string {
  return `${runId}.${sampleId.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/**
 * Where a worker keeps a job's collection: named by the hash of the job id, so whatever id a
 * queue holds (`../../victim`), the folder is one fresh name under <dataDir>/collections/.
 */
export function jobCollectionDir(dataDir: string, jobId: string): string {
  return join(dataDir, 'collections', `job-${sha256Hex(jobId)}`);
}

/** What a worker's operator allows the queue's jobs (`cli worker` flags): see core/trust.ts. */
export interface WorkerTrust {
  /** `--allow-memory-command`: a job's external memory service may be a command to start. */
  allowMemoryCommand: boolean;
  /** `--dataset-dir` (real paths): the folders a job's dataset path and unix sockets may be in. */
  datasetDirs: readonly string[];
}

/**
 * A job as a worker may run it, or a coded refusal: anyone who can write to the Redis can add
 * jobs (README, "Security"), so a job is network input. Its data must have the coordinator's
 * shape, its id must be the one the coordinator derives from it, its dataset path must lie in
 * the operator's folders, and its memory config must be one the operator allows (no command
 * unless --allow-memory-command, no remote host, sockets only in the folders).
 */
export function checkSampleJob(
  job: { id?: string | undefined; data: unknown },
  trust: WorkerTrust,
): z.output<typeof jobDataSchema> {
  const data = parseOrThrow(jobDataSchema, job.data, 'queue job');
  const expected = jobIdOf(data.runId, data.sample.sampleId);
  if (job.id !== expected) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `queue job ${JSON.stringify(job.id ?? null)}: its id is not the one its run and sample give (${expected}); the coordinator never made it`,
      { path: ['id'] },
    );
  }
  if (resolveInsideFolders(data.config.datasetPath, trust.datasetDirs) === null) {
    throw new WorkbenchError(
      'FORBIDDEN',
      `queue job ${expected}: dataset ${data.config.datasetPath} is outside the folders this worker was given (${trust.datasetDirs.length === 0 ? 'none: start it with --dataset-dir <folder>' : `--dataset-dir ${trust.datasetDirs.join(', ')}`})`,
      { path: ['config', 'datasetPath'] },
    );
  }
  checkMemoryCaller(data.config.memory.preset, data.config.memory.config, {
    mayStartProcesses: trust.allowMemoryCommand,
    allowedDirs: trust.datasetDirs,
  });
  return data;
}

const testsKey = (queue: string, jobId: string): string => `mw:${queue}:tests:${jobId}`;
const sideKey = (queue: string, jobId: string): string => `mw:${queue}:side:${jobId}`;
/** Set while a job's run is cancelled, so a worker that takes the job late still stops it. */
const cancelKey = (queue: string, jobId: string): string => `mw:${queue}:cancel:${jobId}`;
/** Where the coordinator tells every worker to stop a job it may be running. */
const cancelChannel = (queue: string): string => `mw:${queue}:cancel`;
const CANCEL_TTL_MS = 24 * 60 * 60 * 1000;

function connectionOf(url: string): { url: string; maxRetriesPerRequest: null } {
  // BullMQ's blocking commands need maxRetriesPerRequest: null.
  return { url: parseRedisUrl(url), maxRetriesPerRequest: null };
}

export interface BullmqExecutorOptions {
  redisUrl: string;
  queue?: string;
  /** Attempts per job when a worker fails it (a worker that dies is retried by stall detection). */
  attempts?: number;
}

export interface DistributedExecutor {
  executor: SampleExecutor;
  close(): Promise<void>;
}

/** The coordinator's side: a SampleExecutor that runs each sample as a BullMQ job. */
export async function bullmqExecutor(options: BullmqExecutorOptions): Promise<DistributedExecutor> {
  const name = options.queue ?? DEFAULT_QUEUE;
  const connection = connectionOf(options.redisUrl);
  const queue = new Queue(name, { connection });
  const events = new QueueEvents(name, { connection });
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  // Connection errors are retried by ioredis and surface as failed commands; no unhandled event.
  redis.on('error', () => undefined);
  // Each job in flight waits with its own listeners (a sweep has many cells × samples in flight).
  queue.setMaxListeners(0);
  events.setMaxListeners(0);
  await events.waitUntilReady();
  /** jobId -> the handler that commits a reported test. */
  const listeners = new Map<string, (testIndex: number) => void>();
  events.on('progress', ({ jobId, data }) => {
    const parsed = progressSchema.safeParse(data);
    if (parsed.success) listeners.get(jobId)?.(parsed.data.testIndex);
  });

  const run: SampleExecutor['run'] = async (job, hooks, signal) => {
    const jobId = jobIdOf(job.runId, job.sample.sampleId);
    const key = testsKey(name, jobId);
    const side = sideKey(name, jobId);
    const committed = new Set(job.skipTests);
    let chain = Promise.resolve();
    const commitFromRedis = (testIndex: number): Promise<void> => {
      chain = chain.then(async () => {
        if (committed.has(testIndex)) return;
        const raw = await redis.hget(key, String(testIndex));
        if (raw === null) return;
        const test: TestRecord = testRecordSchema.parse(JSON.parse(raw));
        if (committed.has(test.testIndex)) return;
        committed.add(test.testIndex);
        await hooks.commitTest(test);
        hooks.emit({
          type: 'test-committed',
          runId: job.runId,
          at: Date.now(),
          sampleId: test.sampleId,
          testIndex: test.testIndex,
          meanF1:
            test.answers.length === 0
              ? null
              : test.answers.reduce((s, a) => s + (a.scores['officialF1'] ?? 0), 0) /
                test.answers.length,
          errors: test.answers.filter((a) => a.error !== null).length,
        });
      });
      return chain;
    };
    /** Files the workers' call records and warnings reported so far (each once: taken out). */
    const drainSide = async (): Promise<void> => {
      const [[, raw] = [null, []]] = ((await redis.multi().lrange(side, 0, -1).del(side).exec()) ??
        []) as Array<[Error | null, unknown]>;
      for (const entry of raw as string[]) {
        const parsed = sideRecordSchema.safeParse(JSON.parse(entry));
        if (!parsed.success) continue;
        if (parsed.data.type === 'calls') hooks.recordCalls(parsed.data.record);
        else hooks.log?.(parsed.data.level, parsed.data.message);
      }
    };
    /** Commits, in test order, whatever the hash holds that the runs DB does not. */
    const reconcile = async (): Promise<void> => {
      const fields = (await redis.hkeys(key)).map(Number).sort((a, b) => a - b);
      for (const f of fields) await commitFromRedis(f);
      await drainSide();
    };
    listeners.set(jobId, (testIndex) => void commitFromRedis(testIndex));
    try {
      const existing = await queue.getJob(jobId);
      const state = existing ? await existing.getState() : null;
      // A job of an earlier attempt that still runs (the coordinator restarted) is waited for;
      // a finished one is replaced, so a resumed run runs the sample again.
      if (existing && (state === 'completed' || state === 'failed')) await existing.remove();
      // A resumed run runs a sample whose earlier run was cancelled.
      await redis.del(cancelKey(name, jobId));
      const data = sampleJobWire(job);
      const added =
        existing && state !== 'completed' && state !== 'failed'
          ? existing
          : await queue.add('sample', data, {
              jobId,
              attempts: options.attempts ?? 2,
              removeOnComplete: true,
              removeOnFail: false,
            });
      // A withdrawn job never finishes, so its wait ends here instead.
      let withdrawn: (() => void) | undefined;
      const whenWithdrawn = new Promise<never>((_resolve, reject) => {
        withdrawn = () =>
          reject(new WorkbenchError('CANCELLED', `sample ${job.sample.sampleId}: cancelled`));
      });
      const onAbort = (): void => {
        // A waiting job is withdrawn. An active one is locked, so the worker running it is told
        // to stop: it ends the sample as cancelled, and the tests it committed are kept.
        added.remove().then(
          () => withdrawn?.(),
          () =>
            redis
              .multi()
              .set(cancelKey(name, jobId), '1', 'PX', CANCEL_TTL_MS)
              .publish(cancelChannel(name), jobId)
              .exec()
              .catch(() => undefined),
        );
      };
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) onAbort();
      let result: unknown;
      try {
        result = await Promise.race([added.waitUntilFinished(events), whenWithdrawn]);
      } catch (error) {
        await reconcile();
        if (signal.aborted) {
          throw new WorkbenchError('CANCELLED', `sample ${job.sample.sampleId}: cancelled`);
        }
        throw new WorkbenchError(
          'INTERNAL',
          `sample ${job.sample.sampleId}: job ${jobId} failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
      await reconcile();
      const outcome: SampleOutcome = outcomeSchema.parse(result);
      await redis.del(key, side);
      return outcome;
    } finally {
      listeners.delete(jobId);
    }
  };

  return {
    executor: {
      kind: 'distributed',
      prepare: async () => undefined,
      parallelFor: (_requested, samples) => Math.max(1, samples),
      run,
    },
    async close() {
      await events.close();
      await queue.close();
      redis.disconnect();
    },
  };
}

export interface SampleWorkerOptions {
  redisUrl: string;
  queue?: string;
  /** Samples processed at once by this process (one worker thread each). */
  concurrency?: number;
  /** Collections of the samples in progress live under <dataDir>/collections/. */
  dataDir: string;
  /** What this worker's operator allows the queue's jobs; default: no commands, no folders. */
  trust?: WorkerTrust;
  apiKeys?: ApiKeySource;
  /** How long a job's lock lasts without renewal; a dead worker's job is retried after it. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** Jobs started per `limitDurationMs` across every worker of the queue (one shared budget). */
  limit?: { max: number; durationMs: number };
  /**
   * LLM requests started per minute per endpoint across every worker sharing the Redis: a token
   * bucket in Redis each request takes from (http/redisTokenBucket.ts).
   */
  callsPerMinute?: number;
  /** Redis or BullMQ trouble (a lost connection is retried); each distinct message once. */
  onError?: (message: string) => void;
  onJob?: (event: {
    jobId: string;
    state: 'started' | 'completed' | 'failed';
    error?: string;
  }) => void;
}

/** A coded error as `CODE: message`, so the coordinator's job failure keeps the code. */
function errorText(error: unknown): string {
  if (error instanceof WorkbenchError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

export interface SampleWorker {
  close(): Promise<void>;
}

/** `cli worker`: takes sample jobs and runs each in a worker thread, like a local run. */
export async function startSampleWorker(options: SampleWorkerOptions): Promise<SampleWorker> {
  const name = options.queue ?? DEFAULT_QUEUE;
  const redis = new Redis(parseRedisUrl(options.redisUrl), { maxRetriesPerRequest: null });
  redis.on('error', () => undefined);
  const executor = workerExecutor();
  const keys = options.apiKeys ?? new ApiKeySource();
  const trust = options.trust ?? { allowMemoryCommand: false, datasetDirs: [] };
  const bucket =
    options.callsPerMinute !== undefined
      ? new RedisTokenBucket(redis, {
          perMinute: options.callsPerMinute,
          prefix: `${name}:llm-rate:`,
        })
      : undefined;

  const processor = async (
    job: Job,
    _token?: string,
    signal?: AbortSignal,
  ): Promise<SampleOutcome> => {
    const jobId = job.id ?? jobIdOf('unknown', 'unknown');
    options.onJob?.({ jobId, state: 'started' });
    const cancel = new AbortController();
    const onCancel = (): void => cancel.abort(signal?.reason);
    if (signal?.aborted) onCancel();
    signal?.addEventListener('abort', onCancel, { once: true });
    let data: z.output<typeof jobDataSchema>;
    try {
      data = checkSampleJob(job, trust);
      // The worker creates the service from the registry this checks: refuses unknown presets.
      await executor.prepare(data.config);
    } catch (error) {
      signal?.removeEventListener('abort', onCancel);
      options.onJob?.({ jobId, state: 'failed', error: errorText(error) });
      // A refused job fails once: another attempt would be refused the same way.
      throw new UnrecoverableError(errorText(error));
    }
    const config = data.config;
    // Cancelled before this worker took it (the message went by while no one ran it).
    if ((await redis.exists(cancelKey(name, jobId))) > 0) cancel.abort('cancelled');
    const key = testsKey(name, jobId);
    const side = sideKey(name, jobId);
    // Tests an earlier attempt of this job already stored are not computed again.
    const stored = (await redis.hkeys(key)).map(Number);
    const collectionDir = jobCollectionDir(options.dataDir, jobId);
    rmSync(collectionDir, { recursive: true, force: true });
    mkdirSync(collectionDir, { recursive: true });
    let writes = Promise.resolve();
    const report = (record: SideRecord): void => {
      writes = writes.then(async () => {
        await redis.rpush(side, JSON.stringify(record));
      });
    };
    try {
      const outcome = await executor.run(
        {
          runId: data.runId,
          sample: data.sample,
          plan: data.plan,
          config,
          benchmark: data.benchmark,
          skipTests: new Set([...data.skipTests, ...stored]),
          collectionDir,
          cacheDir: dataCacheDir(options.dataDir),
          apiKeys: experimentApiKeys(config, keys),
          // The job's author is not this worker's operator: never show them a service's reply.
          quoteReplies: false,
        },
        {
          emit: () => undefined,
          ...(bucket
            ? {
                budget: new CallBudget(
                  runBudgetLimit(config) ?? DEFAULT_LLM_CONCURRENCY,
                  endpointLimitsOf(config),
                  Date.now,
                  (endpoint, signal) => bucket.take(endpoint, signal),
                ),
              }
            : {}),
          recordCalls: (record) => report({ type: 'calls', record }),
          log: (level, message) => report({ type: 'log', level, message }),
          commitTest: (test) => {
            writes = writes.then(async () => {
              await redis.hsetnx(key, String(test.testIndex), JSON.stringify(test));
              await job.updateProgress({ testIndex: test.testIndex });
            });
            return writes;
          },
        },
        cancel.signal,
      );
      await writes;
      options.onJob?.({ jobId, state: 'completed' });
      return outcome;
    } catch (error) {
      options.onJob?.({ jobId, state: 'failed', error: errorText(error) });
      throw error;
    } finally {
      signal?.removeEventListener('abort', onCancel);
      rmSync(collectionDir, { recursive: true, force: true });
    }
  };

  const worker = new Worker(name, processor, {
    connection: connectionOf(options.redisUrl),
    concurrency: options.concurrency ?? 1,
    lockDuration: options.lockDurationMs ?? DEFAULT_LOCK_MS,
    stalledInterval: options.stalledIntervalMs ?? DEFAULT_STALLED_CHECK_MS,
    maxStalledCount: 3,
    ...(options.limit
      ? { limiter: { max: options.limit.max, duration: options.limit.durationMs } }
      : {}),
  });
  const reported = new Set<string>();
  worker.on('error', (error: Error) => {
    if (reported.has(error.message)) return;
    reported.add(error.message);
    options.onError?.(error.message);
  });
  // The coordinator's cancels: BullMQ hands the processor of that job an abort signal.
  const cancels = redis.duplicate();
  cancels.on('error', () => undefined);
  cancels.on('message', (_channel: string, jobId: string) => {
    worker.cancelJob(jobId, 'cancelled by the coordinator');
  });
  await cancels.subscribe(cancelChannel(name));
  await worker.waitUntilReady();
  return {
    async close() {
      await worker.close();
      cancels.disconnect();
      redis.disconnect();
    },
  };
}
