import { mkdirSync, rmSync } from 'node:fs';
import { arch, availableParallelism, platform } from 'node:os';
import { join, resolve } from 'node:path';
import { benchmarkProfile } from '../../../src-shared/benchmarks';
import type { DatasetLoadResult, Sample } from '../../../src-shared/dataset';
import { WorkbenchError, parseOrThrow } from '../../../src-shared/errors';
import {
  ExperimentConfigSchema,
  estimateRemainingMs,
  DEFAULT_MAX_ERROR_SHARE,
  DEFAULT_MAX_CONSECUTIVE_FAILURES,
  finishedStatus,
  judgeConfigFor,
  summarizeAnswers,
  type ExperimentConfig,
  type ExperimentConfigInput,
  type ProgressEvent,
  type RunStatus,
  type RunSummary,
} from '../../../src-shared/experiment';
import { assertMemoryLlm, prepareMemoryPreset } from '../memory/registry';
import { isLocalUser, type CallerTrust } from '../trust';
import { runDatasetFor, selectFrom, type RunDataset, type SampleEntry } from './runDataset';
import { appVersion, gitCommit } from '../provenance';
import type { SweepTag } from '../../../src-shared/sweeps';
import {
  embedderChoicesIn,
  embedderRecord,
  type EmbedderRecord,
} from '../../../src-shared/embedders';
import type { RunCoverage } from '../../../src-shared/coverage';
import {
  MAX_MANIFEST_WARNINGS,
  type RunIdentity,
  type RunEstimate,
  type SkippedSample,
} from '../../../src-shared/runs';
import { configHash, newRunId, redactSecrets, type RunManifest } from '../runs/manifest';
import type { RunStore } from '../runs/store';
import { judgeProtocolOf } from '../answer/judge-protocols';
import { ApiKeySource, experimentApiKeys, type ApiKeys } from '../keys';
import { usageOf } from '../runs/usage';
import { answererProvenance } from './answerers';
import { workerExecutor, type SampleExecutor } from './executors';
import { dataCacheDir } from '../embed/cache';
import { judgeRun } from './judgeRun';
import { CallBudget } from '../http/callBudget';
import { CallTally } from './callTally';
import { CircuitBreaker } from './circuitBreaker';
import { preflight } from './preflight';
import {
  endpointLimitsOf,
  answersRemotely,
  runBudgetLimit,
  ANSWER_CACHE_HITS,
  ANSWER_CACHE_MISSES,
  type SampleEvent,
  type SampleJob,
} from './runSample';
import type { ResponseCacheMode } from '../answer/responseCache';
import { installPunktModel } from '../scoring/punktModel';
import { errataRecord, type LoadedErrata } from '../dataset/errata';

/**
 * The main-thread side of an experiment: load and plan, create the run, hand samples to an
 * executor (`parallel` at a time), commit each test and file each LLM call the executor reports
 * (the runs DB has one writer: this thread), and finish the run as completed, degraded (too many
 * errored final answers), cancelled or failed.
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
  /** The new run's name, tags and notes (stored beside it, not in its config or hash). */
  identity?: RunIdentity;
  /** Dataset errata to record in a new run's manifest, resolved against its dataset first. */
  errata?: LoadedErrata;
  /**
   * The dataset as the caller already parsed it (the service's open dataset). The runner runs
   * these samples instead of parsing the file again, after checking that the file still has the
   * sha256 it was parsed from.
   */
  dataset?: DatasetLoadResult;
  /**
   * The sha256 of a file the caller opened without keeping a parsed copy (the service's streamed
   * LongMemEval file): the run streams the file and refuses it if its bytes hash differently.
   */
  datasetSha256?: string;
  /**
   * The config came from the local user (CLI, desktop app) and may start processes (an external
   * memory service's `command`). Default false: the browser-mode API must never run programs.
   * Surfaces say which they are through the launcher (launch/launch.ts).
   */
  mayStartProcesses?: boolean;
  /**
   * The folders (`serve --dataset-dir`) whose unix sockets the config may name, for a caller from
   * the network (core/trust.ts). Absent: any, the local user's config.
   */
  allowedDirs?: readonly string[];
  /**
   * One real call to each endpoint before the run is created or resumed (pipeline/preflight.ts);
   * a failure refuses the run. Default false (library callers and tests that queue faults); when
   * a surface's run is preflighted is the launcher's decision (launch/launch.ts).
   */
  preflight?: boolean;
  /**
   * The answerer's LLM response cache in the data folder (answer/responseCache.ts): `on` answers
   * identical requests from it, `only` never calls the endpoint (offline replay). Default off.
   */
  responseCache?: ResponseCacheMode;
  /** The planner's estimate for this run (sweeps/plan.ts), kept in the manifest beside `usage`. */
  estimate?: RunEstimate;
  now?: () => number;
}

