import { mkdirSync, rmSync } from 'node:fs';
import { arch, availableParallelism, platform } from 'node:os';
import { join } from 'node:path';
import type { Sample, TestPlan } from '../../../src-shared/dataset';
import { WorkbenchError, parseOrThrow } from '../../../src-shared/errors';
import {
  ExperimentConfigSchema,
  estimateRemainingMs,
  summarizeAnswers,
  type ExperimentConfig,
  type ExperimentConfigInput,
  type ProgressEvent,
  type RunStatus,
  type RunSummary,
} from '../../../src-shared/experiment';
import { loadDatasetFile } from '../dataset/load';
import { packetCount } from '../dataset/packets';
import { planTests } from '../dataset/testPlan';
import { appVersion, gitCommit } from '../provenance';
import type { TokenTotals } from '../../../src-shared/runs';
import type { SweepTag } from '../../../src-shared/sweeps';
import { configHash, newRunId, redactSecrets, type RunManifest } from '../runs/manifest';
import type { RunStore } from '../runs/store';
import { judgePromptRecord } from '../answer/prompts';
import { costOf } from '../answer/llm-client';
import { ApiKeySource, experimentApiKeys, type ApiKeys } from '../keys';
import { answererProvenance } from './answerers';
import { workerExecutor, type SampleExecutor } from './executors';
import { judgeRun } from './judgeRun';
import type { SampleEvent, SampleJob } from './runSample';

/**
 * The main-thread side of an experiment: load and plan, create the run, hand samples to an
 * executor (`parallel` at a time), commit each test the executor reports (the runs DB has one
 * writer: this thread), and finish the run as completed, cancelled or failed.
 */

export interface RunOptions {
  store: RunStore;
  /** Collections live in <dataDir>/collections/<runId>/<sampleId>/. */
  dataDir: string;
  onProgress?: (event: ProgressEvent) => void;
  /** Default: one worker thread per sample. */
  executor?: SampleExecutor;
  /** Keep each sample's collection directory after the run (default: delete it). */
  keepCollections?: boolean;
  /** Cancels like `handle.cancel()`. */
  signal?: AbortSignal;
  /** Where the config's API keys come from (default: the environment, key-like names only). */
  apiKeys?: ApiKeySource;
  /** Tags a new run as a cell of a sweep (kept in its manifest). */
  sweep?: SweepTag;
  now?: () => number;
}

export interface RunOutcome {
  runId: string;
  status: Exclude<RunStatus, 'running' | 'interrupted'>;
  summary: RunSummary;
  elapsedMs: number;
  error: string | null;
  /**
   * Questions of the run's samples that were not asked: those without usable evidence, unless
   * the config includes them. Official overall scores count every question, so say it.
   */
  notAsked: number;
}

export interface ExperimentHandle {
  runId: string;
  /** Settles when the run stops; never rejects (a failure is `status: 'failed'` with `error`). */
  done: Promise<RunOutcome>;
  /** Graceful: in-flight questions finish, half-done tests are dropped, committed work stays. */
  cancel(): void;
}

interface PlannedSample {
  sample: Sample;
  plan: TestPlan;
  skipTests: Set<number>;
}

export function collectionDirFor(dataDir: string, runId: string, sampleId: string): string {
  return join(dataDir, 'collections', runId, sampleId.replace(/[^A-Za-z0-9._-]/g, '_'));
}

export function effectiveParallel(requested: number, samples: number): number {
  return Math.max(1, Math.min(requested, availableParallelism(), samples));
}

export function selectSamples(
  all: readonly Sample[],
  ids: readonly string[] | undefined,
): Sample[] {
  if (!ids) return [...all];
  const byId = new Map(all.map((s) => [s.sampleId, s]));
  return ids.map((id, i) => {
    const sample = byId.get(id);
    if (!sample) {
      throw new WorkbenchError(
        'INVALID_INPUT',
        `samples[${i}]: no sample "${id}" in the dataset (samples: ${all.map((s) => s.sampleId).join(', ')})`,
        { path: ['samples', i] },
      );
    }
    return sample;
  });
}

function embedderOf(config: ExperimentConfig): string | null {
  const e = config.memory.config['embedder'];
  if (typeof e === 'string') return e;
  if (e !== null && typeof e === 'object' && typeof (e as { name?: unknown }).name === 'string') {
    return (e as { name: string }).name;
  }
  return null;
}

const zeroTokens = { calls: 0, promptTokens: 0, completionTokens: 0 };

