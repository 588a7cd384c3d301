import { setMaxListeners } from 'node:events';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Packet, Sample, TestPlan } from '../../../src-shared/dataset';
import { WorkbenchError } from '../../../src-shared/errors';
import type {
  AnswerRecord,
  AnswererConfig,
  ExperimentConfig,
  ProgressEvent,
  TestRecord,
} from '../../../src-shared/experiment';
import type { LlmCallRecord, LlmCallRole } from '../../../src-shared/runs';
import { LlmClient, type CallMeter } from '../answer/llm-client';
import type { CallBudget, CallGate } from '../http/callBudget';
import { ResponseCache } from '../answer/responseCache';
import { Semaphore } from '../http/retry';
import type { Answerer } from '../answer/types';
import type { ApiKeys } from '../keys';
import { packetsOf } from '../dataset/packets';
import type { MemoryService, MemoryServiceContext } from '../memory/types';
import { askQuestion, type TestAsk } from './askQuestion';
import { streamThrough } from './queue';
import { answersRemotely, runConcurrency } from './runLimits';
import { TestBatcher } from './testBatcher';
import { describeError, withTimeout } from './timeout';

/**
 * One sample through one memory service: source (packets through a bounded queue) -> caller
 * (insert each packet; after the packets where the plan fires, re-ask the covered questions) ->
 * sink (`commitTest`, once per complete test). Runs the same in a worker thread and inline.
 */

/** Outcome stats: answers served from the response cache, and those it had to ask for. */
export const ANSWER_CACHE_HITS = 'answer.cacheHits';
export const ANSWER_CACHE_MISSES = 'answer.cacheMisses';
/** The same for the memory LLM's requests. */
export const MEMORY_CACHE_HITS = 'memory.cacheHits';
export const MEMORY_CACHE_MISSES = 'memory.cacheMisses';

/** Packets buffered ahead of the caller. Small: packets are cheap, memory services are not. */
export const DEFAULT_QUEUE_CAPACITY = 8;
/**
 * Questions in flight per request the run's budget lets through, when there is a budget. A
 * question is at the endpoint for only part of its time (it also retrieves, waits for its slot's
 * grant and is scored), so a window of exactly `concurrency` questions left a sixth of the slots
 * idle at 0.1 s latency; with a wider window the budget is what binds.
 */
export const QUESTIONS_PER_BUDGET_SLOT = 2;
/** Insert failures kept verbatim per sample (all are counted). */
const MAX_INSERT_ERROR_MESSAGES = 20;

export type LogLevel = 'info' | 'warn' | 'error';

export type MemoryFactory = (ctx: MemoryServiceContext) => Promise<MemoryService>;

/** Progress events before the run layer stamps them; packet ETAs are the runner's business. */
export type SampleEvent = Extract<
  ProgressEvent,
  {
    type: 'sample-started' | 'packet' | 'test-started' | 'question-answered' | 'test-committed';
  }
>;

export interface SampleJob {
  runId: string;
  sample: Sample;
  plan: TestPlan;
  config: ExperimentConfig;
  /** The dataset's benchmark profile id: what its categories are and which metrics score them. */
  benchmark: string;
  /** Tests an earlier attempt committed: their packets are replayed, their questions not re-asked. */
  skipTests: ReadonlySet<number>;
  collectionDir: string;
  /** Caches that outlive the run (embeddings), shared by every run of the data folder. */
  cacheDir?: string;
  /** The config's API keys, resolved and vetted on the main thread (see core/keys.ts). */
  apiKeys: ApiKeys;
  /** The answerer's LLM response cache in `cacheDir` (answer/responseCache.ts); absent: off. */
  responseCache?: 'on' | 'only';
  /** The response cache's scope (answer/responseCache.ts); absent: unscoped. */
  responseCacheScope?: string;
  /** False for a config from the network: see MemoryServiceContext.quoteReplies. */
  quoteReplies?: boolean;
}

/**
 * What of a job crosses to another thread or machine as plain data (a worker's start message, a
 * queue job): the sample and how to run it. Folders, keys and caches are the receiver's own.
 */
export function sampleJobWire(job: SampleJob) {
  return {
    runId: job.runId,
    sample: job.sample,
    plan: job.plan,
    config: job.config,
    benchmark: job.benchmark,
    skipTests: [...job.skipTests],
  };
}