export interface RunOutcome {
  runId: string;
  status: Exclude<RunStatus, 'running' | 'interrupted'>;
  summary: RunSummary;
  elapsedMs: number;
  error: string | null;
  /**
   * The run ran its course but too many final answers are errors (`degraded`, or `failed` when
   * all are): resuming it would change nothing.
   */
  tooManyErrors: boolean;
  /**
   * Questions of the run's samples that were not asked: those without usable evidence, unless
   * the config includes them. Official overall scores count every question, so say it.
   */
  notAsked: number;
  /** Invalid samples of the file left out (`skipInvalid`), as the manifest records them. */
  skippedSamples: SkippedSample[];
}

export interface ExperimentHandle {
  runId: string;
  /** Settles when the run stops; never rejects (a failure is `status: 'failed'` with `error`). */
  done: Promise<RunOutcome>;
  /**
   * Graceful: in-flight questions finish, half-done tests are dropped, committed work stays.
   * `reason` (e.g. "cancelled by the user") travels in the run-cancelled event.
   */
  cancel(reason?: string): void;
}

interface PlannedSample extends SampleEntry {
  skipTests: Set<number>;
}

export function collectionDirFor(dataDir: string, runId: string, sampleId: string): string {
  return join(dataDir, 'collections', runId, sampleId.replace(/[^A-Za-z0-9._-]/g, '_'));
}

/**
 * Samples run at once: what the config asks, at most one per sample, and at most one per core
 * unless the answers are remote (an LLM run's lanes wait on the endpoint, not on a core).
 */
export function effectiveParallel(requested: number, samples: number, remote = false): number {
  const cores = remote ? requested : availableParallelism();
  return Math.max(1, Math.min(requested, cores, samples));
}

/**
 * Samples handed out at once. A streamed file's samples are in memory (or in Redis) while they
 * run, so an executor that takes every sample at once (distributed) gets as many as the config's
 * `parallel` or this machine's cores there, not the whole file.
 */
function lanesFor(
  executor: SampleExecutor,
  config: ExperimentConfig,
  samples: number,
  dataset: RunDataset,
): number {
  const lanes = executor.parallelFor
    ? executor.parallelFor(config.parallel, samples)
    : effectiveParallel(config.parallel, samples, answersRemotely(config));
  if (dataset.samples !== null) return lanes;
  return Math.min(lanes, Math.max(config.parallel, availableParallelism()));
}

/** The samples a run takes (runDataset.ts: invalid samples are refused or recorded, never dropped). */
export function selectSamples(
  dataset: DatasetLoadResult,
  config: ExperimentConfig,
): { samples: Sample[]; skipped: SkippedSample[] } {
  return selectFrom(dataset.samples, dataset.problems, config);
}

/**
 * The embedders the memory config names, each once; when it names none, the one the services
 * reported (a preset's default), if any.
 */
function embeddersOf(config: ExperimentConfig, reported: string | null = null): EmbedderRecord[] {
  const records = new Map<string, EmbedderRecord>();
  for (const { choice } of embedderChoicesIn(config.memory.config)) {
    const record = embedderRecord(choice);
    records.set(`${record.name}\u0000${record.baseUrl}`, record);
  }
  if (records.size === 0 && reported !== null) {
    return [{ name: reported, model: null, baseUrl: null }];
  }
  return [...records.values()];
}