function answerTotals(
  config: ExperimentConfig,
  tokens: typeof zeroTokens,
): NonNullable<RunManifest['usage']>['answer'] {
  const prices = config.answerer.kind === 'llm' ? config.answerer.prices : undefined;
  return { ...tokens, cost: costOf(tokens, prices) };
}

/**
 * The memory LLM's totals: an earlier launch's (a resumed run replays packets, so their calls are
 * made again and counted again) plus this launch's. Null without a memory LLM.
 */
function memoryTotals(
  config: ExperimentConfig,
  before: TokenTotals | null,
  now: typeof zeroTokens,
): TokenTotals | null {
  if (!config.memory.llm) return null;
  const sum = {
    calls: (before?.calls ?? 0) + now.calls,
    promptTokens: (before?.promptTokens ?? 0) + now.promptTokens,
    completionTokens: (before?.completionTokens ?? 0) + now.completionTokens,
  };
  return { ...sum, cost: costOf(sum, config.memory.llm.prices) };
}

/** Validates, loads and plans, creates the run, and starts it. Resolves once the run exists. */
export async function startExperiment(
  input: ExperimentConfigInput | ExperimentConfig,
  options: RunOptions,
): Promise<ExperimentHandle> {
  const config = parseOrThrow(ExperimentConfigSchema, input, 'experiment config');
  const apiKeys = experimentApiKeys(config, options.apiKeys ?? new ApiKeySource());
  const executor = options.executor ?? workerExecutor();
  await executor.prepare(config);
  const dataset = await loadDatasetFile(config.datasetPath);
  const samples = selectSamples(dataset.samples, config.samples);
  const now = options.now ?? Date.now;
  const runId = newRunId(now());
  const planned: PlannedSample[] = samples.map((sample) => ({
    sample,
    plan: planTests(sample, { includeNoEvidence: config.includeNoEvidence }),
    skipTests: new Set(),
  }));
  const stored = redactSecrets(config);
  const manifest: RunManifest = {
    manifestVersion: 1,
    runId,
    config: stored,
    configHash: configHash(stored),
    dataset: {
      path: config.datasetPath,
      sha256: dataset.info.sha256,
      bytes: dataset.info.bytes,
      format: dataset.info.format,
    },
    samples: samples.map((s) => s.sampleId),
    app: { version: appVersion(), gitCommit: gitCommit() },
    memory: { preset: config.memory.preset, notes: [] },
    embedder: embedderOf(config),
    answerer: answererProvenance(config.answerer),
    judge: config.judge
      ? { model: config.judge.model, repeats: config.judge.repeats, prompt: judgePromptRecord() }
      : null,
    usage: {
      answer: answerTotals(config, zeroTokens),
      judge: null,
      memory: memoryTotals(config, null, zeroTokens),
    },
    seed: config.seed,
    parallel: (executor.parallelFor ?? effectiveParallel)(config.parallel, samples.length),
    host: {
      platform: platform(),
      arch: arch(),
      node: process.version,
      cores: availableParallelism(),
    },
    startedAt: new Date(now()).toISOString(),
    endedAt: null,
    errors: { insert: 0, answer: 0 },
    ...(options.sweep ? { sweep: options.sweep } : {}),
  };
  options.store.createRun(
    manifest,
    planned.map(({ sample, plan }) => ({
      sampleId: sample.sampleId,
      totalPackets: packetCount(sample),
      totalQuestions: plan.totalQuestions,
      threshold: plan.threshold,
      plannedTests: plan.tests.length,
    })),
  );
  const notAsked = notAskedOf(planned);
  return launch(
    runId,
    config,
    apiKeys,
    planned,
    manifest.parallel,
    false,
    notAsked,
    executor,
    options,
  );
}

/**
 * Continues an interrupted, cancelled or failed run: every unfinished sample is replayed from its
 * first packet in a fresh collection, answering only the tests not yet committed. With
 * deterministic presets and answerer the final answers equal an uninterrupted run's.
 */
