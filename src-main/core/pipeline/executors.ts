import { WorkbenchError } from '../../../src-shared/errors';
import type { ExperimentConfig } from '../../../src-shared/experiment';
import type { Answerer } from '../answer/types';
import {
  killServiceChildrenOf,
  signalServiceChildrenOf,
  serviceChildTable,
  watchServiceChildren,
} from '../memory/external/children';
import { MEM0_WORKER_ENV } from '../memory/presets/mem0';
import { createAnswerer } from './answerers';
import { checkMemoryConfig, extraPresetModules } from './loadPresets';
import {
  sequenceChecker,
  sequencer,
  workerOutSchema,
  type WithoutSeq,
  type WorkerIn,
  type WorkerInit,
  type WorkerOut,
  type WorkerReport,
} from './protocol';
import {
  answererMeter,
  openResponseCache,
  runSample,
  type MemoryFactory,
  type SampleHooks,
  type SampleJob,
  type SampleOutcome,
  sampleJobWire,
} from './runSample';
import { startExperimentWorker } from './workerUrl';
import { loadWordVectorImage, type WordVectorRequest } from '../embed/winkVectors';
import { SlotLender } from './remoteGate';
import type { Worker } from 'node:worker_threads';

/**
 * How a sample gets executed. The runner does not care whether it is a worker thread (the real
 * thing) or this thread (unit tests with an injected memory factory).
 */
export interface SampleExecutor {
  readonly kind: 'worker' | 'inline' | 'distributed';
  /**
   * Samples handed out at once (default: the config's `parallel` clamped to this machine's cores);
   * a distributed executor hands out every sample and lets its workers pace them.
   */
  parallelFor?(requested: number, samples: number): number;
  /** Fails fast, before a run is created, on a config this executor cannot run. */
  prepare(config: ExperimentConfig): Promise<void>;
  run(job: SampleJob, hooks: SampleHooks, signal: AbortSignal): Promise<SampleOutcome>;
}

export interface InlineExecutorOptions {
  createMemory: MemoryFactory;
  /** Defaults to the answerer the config names. */
  answerer?: Answerer;
  queueCapacity?: number;
}

/** Runs samples on this thread with an injected memory factory: for tests and embedding. */
export function inlineExecutor(options: InlineExecutorOptions): SampleExecutor {
  return {
    kind: 'inline',
    prepare: async () => undefined,
    run: async (job, hooks, signal) => {
      const cache = openResponseCache(job);
      try {
        return await runSample(job, hooks, {
          createMemory: options.createMemory,
          answerer:
            options.answerer ??
            createAnswerer(
              job.config.answerer,
              job.apiKeys,
              answererMeter(job.config.answerer, hooks),
              hooks.budget,
              cache,
            ),
          ...(hooks.budget ? { budget: hooks.budget } : {}),
          ...(cache ? { responseCache: cache } : {}),
          signal,
          ...(options.queueCapacity !== undefined ? { queueCapacity: options.queueCapacity } : {}),
        });
      } finally {
        cache?.close();
      }
    },
  };
}

export interface WorkerExecutorOptions {
  /** Preset modules the worker imports besides the built-in ones (default: from the environment). */
  presetModules?: string[];
  /** After a cancel, how long a worker may take to finish its question before it is terminated. */
  cancelGraceMs?: number;
  /** How long an idle worker waits for another sample before it ends. */
  idleMs?: number;
  /** Progress events carry the worker thread's CPU time (`threadCpuMs`): for benchmarks. */
  stampThreadCpu?: boolean;
}

/** A worker with the sequence state that lives as long as it does. */
interface PooledWorker {
  worker: Worker;
  /** Captured at start: `worker.threadId` reads -1 once the thread has stopped. */
  threadId: number;
  stamp: ReturnType<typeof sequencer<WorkerIn>>;
  checkSeq: (seq: number) => string | null;
  idleTimer?: ReturnType<typeof setTimeout>;
}

/**
 * Idle workers are kept for the next sample: loading tsx and the word vectors costs about a second
 * per worker. They are unref'd while idle (they never keep a CLI alive) and end after a while.
 */
class WorkerPool {
  private readonly idle: PooledWorker[] = [];

  constructor(
    private readonly idleMs: number,
    private readonly init: WorkerInit,
  ) {}

  acquire(name: string): PooledWorker {
    const reused = this.idle.pop();
    if (reused) {
      clearTimeout(reused.idleTimer);
      reused.worker.ref();
      return reused;
    }
    // The worker's own environment: libraries that read theirs when they load (mem0ai's
    // telemetry switch) see the run's settings, and the app's process.env stays as it is.
    const worker = startExperimentWorker({
      name,
      workerData: this.init,
      env: { ...process.env, ...MEM0_WORKER_ENV },
    });
    return {
      worker,
      threadId: worker.threadId,
      stamp: sequencer<WorkerIn>(),
      checkSeq: sequenceChecker(`main thread (${name})`),
    };
  }