export interface SampleHooks {
  emit(event: SampleEvent): void;
  /** Called once per complete test, in test order; never with a partial test. */
  commitTest(test: TestRecord): void | Promise<void>;
  /** Warnings of the memory service and its collection (e.g. an hnsw index rebuilt). */
  log?(level: LogLevel, message: string): void;
  /** Every LLM request as it is sent and as it ends (the run's call ledger). */
  recordCalls(record: LlmCallRecord): void;
  /**
   * Called once when the sample no longer needs the memory: every packet is inserted and every
   * question has read it, so only answers in flight remain. A lane may start its next sample then
   * (runner.ts), and this sample's tail of answers overlaps that sample's inserts.
   */
  memoryDone?(): void;
  /**
   * The run's shared LLM request budget (when the config sets `concurrency`): an inline executor
   * hands it to the clients, a worker executor grants its slots to the worker by message.
   */
  budget?: CallBudget;
}

/** A meter that files a client's requests in the hooks' call ledger under `role` and `model`. */
export function callMeter(
  hooks: Pick<SampleHooks, 'recordCalls'>,
  role: LlmCallRole,
  model: string,
): CallMeter {
  return (delta) => hooks.recordCalls({ role, model, ...delta });
}

/** The answerer's meter; undefined for answerers that call no model. */
export function answererMeter(
  config: AnswererConfig,
  hooks: Pick<SampleHooks, 'recordCalls'>,
): CallMeter | undefined {
  return config.kind === 'llm' ? callMeter(hooks, 'answer', config.model) : undefined;
}

export interface SampleDeps {
  createMemory: MemoryFactory;
  answerer: Answerer;
  /** The run's request budget as this thread reaches it; the memory LLM's client uses it too. */
  budget?: CallGate;
  /** The answerer's response cache, whose hits and misses the outcome's stats report. */
  responseCache?: ResponseCache;
  /** Graceful cancel: the in-flight call finishes, a half-done test is dropped. */
  signal?: AbortSignal;
  queueCapacity?: number;
  now?: () => number;
}

export interface SampleOutcome {
  sampleId: string;
  status: 'completed' | 'cancelled';
  preset: string;
  notes: string[];
  embedder: string | null;
  stats: Record<string, number>;
  testsCommitted: number;
  testsSkipped: number;
  insertErrors: number;
  insertErrorMessages: string[];
  answerErrors: number;
}

/** One sample's run as its pieces share it. */
interface SampleRun {
  job: SampleJob;
  hooks: SampleHooks;
  deps: SampleDeps;
  memory: MemoryService;
  /**
   * Retrieval (and a service's own answering) touches the memory one question at a time, in
   * question order: services need not be re-entrant, and retrieval order stays deterministic.
   */
  memoryLock: Semaphore;
  /** Questions of a test in flight at once. */
  questionWindow: number;
  qaByIndex: Map<number, Sample['qa'][number]>;
  outcome: SampleOutcome;
  now: () => number;
  cancelled: () => boolean;
  /**
   * Answers in flight across tests: a test waits for its questions' memory reads, not their
   * answers, so the next packets are inserted (and the next test asked) while its tail is still
   * at the endpoint. The question window counts them all.
   */
  inFlight: Set<Promise<void>>;
  /** The tests' commits, chained so they happen in test order once each test is answered. */
  commits: Promise<void>;
  /** A commit failed: the sample stops at the next packet and the failure is thrown. */
  commitFailed: boolean;
}

type PlannedTest = TestPlan['tests'][number];