/** How long a run's call counts may wait in memory before they are filed in the ledger. */
const CALL_LEDGER_FLUSH_MS = 1_000;

const EMBED_COUNTERS = {
  requests: 'embed.requests',
  cacheHits: 'embed.cacheHits',
  cacheMisses: 'embed.cacheMisses',
} as const;
/**
 * A run from before the call ledger (runs-DB schema 4) has its totals only in its manifest: file
 * them in the ledger once, so a resume adds to them instead of starting from zero.
 */
function seedLedger(store: RunStore, runId: string, manifest: RunManifest): void {
  if (!manifest.usage || store.callLedger(runId).length > 0) return;
  const { config } = manifest;
  const roles = [
    {
      role: 'answer' as const,
      model: config.answerer.kind === 'llm' ? config.answerer.model : config.answerer.kind,
      totals: manifest.usage.answer,
    },
    { role: 'judge' as const, model: manifest.judge?.model ?? '', totals: manifest.usage.judge },
    {
      role: 'memory' as const,
      model: config.memory.llm?.model ?? '',
      totals: manifest.usage.memory,
    },
  ];
  for (const { role, model, totals } of roles) {
    if (!totals || totals.calls === 0) continue;
    store.recordCalls(runId, {
      role,
      model,
      calls: totals.calls,
      failures: totals.failures ?? 0,
      promptTokens: totals.promptTokens,
      completionTokens: totals.completionTokens,
    });
  }
}

function callerTrust(options: RunOptions): CallerTrust {
  return {
    mayStartProcesses: options.mayStartProcesses === true,
    ...(options.allowedDirs !== undefined ? { allowedDirs: options.allowedDirs } : {}),
  };
}

/** An earlier launch's warnings (a resumed run) and this launch's, within the cap. */
function manifestWarnings(
  before: readonly string[] | undefined,
  now: readonly string[],
  dropped: number,
): { warnings?: string[] } {
  const all = [...(before ?? []), ...now];
  if (all.length === 0) return {};
  const kept = all.slice(0, MAX_MANIFEST_WARNINGS);
  const more = all.length - kept.length + dropped;
  return { warnings: more > 0 ? [...kept, `... and ${more} more warnings`] : kept };
}