export async function resumeExperiment(
  runId: string,
  options: RunOptions,
): Promise<ExperimentHandle> {
  const { store } = options;
  const run = store.getRun(runId);
  if (run.status === 'completed') {
    throw new WorkbenchError('CONFLICT', `run ${runId} is already completed; nothing to resume`);
  }
  if (run.status === 'running') {
    throw new WorkbenchError(
      'CONFLICT',
      `run ${runId} is still running (process ${run.pid ?? 'unknown'}); cancel it or wait`,
    );
  }
  const config = parseOrThrow(ExperimentConfigSchema, run.manifest.config, `run ${runId} config`);
  const apiKeys = experimentApiKeys(config, options.apiKeys ?? new ApiKeySource());
  const executor = options.executor ?? workerExecutor();
  await executor.prepare(config);
  const dataset = await loadDatasetFile(config.datasetPath);
  if (run.manifest.dataset.sha256 !== null && dataset.info.sha256 !== run.manifest.dataset.sha256) {
    throw new WorkbenchError(
      'DATASET_INVALID',
      `${config.datasetPath}: the file changed since run ${runId} started (sha256 ${dataset.info.sha256} vs ${run.manifest.dataset.sha256}); resuming would mix two datasets`,
      { where: config.datasetPath },
    );
  }
  const byId = new Map(dataset.samples.map((s) => [s.sampleId, s]));
  const planned: PlannedSample[] = [];
  for (const info of run.sampleInfo) {
    if (info.status === 'completed') continue;
    const sample = byId.get(info.sampleId);
    if (!sample) {
      throw new WorkbenchError(
        'DATASET_INVALID',
        `${config.datasetPath}: sample ${info.sampleId} is gone`,
      );
    }
    planned.push({
      sample,
      plan: planTests(sample, { includeNoEvidence: config.includeNoEvidence }),
      skipTests: new Set(store.committedTests(runId, info.sampleId)),
    });
  }
  // Over every sample of the run, finished ones included: the summary covers them all.
  const notAsked = notAskedOf(
    run.sampleInfo.flatMap((info) => {
      const sample = byId.get(info.sampleId);
      return sample
        ? [{ sample, plan: planTests(sample, { includeNoEvidence: config.includeNoEvidence }) }]
        : [];
    }),
  );
  store.reopenRun(runId);
  return launch(
    runId,
    config,
    apiKeys,
    planned,
    (executor.parallelFor ?? effectiveParallel)(config.parallel, planned.length),
    true,
    notAsked,
    executor,
    options,
  );
}

/** Questions the plans leave out (no usable evidence, unless the config includes them). */
function notAskedOf(plans: ReadonlyArray<Pick<PlannedSample, 'sample' | 'plan'>>): number {
  return plans.reduce((n, p) => n + p.sample.qa.length - p.plan.totalQuestions, 0);
}

function launch(
  runId: string,
  config: ExperimentConfig,
  apiKeys: ApiKeys,
  planned: PlannedSample[],
  parallel: number,
  resumed: boolean,
  notAsked: number,
  executor: SampleExecutor,
  options: RunOptions,
): ExperimentHandle {
  const controller = new AbortController();
  if (options.signal) {
    if (options.signal.aborted) controller.abort();
    else options.signal.addEventListener('abort', () => controller.abort(), { once: true });
  }
  const done = execute(
    runId,
    config,
    apiKeys,
    planned,
    parallel,
    resumed,
    executor,
    options,
    controller.signal,
  ).then((outcome) => ({ ...outcome, notAsked }));
  return { runId, done, cancel: () => controller.abort() };
}