export async function runSample(
  job: SampleJob,
  hooks: SampleHooks,
  deps: SampleDeps,
): Promise<SampleOutcome> {
  const { sample, plan, config, runId } = job;
  const now = deps.now ?? Date.now;
  const sampleId = sample.sampleId;
  const packets = packetsOf(sample);
  const testsByPacket = new Map(plan.tests.map((t) => [t.packetIdx, t]));
  const outcome = emptyOutcome(sampleId, config.memory.preset);

  hooks.emit({
    type: 'sample-started',
    runId,
    at: now(),
    sampleId,
    totalPackets: packets.length,
    plannedTests: plan.tests.length,
    skippedTests: plan.tests.filter((t) => job.skipTests.has(t.testIndex)).length,
  });

  const { memory, memoryCache } = await openMemory(job, hooks, deps);
  outcome.preset = memory.preset;
  const run: SampleRun = {
    job,
    hooks,
    deps,
    memory,
    memoryLock: new Semaphore(1),
    questionWindow: questionWindowOf(config, deps.budget !== undefined),
    qaByIndex: new Map(sample.qa.map((q) => [q.index, q])),
    outcome,
    now,
    cancelled: () => deps.signal?.aborted === true,
    inFlight: new Set(),
    commits: Promise.resolve(),
    commitFailed: false,
  };
  // Each question in flight listens to the run's signal until it ends (timeout.ts), up to the
  // window per lane: many listeners by design, not a leak.
  if (deps.signal) setMaxListeners(0, deps.signal);
  const { queue, produced } = streamThrough<Packet>(
    packets,
    deps.queueCapacity ?? DEFAULT_QUEUE_CAPACITY,
  );
  try {
    for await (const packet of queue) {
      // Offline inserts settle in microtasks, so without a turn of the event loop per packet the
      // worker's cancel message (a task) could not run until the whole sample had been inserted.
      await yieldToEventLoop();
      if (run.cancelled() || run.commitFailed) break;
      await insertPacket(run, packet, packets.length);

      const test = testsByPacket.get(packet.packet_idx);
      if (!test) continue;
      if (job.skipTests.has(test.testIndex)) {
        outcome.testsSkipped++;
        continue;
      }
      if (run.cancelled()) break;
      if (!(await runTest(run, test))) break;
    }
    hooks.memoryDone?.();
    await Promise.all(run.inFlight);
    await run.commits;
    if (run.cancelled()) outcome.status = 'cancelled';
    // Only tests that ran their course count as errors above; a cancelled half test does not.
  } finally {
    queue.cancel();
    await produced.catch(() => undefined);
    await closeMemory(run, memoryCache);
  }
  return outcome;
}

/**
 * Questions of a test in flight at once: the run's concurrency, widened for an LLM answerer when
 * the run's request budget (not the window) holds the endpoint to a concurrency above one. Without a budget the
 * answerer's client keeps its own gate, and the window is the run's concurrency as configured.
 */
export function questionWindowOf(config: ExperimentConfig, budgeted: boolean): number {
  const concurrency = runConcurrency(config) ?? 1;
  // `concurrency: 1` keeps its plain meaning, one question at a time (faults and retries land on
  // the question that is asking, in order).
  return budgeted && answersRemotely(config) && concurrency > 1
    ? concurrency * QUESTIONS_PER_BUDGET_SLOT
    : concurrency;
}

function emptyOutcome(sampleId: string, preset: string): SampleOutcome {
  return {
    sampleId,
    status: 'completed',
    preset,
    notes: [],
    embedder: null,
    stats: {},
    testsCommitted: 0,
    testsSkipped: 0,
    insertErrors: 0,
    insertErrorMessages: [],
    answerErrors: 0,
  };
}

/** The sample's memory service, and the memory LLM's response cache when it has one. */
async function openMemory(
  job: SampleJob,
  hooks: SampleHooks,
  deps: SampleDeps,
): Promise<{ memory: MemoryService; memoryCache: ResponseCache | undefined }> {
  const { sample, config } = job;
  // The memory LLM's requests go through the response cache as the answerer's do (its own
  // connection, its own hit counts), so a memory service that calls an LLM replays under
  // --cache-only too.
  const memoryCache =
    config.memory.llm && job.responseCache !== undefined && job.cacheDir !== undefined
      ? ResponseCache.open(job.cacheDir, job.responseCache, job.responseCacheScope)
      : undefined;
  const memory = await deps
    .createMemory({
      sample,
      dir: job.collectionDir,
      // One client per sample: its retries are this sample's own, and so is its concurrency limit
      // unless the run has a shared budget.
      llm: config.memory.llm
        ? new LlmClient(
            config.memory.llm,
            job.apiKeys,
            Math.random,
            callMeter(hooks, 'memory', config.memory.llm.model),
            deps.budget,
            memoryCache,
          )
        : null,
      seed: config.seed,
      ...(job.cacheDir !== undefined ? { cacheDir: job.cacheDir } : {}),
      apiKeys: job.apiKeys,
      ...(job.quoteReplies === false ? { quoteReplies: false } : {}),
      embedderMeter: (model) => callMeter(hooks, 'embedder', model),
      logger: {
        warn: (message) => hooks.log?.('warn', message),
        info: (message) => hooks.log?.('info', message),
      },
    })
    .catch((error: unknown) => {
      memoryCache?.close();
      throw error;
    });
  return { memory, memoryCache };
}