/** Validates, loads and plans, creates the run, and starts it. Resolves once the run exists. */
export async function startExperiment(
  input: ExperimentConfigInput | ExperimentConfig,
  options: RunOptions,
): Promise<ExperimentHandle> {
  const parsed = parseOrThrow(ExperimentConfigSchema, input, 'experiment config');
  // Stored absolute: a relative path would mean another file once the cwd changes (resume, UI).
  const config = { ...parsed, datasetPath: resolve(parsed.datasetPath) };
  const apiKeys = experimentApiKeys(config, options.apiKeys ?? new ApiKeySource());
  if (options.preflight) await preflight(config, apiKeys, options.signal);
  const executor = options.executor ?? workerExecutor();
  await executor.prepare(config);
  assertMemoryLlm(config.memory.preset, config.memory.llm);
  const service = await prepareMemoryPreset(config.memory.preset, config.memory.config, {
    ...callerTrust(options),
    apiKeys,
  });
  const dataset = await runDatasetFor(
    config.datasetPath,
    config,
    options.dataset,
    options.datasetSha256,
  );
  // The judge the config names, else the dataset's benchmark's own (LongMemEval's on LongMemEval).
  const judged = config.judge
    ? judgeConfigFor(config.judge, benchmarkProfile(dataset.info.format))
    : null;
  if (judged) config.judge = judged.config;
  const { samples, skipped } = selectFrom(dataset.entries, dataset.problems, config);
  // A bad entry is refused before the run exists.
  const errata = options.errata ? errataRecord(options.errata, errataSamples(dataset)) : null;
  const now = options.now ?? Date.now;
  const runId = newRunId(now());
  const planned: PlannedSample[] = samples.map((entry) => ({ ...entry, skipTests: new Set() }));
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
    memory: { preset: config.memory.preset, notes: [], ...(service ? { service } : {}) },
    embedder: embeddersOf(config)[0]?.name ?? null,
    answerer: answererProvenance(config.answerer),
    judge: judged
      ? {
          model: judged.config.model,
          repeats: judged.config.repeats,
          prompt: judgeProtocolOf(judged.config.protocol).record,
        }
      : null,
    usage: usageOf(config, [], null),
    seed: config.seed,
    parallel: lanesFor(executor, config, samples.length, dataset),
    host: {
      platform: platform(),
      arch: arch(),
      node: process.version,
      cores: availableParallelism(),
    },
    startedAt: new Date(now()).toISOString(),
    endedAt: null,
    errors: { insert: 0, answer: 0 },
    scoring: { punktModelSha256: installPunktModel().sha256 },
    ...(skipped.length > 0 ? { skippedSamples: skipped } : {}),
    ...(options.sweep ? { sweep: options.sweep } : {}),
    ...(errata ? { errata } : {}),
    ...(options.estimate ? { estimate: options.estimate } : {}),
    ...(judged?.warning ? { warnings: [judged.warning] } : {}),
    coverage: coverageOf(dataset.entries, planned),
  };
  options.store.createRun(
    manifest,
    planned.map(({ sampleId, packets, plan }) => ({
      sampleId,
      totalPackets: packets,
      totalQuestions: plan.totalQuestions,
      threshold: plan.threshold,
      plannedTests: plan.tests.length,
    })),
  );
  if (options.identity) options.store.setRunIdentity(runId, options.identity);
  const notAsked = notAskedOf(planned);
  return launch(
    runId,
    config,
    apiKeys,
    dataset,
    planned,
    manifest.parallel,
    false,
    notAsked,
    skipped,
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
  if (run.status === 'completed' || run.status === 'degraded') {
    throw new WorkbenchError(
      'CONFLICT',
      `run ${runId} is already ${run.status}; nothing to resume`,
    );
  }
  if (run.status === 'running') {
    throw new WorkbenchError(
      'CONFLICT',
      `run ${runId} is still running (process ${run.pid ?? 'unknown'}); cancel it or wait`,
    );
  }
  const config = parseOrThrow(ExperimentConfigSchema, run.manifest.config, `run ${runId} config`);
  const apiKeys = experimentApiKeys(config, options.apiKeys ?? new ApiKeySource());
  if (options.preflight) await preflight(config, apiKeys, options.signal);
  const executor = options.executor ?? workerExecutor();
  await executor.prepare(config);
  assertMemoryLlm(config.memory.preset, config.memory.llm);
  const service = await prepareMemoryPreset(config.memory.preset, config.memory.config, {
    ...callerTrust(options),
    apiKeys,
  });
  const dataset = await runDatasetFor(config.datasetPath, config);
  if (run.manifest.dataset.sha256 !== null && dataset.info.sha256 !== run.manifest.dataset.sha256) {
    throw new WorkbenchError(
      'DATASET_INVALID',
      `${config.datasetPath}: the file changed since run ${runId} started (sha256 ${dataset.info.sha256} vs ${run.manifest.dataset.sha256}); resuming would mix two datasets`,
      { where: config.datasetPath },
    );
  }
  const byId = new Map(dataset.entries.map((e) => [e.sampleId, e]));
  // Every sample of the run is planned once: finished ones count in notAsked (the summary covers
  // them all), unfinished ones are run.
  const plans = run.sampleInfo.flatMap((info) => {
    const entry = byId.get(info.sampleId);
    if (!entry && info.status !== 'completed') {
      throw new WorkbenchError(
        'DATASET_INVALID',
        `${config.datasetPath}: sample ${info.sampleId} is gone`,
      );
    }
    return entry ? [{ info, entry }] : [];
  });
  const planned: PlannedSample[] = plans
    .filter(({ info }) => info.status !== 'completed')
    .map(({ info, entry }) => ({
      ...entry,
      skipTests: new Set(store.committedTests(runId, info.sampleId)),
    }));
  const notAsked = notAskedOf(plans.map(({ entry }) => entry));
  store.reopenRun(runId);
  seedLedger(store, runId, run.manifest);
  const before = run.manifest.memory.service;
  if (service && before && service.sha256 !== before.sha256) {
    // The answers of one run would come from two services: say so where the run is read.
    store.updateManifest(runId, (m) => ({
      ...m,
      memory: {
        ...m.memory,
        notes: [
          ...m.memory.notes,
          `resumed with a different external service: hello sha256 ${service.sha256} (was ${before.sha256})`,
        ],
      },
    }));
  }
  return launch(
    runId,
    config,
    apiKeys,
    dataset,
    planned,
    lanesFor(executor, config, planned.length, dataset),
    true,
    notAsked,
    run.manifest.skippedSamples ?? [],
    executor,
    options,
  );
}