  release(pooled: PooledWorker): void {
    pooled.worker.removeAllListeners('message');
    pooled.worker.removeAllListeners('error');
    pooled.worker.removeAllListeners('exit');
    // A worker that dies while idle just leaves the pool.
    pooled.worker.once('exit', () => this.remove(pooled));
    pooled.worker.unref();
    pooled.idleTimer = setTimeout(() => {
      this.remove(pooled);
      void pooled.worker.terminate();
    }, this.idleMs);
    pooled.idleTimer.unref();
    this.idle.push(pooled);
  }

  private remove(pooled: PooledWorker): void {
    const index = this.idle.indexOf(pooled);
    if (index >= 0) this.idle.splice(index, 1);
  }
}

/** What the main thread received from an executor's workers: messages, and the reports in them. */
export interface WorkerTraffic {
  messages: number;
  reports: number;
}

/** Samples run in worker threads (reused across samples); the main thread commits what they send. */
export function workerExecutor(
  options: WorkerExecutorOptions = {},
): SampleExecutor & { readonly traffic: WorkerTraffic } {
  const presetModules = options.presetModules ?? extraPresetModules();
  const grace = options.cancelGraceMs ?? 30_000;
  const pool = new WorkerPool(options.idleMs ?? 10_000, {
    presetModules,
    serviceChildren: serviceChildTable(),
    ...(options.stampThreadCpu === true ? { threadCpu: true } : {}),
  });
  // The workers' services are killed from here when the process ends or is signalled.
  watchServiceChildren();
  const traffic: WorkerTraffic = { messages: 0, reports: 0 };
  return {
    kind: 'worker',
    traffic,
    async prepare(config) {
      // The worker creates the service from this same registry: what passes here, it can open.
      await checkMemoryConfig(config, 'experiment config', presetModules);
    },
    run: (job, hooks, signal) => runInWorker(pool, job, hooks, signal, grace, traffic),
  };
}

/**
 * The word vectors a worker asks for, read and checked once by this thread and shared with every
 * worker (each used to read and check its own 140 MB copy). Null: the worker loads them itself
 * and reports the failure in its own words.
 */
async function sharedWordVectors(request: WordVectorRequest): Promise<SharedArrayBuffer | null> {
  try {
    const image = await loadWordVectorImage(request);
    const whole =
      image.buffer instanceof SharedArrayBuffer &&
      image.byteOffset === 0 &&
      image.byteLength === image.buffer.byteLength;
    return whole ? (image.buffer as SharedArrayBuffer) : null;
  } catch {
    return null;
  }
}

/**
 * Ends a worker that may be mid-sample, and the memory services it started: its own close path
 * dies with it. Killed again once it is gone, for a start announced just before the end.
 */
function terminate({ worker, threadId }: PooledWorker): void {
  killServiceChildrenOf(threadId);
  void worker.terminate().then(() => setImmediate(() => killServiceChildrenOf(threadId)));
}

/**
 * After a cancel, how long the worker's memory services get to answer the call in flight (the
 * question it belongs to is dropped either way), and then how long a SIGTERM gets before SIGKILL.
 * A hung service's call fails once it is gone, so a cancel takes about their sum, not the
 * worker's whole grace.
 */
export const SERVICE_CANCEL_GRACE_MS = 500;
export const SERVICE_TERM_GRACE_MS = 1000;

/** Starts the SIGTERM-then-SIGKILL of a cancelled sample's services; returns its stop. */
function stopServicesAfterCancel(threadId: number, onStop: () => void): () => void {
  let timer = setTimeout(() => {
    onStop();
    signalServiceChildrenOf(threadId, 'SIGTERM');
    timer = setTimeout(() => killServiceChildrenOf(threadId), SERVICE_TERM_GRACE_MS);
  }, SERVICE_CANCEL_GRACE_MS);
  // Settled first: a reused worker's next sample has services of its own.
  return () => clearTimeout(timer);
}