/** Inserts one packet; a failure is counted in the outcome and the run goes on. */
async function insertPacket(run: SampleRun, packet: Packet, totalPackets: number): Promise<void> {
  const { job, outcome } = run;
  try {
    await withTimeout(
      `insert of packet ${packet.packet_idx} (${packet.dialog_id})`,
      job.config.timeouts.insertMs,
      (signal) => run.memory.insert(packet, signal),
    );
  } catch (error) {
    // DESIGN §3: a failed insert is recorded and the run goes on; the questions whose evidence
    // it carried will show it in their scores.
    outcome.insertErrors++;
    if (outcome.insertErrorMessages.length < MAX_INSERT_ERROR_MESSAGES) {
      outcome.insertErrorMessages.push(`packet ${packet.packet_idx}: ${describeError(error)}`);
    }
  }
  run.hooks.emit({
    type: 'packet',
    runId: job.runId,
    at: run.now(),
    sampleId: job.sample.sampleId,
    inserted: packet.packet_idx + 1,
    total: totalPackets,
    etaMs: null,
  });
}

/**
 * Asks the test's questions and, once they are answered, commits the test after the tests
 * before it; returns once every question has read the memory. False when a cancel left the test
 * half asked (dropped, not committed) and the sample stops.
 */
async function runTest(run: SampleRun, test: PlannedTest): Promise<boolean> {
  const { job, hooks } = run;
  hooks.emit({
    type: 'test-started',
    runId: job.runId,
    at: run.now(),
    sampleId: job.sample.sampleId,
    testIndex: test.testIndex,
    questions: test.questionIndices.length,
  });
  const { answers, launched, answered } = await askTest(run, test);
  // A cancel stops the answers in flight (an LLM call can wait minutes for a rate limit), so
  // a test cancelled after its last launch is half answered too: dropped, not committed.
  if (launched < test.questionIndices.length || run.cancelled()) return false;
  run.commits = run.commits.then(async () => {
    await answered;
    if (run.cancelled()) return;
    await commitAnswered(run, test, answers);
  });
  // A failed commit stops the sample at the next packet; `runSample` throws it.
  run.commits.catch(() => (run.commitFailed = true));
  return true;
}

async function commitAnswered(
  run: SampleRun,
  test: PlannedTest,
  answers: AnswerRecord[],
): Promise<void> {
  const { job, hooks } = run;
  await hooks.commitTest({
    sampleId: job.sample.sampleId,
    testIndex: test.testIndex,
    packetIdx: test.packetIdx,
    dialogsInserted: test.dialogsInserted,
    visibleCount: test.visibleCount,
    questionIndices: test.questionIndices,
    answers,
  });
  run.outcome.testsCommitted++;
  // Over the answers official F1 scores: none for a benchmark without it (BEAM), so "-", not 0.
  let f1 = 0;
  let scored = 0;
  for (const a of answers) {
    const value = a.scores['officialF1'];
    if (value === null || value === undefined) continue;
    f1 += value;
    scored++;
  }
  hooks.emit({
    type: 'test-committed',
    runId: job.runId,
    at: run.now(),
    sampleId: job.sample.sampleId,
    testIndex: test.testIndex,
    meanF1: scored > 0 ? f1 / scored : null,
    errors: answers.filter((a) => a.error !== null).length,
  });
}

/**
 * Launches the test's questions, up to the window in flight (counting earlier tests' tails),
 * and returns once each has read the memory: the memory may change after that. `answered`
 * settles when every answer is in, kept in question order whatever order they finish in.
 */