async function execute(
  runId: string,
  config: ExperimentConfig,
  apiKeys: ApiKeys,
  planned: PlannedSample[],
  parallel: number,
  resumed: boolean,
  executor: SampleExecutor,
  options: RunOptions,
  signal: AbortSignal,
): Promise<Omit<RunOutcome, 'notAsked'>> {
  const { store } = options;
  const now = options.now ?? Date.now;
  const startedAt = now();
  const emit = (event: ProgressEvent): void => {
    try {
      options.onProgress?.(event);
    } catch {
      // A broken progress listener must not break the run.
    }
  };
  const totalPackets = planned.reduce((sum, p) => sum + packetCount(p.sample), 0);
  const packetsDone = new Map<string, number>();
  let donePackets = 0;
  const failures: string[] = [];
  const notes = new Set<string>();
  let embedder: string | null = null;
  const dirs: string[] = [];
  /** The memory service's own LLM calls (memory.llm), summed over this launch's samples. */
  const memoryTokens = { calls: 0, promptTokens: 0, completionTokens: 0 };

  emit({
    type: 'run-started',
    runId,
    at: now(),
    samples: planned.map((p) => p.sample.sampleId),
    totalPackets,
    totalTests: planned.reduce((sum, p) => sum + p.plan.tests.length - p.skipTests.size, 0),
    resumed,
  });

  const forward = (event: SampleEvent): void => {
    if (event.type === 'packet') {
      donePackets += event.inserted - (packetsDone.get(event.sampleId) ?? 0);
      packetsDone.set(event.sampleId, event.inserted);
      emit({ ...event, etaMs: estimateRemainingMs(now() - startedAt, donePackets, totalPackets) });
    } else {
      emit(event);
    }
  };

  const runOne = async (p: PlannedSample): Promise<void> => {
    const sampleId = p.sample.sampleId;
    const dir = collectionDirFor(options.dataDir, runId, sampleId);
    // A replay starts from an empty collection: whatever a killed attempt left is not trusted.
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    dirs.push(dir);
    store.markSample(runId, sampleId, { status: 'running' });
    const job: SampleJob = {
      runId,
      sample: p.sample,
      plan: p.plan,
      config,
      skipTests: p.skipTests,
      collectionDir: dir,
      apiKeys,
    };
    try {
      const outcome = await executor.run(
        job,
        { emit: forward, commitTest: (test) => store.commitTest(runId, test) },
        signal,
      );
      for (const n of outcome.notes) notes.add(n);
      embedder ??= outcome.embedder;
      memoryTokens.calls += outcome.stats['llm.calls'] ?? 0;
      memoryTokens.promptTokens += outcome.stats['llm.promptTokens'] ?? 0;
      memoryTokens.completionTokens += outcome.stats['llm.completionTokens'] ?? 0;
      store.markSample(runId, sampleId, {
        status: outcome.status,
        insertErrors: outcome.insertErrors,
        insertErrorMessages: outcome.insertErrorMessages,
        notes: outcome.notes,
      });
      emit({
        type: 'sample-finished',
        runId,
        at: now(),
        sampleId,
        status: outcome.status,
        insertErrors: outcome.insertErrors,
        answerErrors: outcome.answerErrors,
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const cancelledHard =
        signal.aborted && error instanceof WorkbenchError && error.code === 'CANCELLED';
      if (!cancelledHard) failures.push(`${sampleId}: ${message}`);
      const status = cancelledHard ? 'cancelled' : 'failed';
      store.markSample(runId, sampleId, { status, error: message });
      emit({
        type: 'sample-finished',
        runId,
        at: now(),
        sampleId,
        status,
        insertErrors: 0,
        answerErrors: 0,
      });
    }
  };

  let status: RunOutcome['status'] = 'completed';
  let error: string | null = null;
  try {
    const queue = [...planned];
    const lanes = Array.from(
      { length: Math.min(parallel, Math.max(queue.length, 1)) },
      async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          if (signal.aborted) return;
          await runOne(next);
        }
      },
    );
    await Promise.all(lanes);
    // The judge scores a finished run only: a resumed run is judged when it completes.
    if (!signal.aborted && failures.length === 0 && config.judge) {
      try {
        await judgeRun(store, runId, config.judge, { signal, keys: apiKeys });
      } catch (error) {
        // A cancel stops the pass: verdicts already saved stay, resume judges the rest.
        if (!signal.aborted) throw error;
      }
    }
    if (signal.aborted) status = 'cancelled';
    else if (failures.length > 0) {
      status = 'failed';
      error =
        failures.length === 1
          ? (failures[0] as string)
          : `${failures.length} samples failed; first: ${failures[0]}`;
    }
  } catch (caught) {
    status = 'failed';
    error = caught instanceof Error ? caught.message : String(caught);
  } finally {
    if (!options.keepCollections) {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      rmSync(join(options.dataDir, 'collections', runId), { recursive: true, force: true });
    }
  }

  const elapsedMs = now() - startedAt;
  let summary: RunSummary;
  try {
    store.finishRun(runId, status, {
      error,
      manifest: (m) => ({
        ...m,
        memory: { ...m.memory, notes: [...new Set([...m.memory.notes, ...notes])] },
        // The service knows its embedder (config defaults included); the config alone may not.
        embedder: m.embedder ?? embedder,
        usage: {
          answer: answerTotals(config, store.answerTokenTotals(runId)),
          judge: m.usage?.judge ?? null,
          memory: memoryTotals(config, m.usage?.memory ?? null, memoryTokens),
        },
      }),
    });
    summary = store.summary(runId);
  } catch (caught) {
    status = 'failed';
    error = `runs database: ${caught instanceof Error ? caught.message : String(caught)}`;
    summary = summarizeAnswers([]);
  }
  if (status === 'completed') emit({ type: 'run-finished', runId, at: now(), summary, elapsedMs });
  else if (status === 'cancelled') emit({ type: 'run-cancelled', runId, at: now(), elapsedMs });
  else emit({ type: 'run-failed', runId, at: now(), message: error ?? 'failed', elapsedMs });
  return { runId, status, summary, elapsedMs, error };
}
