import { mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { benchmarkProfile } from '../../../src-shared/benchmarks';
import type { DatasetLoadResult, Sample } from '../../../src-shared/dataset';
import { WorkbenchError, parseOrThrow } from '../../../src-shared/errors';
import {
  answererFor,
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
  type RunSummary,
} from '../../../src-shared/experiment';
import { assertMemoryLlm, prepareMemoryPreset } from '../memory/registry';
import { runDatasetFor, selectFrom } from './runDataset';
import type { SkippedSample } from '../../../src-shared/runs';
import { newRunId } from '../runs/manifest';
import { judgeConfigAsSent } from '../answer/judge-protocols';
import { assertAnswererMirrorsReference } from '../answer/protocols';
import { ApiKeySource, experimentApiKeys } from '../keys';
import { usageOf } from '../runs/usage';
import { workerExecutor } from './executors';
import { judgeRun } from './judgeRun';
import { CallFiler } from './callTally';
import { CircuitBreaker } from './circuitBreaker';
import { preflight } from './preflight';
import { adoptLegacyResponses } from './legacyResponses';
import type { CallBudget } from '../http/callBudget';
import { answersRemotely, lanesFor, runBudgetOf } from './runLimits';
import type { SampleEvent } from './runSample';
import { errataRecord } from '../dataset/errata';
import {
  callerTrust,
  collectionDirFor,
  repliesQuotable,
  runCollectionsDir,
  sampleJobOf,
  type ExperimentHandle,
  type PlannedSample,
  type RunContext,
  type RunOptions,
  type RunOutcome,
} from './runContext';
import {
  emptyTally,
  manifestWithTally,
  reduceTally,
  type RunTally,
  type TallyAction,
} from './runTally';
import { finishEvent, stoppedStatus } from './runVerdict';
import { errataSamples, newRunManifest, notAskedOf, seedLedger } from './runManifest';

export { type ExperimentHandle, type RunOptions, type RunOutcome };
export { effectiveParallel } from './runLimits';

/**
 * The main-thread side of an experiment: load and plan, create the run, hand samples to an
 * executor (`parallel` at a time), commit each test and file each LLM call the executor reports
 * (the runs DB has one writer: this thread), and finish the run as completed, degraded (too many
 * errored final answers), cancelled or failed.
 */

/** The samples a run takes (runDataset.ts: invalid samples are refused or recorded, never dropped). */
export function selectSamples(
  dataset: DatasetLoadResult,
  config: ExperimentConfig,
): { samples: Sample[]; skipped: SkippedSample[] } {
  return selectFrom(dataset.samples, dataset.problems, config);
}

/**
 * What start and resume check and open before they read the dataset: the keys, the preflight
 * (when asked), the executor, and the memory preset (an external service says hello here).
 */
async function prepareLaunch(config: ExperimentConfig, options: RunOptions) {
  const apiKeys = experimentApiKeys(config, options.apiKeys ?? new ApiKeySource());
  adoptLegacyResponses(options);
  const quotes = repliesQuotable(options);
  const preflightCalls = options.preflight
    ? await preflight(config, apiKeys, options.signal, quotes)
    : [];
  const executor = options.executor ?? workerExecutor();
  await executor.prepare(config);
  assertMemoryLlm(config.memory.preset, config.memory.llm);
  const service = await prepareMemoryPreset(config.memory.preset, config.memory.config, {
    ...callerTrust(options),
    apiKeys,
  });
  return { apiKeys, preflightCalls, executor, service };
}

/** Validates, loads and plans, creates the run, and starts it. Resolves once the run exists. */
export async function startExperiment(
  input: ExperimentConfigInput | ExperimentConfig,
  options: RunOptions,
): Promise<ExperimentHandle> {
  const parsed = parseOrThrow(ExperimentConfigSchema, input, 'experiment config');
  // Stored absolute: a relative path would mean another file once the cwd changes (resume, UI).
  const config = { ...parsed, datasetPath: resolve(parsed.datasetPath) };
  const { apiKeys, preflightCalls, executor, service } = await prepareLaunch(config, options);
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
  // Recorded as sent: a protocol's fixed max_tokens, not the endpoint default it overrides.
  if (judged) config.judge = judgeConfigAsSent(judged.config);
  // The reader likewise: the protocol named, else the benchmark's own (LongMemEval's reader).
  config.answerer = answererFor(config.answerer, benchmarkProfile(dataset.info.format));
  assertAnswererMirrorsReference(config.answerer);
  const { samples, skipped } = selectFrom(dataset.entries, dataset.problems, config);
  // A bad entry is refused before the run exists.
  const errata = options.errata ? errataRecord(options.errata, errataSamples(dataset)) : null;
  const now = options.now ?? Date.now;
  const runId = newRunId(now());
  const planned: PlannedSample[] = samples.map((entry) => ({ ...entry, skipTests: new Set() }));
  const manifest = newRunManifest({
    runId,
    config,
    dataset,
    samples,
    planned,
    service,
    judged,
    parallel: lanesFor(executor, config, samples.length, dataset),
    startedAt: now(),
    skipped,
    errata,
    options,
  });
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
  for (const record of preflightCalls) options.store.recordCalls(runId, record);
  const notAsked = notAskedOf(planned);
  const context: RunContext = {
    runId,
    config,
    apiKeys,
    dataset,
    planned,
    parallel: manifest.parallel,
    resumed: false,
    executor,
    options,
  };
  return launch(context, notAsked, skipped);
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
  const { apiKeys, preflightCalls, executor, service } = await prepareLaunch(config, options);
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
  for (const record of preflightCalls) store.recordCalls(runId, record);
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
  const context: RunContext = {
    runId,
    config,
    apiKeys,
    dataset,
    planned,
    parallel: lanesFor(executor, config, planned.length, dataset),
    resumed: true,
    finished: run.sampleInfo
      .filter((info) => info.status === 'completed')
      .map((info) => ({
        sampleId: info.sampleId,
        totalPackets: info.totalPackets,
        plannedTests: info.plannedTests,
      })),
    executor,
    options,
  };
  return launch(context, notAsked, run.manifest.skippedSamples ?? []);
}

function launch(
  context: RunContext,
  notAsked: number,
  skippedSamples: SkippedSample[],
): ExperimentHandle {
  const { runId, options } = context;
  const controller = new AbortController();
  if (options.signal) {
    if (options.signal.aborted) controller.abort(options.signal.reason);
    else
      options.signal.addEventListener('abort', () => controller.abort(options.signal?.reason), {
        once: true,
      });
  }
  const done = execute(context, controller.signal).then((outcome) => ({
    ...outcome,
    notAsked,
    skippedSamples,
  }));
  return {
    runId,
    done,
    // A CANCELLED error as the reason: calls in flight reject with it (http/retry.ts).
    cancel: (reason) =>
      controller.abort(reason === undefined ? undefined : new WorkbenchError('CANCELLED', reason)),
  };
}

/** What the lanes of one launch share while they run. */
interface Lanes {
  context: RunContext;
  /** Stops the lanes: the caller's cancel or the circuit breaker's pause. */
  signal: AbortSignal;
  emit(event: ProgressEvent): void;
  forward(event: SampleEvent): void;
  fold(action: TallyAction): void;
  tally(): RunTally;
  budget: CallBudget | undefined;
  /** Files LLM calls' counts: summed with the others that arrive in the same turn (callTally.ts). */
  calls: CallFiler;
  /** Collection directories made so far (removed at the end unless kept). */
  dirs: string[];
  now(): number;
}

async function execute(
  context: RunContext,
  cancelSignal: AbortSignal,
): Promise<Omit<RunOutcome, 'notAsked' | 'skippedSamples'>> {
  const { runId, config, dataset, planned, resumed, options } = context;
  const { store } = options;
  // The circuit breaker stops the run like a cancel does (committed work stays, a half test is
  // dropped), but the run ends `paused` with the breaker's reason, resumable.
  const breaker = new CircuitBreaker(
    config.maxConsecutiveFailures ?? DEFAULT_MAX_CONSECUTIVE_FAILURES,
  );
  const pause = new AbortController();
  const signal = AbortSignal.any([cancelSignal, pause.signal]);
  let tally = emptyTally();
  const fold = (action: TallyAction): void => {
    tally = reduceTally(tally, action);
  };
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
  const answerErrorsBefore = store.getRun(runId).answerErrors;
  // One request budget per run: every sample and worker shares it (http/callBudget.ts).
  const budget = runBudgetOf(config, (message) =>
    fold({ type: 'warning', sampleId: 'request budget', message }),
  );
  // The ledger is filed in batches (callTally.ts): the calls reported in one turn of the event loop
  // go in one transaction at the next, so a burst of answers costs one write, and a kill -9 loses
  // no more than the old write per call did (what was reported but not yet handled).
  const calls = new CallFiler((records) => store.recordCallBatch(runId, records));

  emit({
    type: 'run-started',
    runId,
    at: now(),
    samples: planned.map((p) => p.sampleId),
    totalPackets,
    totalTests: planned.reduce((sum, p) => sum + p.plan.tests.length - p.skipTests.size, 0),
    resumed,
    ...(context.finished && context.finished.length > 0 ? { finished: context.finished } : {}),
  });

  const etaOf = packetEta(totalPackets, startedAt, now);
  const forward = (event: SampleEvent): void => {
    if (event.type === 'packet') {
      emit({ ...event, etaMs: etaOf(event) });
    } else {
      if (event.type === 'question-answered') {
        fold({ type: 'answered', error: event.error, errorMessage: event.errorMessage });
        if (breaker.record(event.error, event.errorMessage) !== null) pause.abort();
      }
      emit(event);
    }
  };
  const lanes: Lanes = {
    context,
    signal,
    emit,
    forward,
    fold,
    tally: () => tally,
    budget,
    calls,
    dirs: [],
    now,
  };

  let stopped: { status: RunOutcome['status']; error: string | null };
  try {
    stopped = await runAndJudge(lanes, breaker, cancelSignal);
  } finally {
    calls.close();
    // Closes a streamed file's reader (a cancel can stop before its last question).
    await dataset.close().catch(() => undefined);
    if (!options.keepCollections) {
      for (const dir of lanes.dirs) rmSync(dir, { recursive: true, force: true });
      rmSync(runCollectionsDir(options.dataDir, runId), { recursive: true, force: true });
    }
  }

  return finishRun(lanes, stopped, now() - startedAt, answerErrorsBefore);
}

/** The time left by the packets inserted so far, over every sample of the launch. */
function packetEta(
  totalPackets: number,
  startedAt: number,
  now: () => number,
): (event: Extract<SampleEvent, { type: 'packet' }>) => number | null {
  const packetsDone = new Map<string, number>();
  let donePackets = 0;
  return (event) => {
    donePackets += event.inserted - (packetsDone.get(event.sampleId) ?? 0);
    packetsDone.set(event.sampleId, event.inserted);
    return estimateRemainingMs(now() - startedAt, donePackets, totalPackets);
  };
}

/** Runs the lanes, then the judge on a run that ran its course; how the run stopped. */
async function runAndJudge(
  lanes: Lanes,
  breaker: CircuitBreaker,
  cancelSignal: AbortSignal,
): Promise<{ status: RunOutcome['status']; error: string | null }> {
  const { context, signal } = lanes;
  const { runId, config, apiKeys, parallel, options } = context;
  try {
    await runLanes(lanes, parallel);
    // The judge scores a finished run only: a resumed run is judged when it completes.
    if (!signal.aborted && lanes.tally().failures.length === 0 && config.judge) {
      try {
        await judgeRun(options.store, runId, config.judge, {
          signal,
          keys: apiKeys,
          quoteReplies: repliesQuotable(options),
        });
      } catch (error) {
        // A cancel stops the pass: verdicts already saved stay, resume judges the rest.
        if (!signal.aborted) throw error;
      }
    }
    return stoppedStatus({
      runId,
      breakerTripped: breaker.tripped,
      cancelled: cancelSignal.aborted,
      aborted: signal.aborted,
      failures: lanes.tally().failures,
    });
  } catch (caught) {
    return { status: 'failed', error: caught instanceof Error ? caught.message : String(caught) };
  }
}

/**
 * Records how the run finished: the verdict on its answers (a run that ran its course), the
 * warning for answer errors a stop dropped, the manifest with this launch's tally, the last event.
 */
function finishRun(
  lanes: Lanes,
  stopped: { status: RunOutcome['status']; error: string | null },
  elapsedMs: number,
  answerErrorsBefore: number,
): Omit<RunOutcome, 'notAsked' | 'skippedSamples'> {
  const { context, signal, emit, fold, now } = lanes;
  const { runId, config, options } = context;
  const { store } = options;
  let { status, error } = stopped;
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
      fold({ type: 'stopped', committedAnswerErrors: committedErrors - answerErrorsBefore });
    }
    store.finishRun(runId, status, {
      error,
      manifest: (m) => {
        const ledger = store.callLedger(runId);
        return manifestWithTally(
          m,
          lanes.tally(),
          config,
          usageOf(config, ledger, m.judge?.model ?? null),
          options.responseCache,
          ledger,
          store.requestShapes(runId),
        );
      },
    });
  } catch (caught) {
    status = 'failed';
    error = `runs database: ${caught instanceof Error ? caught.message : String(caught)}`;
    // The run's own benchmark from its dataset: the runs database just failed to answer.
    summary = summarizeAnswers([], benchmarkProfile(context.dataset.info.format));
  }
  emit(finishEvent({ runId, status, error, summary, elapsedMs, reason: signal.reason }, now()));
  return { runId, status, summary, elapsedMs, error, tooManyErrors };
}