function runInWorker(
  pool: WorkerPool,
  job: SampleJob,
  hooks: SampleHooks,
  signal: AbortSignal,
  graceMs: number,
  traffic: WorkerTraffic,
): Promise<SampleOutcome> {
  const where = `sample ${job.sample.sampleId}`;
  const pooled = pool.acquire(`experiment worker ${job.runId}`);
  const { worker, stamp, checkSeq } = pooled;
  const lender = new SlotLender(hooks.budget, (ids) =>
    worker.postMessage(stamp({ type: 'slot-granted', ids })),
  );
  return new Promise<SampleOutcome>((resolve, reject) => {
    let settled = false;
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    let stopServices: (() => void) | undefined;
    let servicesStopped = false;
    // Only a worker that finished its sample cleanly is reused; after any failure or cancel it
    // may be mid-question or broken, so it is terminated.
    const settle = (fn: () => void, reusable: boolean): void => {
      if (settled) return;
      settled = true;
      lender.close();
      clearTimeout(graceTimer);
      stopServices?.();
      signal.removeEventListener('abort', onAbort);
      fn();
      if (reusable) pool.release(pooled);
      else terminate(pooled);
    };
    const fail = (error: WorkbenchError): void => settle(() => reject(error), false);
    function onAbort(): void {
      worker.postMessage(stamp({ type: 'cancel' }));
      stopServices = stopServicesAfterCancel(pooled.threadId, () => (servicesStopped = true));
      graceTimer = setTimeout(
        () =>
          fail(
            new WorkbenchError(
              'CANCELLED',
              `${where}: the worker did not stop within ${graceMs} ms`,
            ),
          ),
        graceMs,
      );
    }

    worker.on('message', (raw: unknown) => {
      if (settled) return;
      const message = checkedMessage(raw, checkSeq, where);
      if (message instanceof WorkbenchError) {
        fail(message);
        return;
      }
      traffic.messages++;
      if (message.type === 'batch') traffic.reports += message.reports.length;
      try {
        if (message.type === 'done') {
          settle(() => resolve(message.outcome), message.outcome.status === 'completed');
        } else if (message.type === 'error') {
          // A sample whose services the cancel stopped fails for that reason: it was cancelled.
          fail(
            servicesStopped
              ? new WorkbenchError(
                  'CANCELLED',
                  `${where}: cancelled, its memory service stopped (${message.error.message})`,
                )
              : WorkbenchError.fromPayload({
                  ...message.error,
                  where: message.error.where ?? where,
                }),
          );
        } else if (message.type === 'word-vectors-acquire') {
          const { id } = message;
          void sharedWordVectors(message.request).then((image) => {
            if (!settled) worker.postMessage(stamp({ type: 'word-vectors', id, image }));
          });
        } else {
          deliver(message, hooks, lender, () => settled);
        }
      } catch (error) {
        fail(
          error instanceof WorkbenchError
            ? error
            : new WorkbenchError(
                'INTERNAL',
                `${where}: ${error instanceof Error ? error.message : String(error)}`,
              ),
        );
      }
    });
    worker.on('error', (error) =>
      fail(
        new WorkbenchError('INTERNAL', `${where}: worker crashed: ${error.message}`, {
          cause: error,
        }),
      ),
    );
    worker.on('exit', (code) =>
      fail(
        new WorkbenchError('INTERNAL', `${where}: worker exited (code ${code}) before finishing`),
      ),
    );

    worker.postMessage(stamp(startMessage(job, hooks)));
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
  });
}

/** The worker's message, parsed and in sequence; the error to fail the sample with otherwise. */
function checkedMessage(
  raw: unknown,
  checkSeq: PooledWorker['checkSeq'],
  where: string,
): WorkerOut | WorkbenchError {
  const parsed = workerOutSchema.safeParse(raw);
  if (!parsed.success) {
    return new WorkbenchError('INTERNAL', `${where}: bad worker message: ${parsed.error.message}`);
  }
  const gap = checkSeq(parsed.data.seq);
  return gap !== null ? new WorkbenchError('INTERNAL', gap) : parsed.data;
}

/** Hands one of the worker's messages on, other than the sample's end, to the hooks. */
function deliver(
  message: Extract<WorkerOut, { type: 'batch' }>,
  hooks: SampleHooks,
  lender: SlotLender,
  settled: () => boolean,
): void {
  // The reports of a batch, in the order the worker made them.
  for (const report of message.reports) {
    if (settled()) break;
    deliverReport(report, hooks, lender);
  }
}

function deliverReport(report: WorkerReport, hooks: SampleHooks, lender: SlotLender): void {
  switch (report.type) {
    case 'slot-acquire':
    case 'slot-release':
      lender.handle(report);
      break;
    case 'progress':
      hooks.emit(report.event);
      break;
    case 'test-result':
      // Synchronous commit: the next report is handled only after this test is on disk.
      void hooks.commitTest(report.test);
      break;
    case 'memory-done':
      hooks.memoryDone?.();
      break;
    case 'calls':
      hooks.recordCalls(report.record);
      break;
    case 'log':
      hooks.log?.(report.level, report.message);
      break;
  }
}

/** The message that starts the job's sample in a worker: the job as it crosses the thread. */
function startMessage(
  job: SampleJob,
  hooks: SampleHooks,
): WithoutSeq<Extract<WorkerIn, { type: 'start' }>> {
  return {
    type: 'start',
    ...sampleJobWire(job),
    collectionDir: job.collectionDir,
    ...(job.cacheDir !== undefined ? { cacheDir: job.cacheDir } : {}),
    ...(job.responseCache !== undefined ? { responseCache: job.responseCache } : {}),
    ...(job.responseCacheScope !== undefined ? { responseCacheScope: job.responseCacheScope } : {}),
    ...(job.quoteReplies === false ? { quoteReplies: false } : {}),
    ...(hooks.budget ? { budget: true } : {}),
    apiKeys: job.apiKeys,
  };
}