/** The counts behind the headline's n: the file's questions, and those the config leaves out. */
function coverageOf(
  all: readonly SampleEntry[],
  planned: ReadonlyArray<Pick<SampleEntry, 'questions' | 'otherCategories' | 'plan'>>,
): RunCoverage {
  const datasetQuestions = all.reduce((n, s) => n + s.questions, 0);
  const selected = planned.reduce((n, p) => n + p.questions, 0);
  const otherCategories = planned.reduce((n, p) => n + p.otherCategories, 0);
  return {
    datasetQuestions,
    notSelected: datasetQuestions - selected,
    noEvidenceExcluded: notAskedOf(planned) - otherCategories,
    ...(otherCategories > 0 ? { categoriesNotAsked: otherCategories } : {}),
  };
}

/** Questions the plans leave out (no usable evidence, unless the config includes them). */
function notAskedOf(plans: ReadonlyArray<Pick<SampleEntry, 'questions' | 'plan'>>): number {
  return plans.reduce((n, p) => n + p.questions - p.plan.totalQuestions, 0);
}

/** Errata name samples and questions of a file loaded whole; a streamed file has none in memory. */
function errataSamples(dataset: RunDataset): Sample[] {
  if (dataset.samples === null) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `${dataset.info.source}: errata need a dataset file loaded whole, and this one is streamed (over the whole-file limit)`,
      { where: dataset.info.source },
    );
  }
  return dataset.samples;
}

function launch(
  runId: string,
  config: ExperimentConfig,
  apiKeys: ApiKeys,
  dataset: RunDataset,
  planned: PlannedSample[],
  parallel: number,
  resumed: boolean,
  notAsked: number,
  skippedSamples: SkippedSample[],
  executor: SampleExecutor,
  options: RunOptions,
): ExperimentHandle {
  const controller = new AbortController();
  if (options.signal) {
    if (options.signal.aborted) controller.abort(options.signal.reason);
    else
      options.signal.addEventListener('abort', () => controller.abort(options.signal?.reason), {
        once: true,
      });
  }
  const done = execute(
    runId,
    config,
    apiKeys,
    dataset,
    planned,
    parallel,
    resumed,
    executor,
    options,
    controller.signal,
  ).then((outcome) => ({ ...outcome, notAsked, skippedSamples }));
  return {
    runId,
    done,
    // A CANCELLED error as the reason: calls in flight reject with it (http/retry.ts).
    cancel: (reason) =>
      controller.abort(reason === undefined ? undefined : new WorkbenchError('CANCELLED', reason)),
  };
}