/**
 * Runs the planned samples `parallel` at a time, in file order (a streamed file is read forward
 * once). When the answers are remote, a lane starts its next sample as soon as the last one's
 * memory work is done (`memoryDone`), not once its last answers are in: that sample's tail of
 * answers at the endpoint overlaps the next one's inserts, where one lane used to sit idle at every
 * sample's end. At most one such tail per lane, so `parallel` still bounds the memories being built.
 */
async function runLanes(lanes: Lanes, parallel: number): Promise<void> {
  const queue = [...lanes.context.planned].sort((a, b) => a.position - b.position);
  const overlapTails = answersRemotely(lanes.context.config);
  await Promise.all(
    Array.from({ length: Math.min(parallel, Math.max(queue.length, 1)) }, async () => {
      let tail: Promise<void> = Promise.resolve();
      for (let next = queue.shift(); next; next = queue.shift()) {
        if (lanes.signal.aborted) break;
        let memoryDone = (): void => undefined;
        const freed = new Promise<void>((resolve) => (memoryDone = resolve));
        const finished = runOneSample(lanes, next, overlapTails ? memoryDone : undefined);
        await Promise.race([freed, finished]);
        await tail;
        tail = finished;
      }
      await tail;
    }),
  );
}

/** One sample on the executor, from a fresh collection to its status in the runs DB. */
async function runOneSample(
  lanes: Lanes,
  p: PlannedSample,
  memoryDone?: () => void,
): Promise<void> {
  const { context, signal, emit, fold, budget, now } = lanes;
  const { runId, dataset, executor, options } = context;
  const { store } = options;
  const { sampleId } = p;
  const dir = collectionDirFor(options.dataDir, runId, sampleId);
  // A replay starts from an empty collection: whatever a killed attempt left is not trusted.
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  lanes.dirs.push(dir);
  store.markSample(runId, sampleId, { status: 'running' });
  try {
    // The first await of runOneSample: lanes ask for their samples in queue order, which a
    // streamed file needs; the sample is dropped with the job when runOneSample returns.
    const job = sampleJobOf(context, p, await dataset.sample(sampleId), dir);
    const outcome = await executor.run(
      job,
      {
        emit: lanes.forward,
        commitTest: (test) => {
          // A committed test's calls are in the ledger before it: a kill loses neither.
          lanes.calls.flush();
          return store.commitTest(runId, test);
        },
        recordCalls: (record) => lanes.calls.record(record),
        log: (level, message) => {
          if (level !== 'info') fold({ type: 'warning', sampleId, message });
        },
        ...(memoryDone ? { memoryDone } : {}),
        ...(budget ? { budget } : {}),
      },
      signal,
    );
    fold({ type: 'sample-finished', outcome });
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
    if (!cancelledHard) fold({ type: 'sample-failed', sampleId, message });
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
}