async function askTest(
  run: SampleRun,
  test: PlannedTest,
): Promise<{ answers: AnswerRecord[]; launched: number; answered: Promise<unknown> }> {
  const { job, deps } = run;
  const answers: AnswerRecord[] = [];
  const asked: Array<Promise<void>> = [];
  const reads: Array<Promise<void>> = [];
  const batcher = testBatcherFor(deps.answerer, run.memory, test.questionIndices, deps.signal);
  // A batch asks once its questions are all in: the window holds `concurrency` batches.
  const window = batcher ? run.questionWindow * (deps.answerer.batchSize ?? 1) : run.questionWindow;
  const slotOf = new Map(test.questionIndices.map((q, i) => [q, i]));
  const ask: TestAsk = {
    memory: run.memory,
    memoryLock: run.memoryLock,
    answerer: deps.answerer,
    job,
    test,
    cancel: deps.signal,
    batcher,
  };
  let launched = 0;
  let done = 0;
  for (const questionIndex of batcher
    ? TestBatcher.launchOrder(test.questionIndices)
    : test.questionIndices) {
    // A cancel stops the questions in flight and drops this half test uncommitted; offline
    // answers settle in microtasks, so the turn lets a cancel message run between questions.
    await yieldToEventLoop();
    // The window counts the tail of the last test too; it waits before a launch, so no test's
    // first question goes over it.
    while (run.inFlight.size >= window) await Promise.race(run.inFlight);
    if (run.cancelled()) break;
    const qa = run.qaByIndex.get(questionIndex);
    if (!qa)
      throw new Error(
        `test plan names question ${questionIndex}, absent from ${job.sample.sampleId}`,
      );
    launched++;
    const slot = slotOf.get(questionIndex) as number;
    let memoryRead = (): void => undefined;
    reads.push(new Promise<void>((resolve) => (memoryRead = resolve)));
    const answered = askQuestion(ask, qa, memoryRead).then((record) => {
      // An answer the cancel stopped is no error of the endpoint, and its test is dropped.
      if (record === null) return;
      answers[slot] = record;
      done++;
      if (record.error !== null) run.outcome.answerErrors++;
      run.hooks.emit({
        type: 'question-answered',
        runId: job.runId,
        at: run.now(),
        sampleId: job.sample.sampleId,
        testIndex: test.testIndex,
        questionIndex,
        done,
        total: test.questionIndices.length,
        error: record.error !== null,
        ...(record.error !== null ? { errorMessage: record.error } : {}),
      });
    });
    // However it ends, a question that settled holds no read.
    void answered.then(memoryRead, memoryRead);
    asked.push(answered);
    run.inFlight.add(answered);
    void answered.finally(() => run.inFlight.delete(answered)).catch(() => undefined);
  }
  // The memory may change once every question of the test has read it.
  await Promise.all(reads);
  const answered = Promise.all(asked);
  // Awaited by the test's commit, later: handled now, so a failure waits for it there.
  answered.catch(() => undefined);
  return { answers, launched, answered };
}

async function closeMemory(run: SampleRun, memoryCache: ResponseCache | undefined): Promise<void> {
  const { memory, outcome, deps } = run;
  outcome.notes = safe(() => memory.notes(), []);
  outcome.embedder = memory.embedderName;
  outcome.stats = safe(() => memory.stats(), {});
  if (deps.responseCache) {
    outcome.stats[ANSWER_CACHE_HITS] = deps.responseCache.stats.hits;
    outcome.stats[ANSWER_CACHE_MISSES] = deps.responseCache.stats.misses;
  }
  if (memoryCache) {
    outcome.stats[MEMORY_CACHE_HITS] = memoryCache.stats.hits;
    outcome.stats[MEMORY_CACHE_MISSES] = memoryCache.stats.misses;
  }
  await memory.close();
  memoryCache?.close();
}

/** The job's response cache, opened for one sample (the caller closes it); undefined when off. */
export function openResponseCache(job: SampleJob): ResponseCache | undefined {
  if (job.responseCache === undefined || job.config.answerer.kind !== 'llm') return undefined;
  if (job.cacheDir === undefined) {
    throw new WorkbenchError('INTERNAL', 'the LLM response cache needs a cache folder (cacheDir)');
  }
  return ResponseCache.open(job.cacheDir, job.responseCache, job.responseCacheScope);
}

/** The test's batcher when the answerer asks several questions to a call; null otherwise. */
function testBatcherFor(
  answerer: Answerer,
  memory: MemoryService,
  questionIndices: readonly number[],
  signal: AbortSignal | undefined,
): TestBatcher | null {
  const { batchSize, answerBatch } = answerer;
  // A memory service that answers itself has no use for the answerer.
  if (!batchSize || batchSize <= 1 || !answerBatch || memory.answer) return null;
  return new TestBatcher(
    { batchSize, answerBatch: answerBatch.bind(answerer) },
    questionIndices,
    signal,
  );
}

function safe<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}