async function execute(
  runId: string,
  config: ExperimentConfig,
  apiKeys: ApiKeys,
  dataset: RunDataset,
  planned: PlannedSample[],
  parallel: number,
  resumed: boolean,
  executor: SampleExecutor,
  options: RunOptions,
  cancelSignal: AbortSignal,
): Promise<Omit<RunOutcome, 'notAsked' | 'skippedSamples'>> {
  const { store } = options;
  // The circuit breaker stops the run like a cancel does (committed work stays, a half test is
  // dropped), but the run ends `paused` with the breaker's reason, resumable.
  const breaker = new CircuitBreaker(
    config.maxConsecutiveFailures ?? DEFAULT_MAX_CONSECUTIVE_FAILURES,
  );
  const pause = new AbortController();
  const signal = AbortSignal.any([cancelSignal, pause.signal]);
  // Answer errors of tests a stop drops are not in the runs DB: keep the count and the last one.
  let answerErrorsSeen = 0;
  let lastAnswerError: string | null = null;
  const now = options.now ?? Date.now;
  const startedAt = now();
  const emit = (event: ProgressEvent): void => {
    try {
      options.onProgress?.(event);
    } catch {
      // A broken progress listener must not break the run.
    }
  };
  const totalPackets = planned.reduce((sum, p) => sum + p.packets, 0);
  const packetsDone = new Map<string, number>();
  let donePackets = 0;
  const failures: string[] = [];
  const notes = new Set<string>();
  const warnings: string[] = [];
  let warningsDropped = 0;
  const warn = (sampleId: string, message: string): void => {
    if (warnings.length < MAX_MANIFEST_WARNINGS) warnings.push(`${sampleId}: ${message}`);
    else warningsDropped++;
  };
  let embedder: string | null = null;
  const embedCounts = { requests: 0, cacheHits: 0, cacheMisses: 0 };
  const dirs: string[] = [];
  const answerErrorsBefore = store.getRun(runId).answerErrors;
  const answerCache = { hits: 0, misses: 0 };
  // One request budget per run: every sample and worker shares it (http/callBudget.ts).
  const budgetLimit = runBudgetLimit(config);
  const budget =
    budgetLimit !== undefined ? new CallBudget(budgetLimit, endpointLimitsOf(config)) : undefined;
  // The ledger is filed in batches (callTally.ts): before each test commits, and every
  // CALL_LEDGER_FLUSH_MS while calls come in.
  const callTally = new CallTally();
  const fileCalls = (): void => store.recordCallBatch(runId, callTally.drain());
  const callFlusher = setInterval(fileCalls, CALL_LEDGER_FLUSH_MS);
  callFlusher.unref();

  emit({
    type: 'run-started',
    runId,
    at: now(),
    samples: planned.map((p) => p.sampleId),
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
      if (event.type === 'question-answered') {
        if (event.error) {
          answerErrorsSeen++;
          lastAnswerError = event.errorMessage ?? lastAnswerError;
        }
        if (breaker.record(event.error, event.errorMessage) !== null) pause.abort();
      }
      emit(event);
    }
  };

  const runOne = async (p: PlannedSample): Promise<void> => {
    const { sampleId } = p;
    const dir = collectionDirFor(options.dataDir, runId, sampleId);
    // A replay starts from an empty collection: whatever a killed attempt left is not trusted.
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    dirs.push(dir);
    store.markSample(runId, sampleId, { status: 'running' });
    try {
      // The first await of runOne: lanes ask for their samples in queue order, which a streamed
      // file needs; the sample is dropped with the job when runOne returns.
      const job: SampleJob = {
        runId,
        sample: await dataset.sample(sampleId),
        plan: p.plan,
        config,
        benchmark: store.profileOf(runId).id,
        skipTests: p.skipTests,
        collectionDir: dir,
        cacheDir: dataCacheDir(options.dataDir),
        apiKeys,
        ...(options.responseCache !== undefined && options.responseCache !== 'off'
          ? { responseCache: options.responseCache }
          : {}),
        ...(isLocalUser(callerTrust(options)) ? {} : { quoteReplies: false }),
      };
      const outcome = await executor.run(
        job,
        {
          emit: forward,
          commitTest: (test) => {
            fileCalls();
            return store.commitTest(runId, test);
          },
          recordCalls: (record) => callTally.add(record),
          log: (level, message) => {
            if (level !== 'info') warn(sampleId, message);
          },
          ...(budget ? { budget } : {}),
        },
        signal,
      );
      for (const n of outcome.notes) notes.add(n);
      embedder ??= outcome.embedder;
      for (const [field, key] of Object.entries(EMBED_COUNTERS)) {
        embedCounts[field as keyof typeof EMBED_COUNTERS] += outcome.stats[key] ?? 0;
      }
      answerCache.hits += outcome.stats[ANSWER_CACHE_HITS] ?? 0;
      answerCache.misses += outcome.stats[ANSWER_CACHE_MISSES] ?? 0;
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
        ...(cancelledHard ? {} : { error: message }),
      });
    }
  };

  let status: RunOutcome['status'] = 'completed';
  let error: string | null = null;
  try {
    // File order: a streamed file is read forward once.
    const queue = [...planned].sort((a, b) => a.position - b.position);
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
    if (breaker.tripped !== null && !cancelSignal.aborted) {
      status = 'paused';
      error = `${breaker.tripped}; fix the endpoint, then resume run ${runId}`;
    } else if (signal.aborted) status = 'cancelled';
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
    clearInterval(callFlusher);
    fileCalls();
    // Closes a streamed file's reader (a cancel can stop before its last question).
    await dataset.close().catch(() => undefined);
    if (!options.keepCollections) {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      rmSync(join(options.dataDir, 'collections', runId), { recursive: true, force: true });
    }
  }

  const elapsedMs = now() - startedAt;
  let summary: RunSummary;
  let tooManyErrors = false;
  try {
    summary = store.summary(runId);
    if (status === 'completed') {
      // A run that ran its course can still be mostly errors (a wrong key: every call a 401).
      const verdict = finishedStatus(summary, config.maxErrorShare ?? DEFAULT_MAX_ERROR_SHARE);
      status = verdict.status;
      error = verdict.message;
      tooManyErrors = verdict.status !== 'completed';
    }
    const committedErrors = store.getRun(runId).answerErrors;
    if (status === 'cancelled' || status === 'failed' || status === 'paused') {
      // Errors of the tests this stop dropped would otherwise vanish with them.
      const dropped = answerErrorsSeen - (committedErrors - answerErrorsBefore);
      if (dropped > 0) {
        warnings.push(
          `${dropped} answer error(s) in tests dropped uncommitted by the stop; last: ${lastAnswerError ?? 'unknown'}`,
        );
      }
    }
    store.finishRun(runId, status, {
      error,
      manifest: (m) => ({
        ...m,
        memory: { ...m.memory, notes: [...new Set([...m.memory.notes, ...notes])] },
        ...manifestWarnings(m.warnings, warnings, warningsDropped),
        // The service knows its embedder (config defaults included); the config alone may not.
        embedder: m.embedder ?? embedder,
        embedding: {
          embedders: m.embedding?.embedders ?? embeddersOf(config, embedder),
          requests: (m.embedding?.requests ?? 0) + embedCounts.requests,
          cacheHits: (m.embedding?.cacheHits ?? 0) + embedCounts.cacheHits,
          cacheMisses: (m.embedding?.cacheMisses ?? 0) + embedCounts.cacheMisses,
        },
        usage: usageOf(config, store.callLedger(runId), m.judge?.model ?? null),
        ...(options.responseCache !== undefined &&
        options.responseCache !== 'off' &&
        config.answerer.kind === 'llm'
          ? {
              // A resumed run adds this launch's hits to the earlier ones.
              answerCache: {
                mode: options.responseCache,
                hits: (m.answerCache?.hits ?? 0) + answerCache.hits,
                misses: (m.answerCache?.misses ?? 0) + answerCache.misses,
              },
            }
          : {}),
      }),
    });
  } catch (caught) {
    status = 'failed';
    error = `runs database: ${caught instanceof Error ? caught.message : String(caught)}`;
    summary = summarizeAnswers([]);
  }
  if (status === 'completed' || status === 'degraded') {
    emit({
      type: 'run-finished',
      runId,
      at: now(),
      summary,
      elapsedMs,
      status,
      message: error,
    });
  } else if (status === 'cancelled') {
    const reason: unknown = signal.reason;
    emit({
      type: 'run-cancelled',
      runId,
      at: now(),
      elapsedMs,
      ...(reason instanceof WorkbenchError && reason.code === 'CANCELLED'
        ? { reason: reason.message }
        : {}),
    });
  } else if (status === 'paused') {
    emit({ type: 'run-paused', runId, at: now(), message: error ?? 'paused', elapsedMs });
  } else emit({ type: 'run-failed', runId, at: now(), message: error ?? 'failed', elapsedMs });
  return { runId, status, summary, elapsedMs, error, tooManyErrors };
}
