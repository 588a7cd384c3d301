import { z } from 'zod';
import type { Sample, TestPlan } from '../../../src-shared/dataset';
import { METRICS } from '../../../src-shared/metrics';
import { ERROR_CODES } from '../../../src-shared/errors';
import {
  ExperimentConfigSchema,
  ScoringRankingSchema,
  type AnswerRecord,
  type TestRecord,
} from '../../../src-shared/experiment';
import { LLM_CALL_ROLES, type LlmCallRecord } from '../../../src-shared/runs';
import { wordVectorRequestSchema } from '../embed/winkVectors';
import type { LogLevel, SampleEvent, SampleOutcome } from './runSample';

/**
 * The worker protocol: a discriminated union with sequence numbers, validated with zod on both
 * sides. Each side numbers its own messages 1, 2, 3...; a gap or a repeat means a bug, and the
 * receiver fails the sample rather than guess.
 *
 * main -> worker: start (once), cancel (graceful: finish the question in flight, drop a half test),
 * slot-granted (request slots of the run's shared budget), word-vectors (the process's copy).
 * worker -> main: batches of reports (progress; test-result, which main commits in one transaction;
 * calls, which main files in the call ledger; log, warnings from the memory service and its
 * collection that the run's manifest records; slot-acquire / slot-release, the run's request
 * budget), word-vectors-acquire, then exactly one of done | error. Every message but a batch goes
 * out at once, after the reports before it.
 */

/**
 * What a worker is started with (`workerData`), fixed for its life: modules that register extra
 * memory presets (tests, development), imported once before the first sample, and where it
 * records the service processes it starts.
 */
export const workerInitSchema = z
  .object({
    presetModules: z.array(z.string()),
    /** The main thread's table of memory-service children (memory/external/children.ts). */
    serviceChildren: z.instanceof(SharedArrayBuffer),
    /**
     * Stamp each progress event with the worker thread's CPU time so far (`threadCpuMs`), for
     * `bench pipeline`'s CPU per stage; off by default (a /proc read per event).
     */
    threadCpu: z.boolean().optional(),
  })
  .strict();
export type WorkerInit = z.output<typeof workerInitSchema>;

const answerSchema = z.object({
  sampleId: z.string(),
  testIndex: z.number().int().nonnegative(),
  questionIndex: z.number().int().nonnegative(),
  category: z.number().int(),
  question: z.string(),
  gold: z.string().nullable(),
  prediction: z.string(),
  retrieved: z.array(
    z.object({
      id: z.string(),
      diaId: z.string().nullable(),
      score: z.number(),
      context: z.array(z.string()).optional(),
      diaIds: z.array(z.string()).optional(),
      text: z.string().optional(),
    }),
  ),
  /** Metric id -> value; each metric's range is checked against its registry definition. */
  scores: z.record(z.string(), z.number().nullable()).superRefine((scores, ctx) => {
    for (const [id, value] of Object.entries(scores)) {
      const metric = METRICS.get(id);
      if (!metric) ctx.addIssue({ code: 'custom', path: [id], message: `unknown metric "${id}"` });
      else if (value !== null && (value < metric.range[0] || value > metric.range[1]))
        ctx.addIssue({
          code: 'custom',
          path: [id],
          message: `${value} is outside ${metric.range.join('..')}`,
        });
    }
  }),
  retrieveMs: z.number().nonnegative(),
  answerMs: z.number().nonnegative(),
  error: z.string().nullable(),
  judge: z
    .object({
      mean: z.number().min(0).max(1).nullable(),
      std: z.number().nonnegative().nullable(),
      labels: z.array(z.number()),
      error: z.string().nullable(),
    })
    .nullable(),
  usage: z
    .object({
      promptTokens: z.number().int().nonnegative(),
      completionTokens: z.number().int().nonnegative(),
    })
    .nullable(),
  memoryTokens: z.number().int().nonnegative().nullable().optional(),
  scoringRanking: ScoringRankingSchema.nullable().optional(),
}) satisfies z.ZodType<AnswerRecord>;

export const testRecordSchema = z.object({
  sampleId: z.string(),
  testIndex: z.number().int().nonnegative(),
  packetIdx: z.number().int().nonnegative(),
  dialogsInserted: z.number().int().nonnegative(),
  visibleCount: z.number().int().nonnegative(),
  questionIndices: z.array(z.number().int().nonnegative()),
  answers: z.array(answerSchema),
}) satisfies z.ZodType<TestRecord>;

/** Progress events are display data: check the envelope, keep the rest as sent. */
const sampleEventSchema = z
  .object({
    type: z.enum([
      'sample-started',
      'packet',
      'test-started',
      'question-answered',
      'test-committed',
    ]),
    runId: z.string(),
    at: z.number(),
    sampleId: z.string(),
  })
  .loose()
  .transform((e) => e as unknown as SampleEvent);

const count = z.number().int().nonnegative();
export const callRecordSchema = z.object({
  role: z.enum(LLM_CALL_ROLES),
  model: z.string(),
  calls: count,
  failures: count,
  promptTokens: count,
  completionTokens: count,
  cacheHits: count.optional(),
  cacheMisses: count.optional(),
  shapes: z
    .array(z.object({ step: z.string(), params: z.record(z.string(), z.unknown()) }))
    .optional(),
}) satisfies z.ZodType<LlmCallRecord>;

export const outcomeSchema = z.object({
  sampleId: z.string(),
  status: z.enum(['completed', 'cancelled']),
  preset: z.string(),
  notes: z.array(z.string()),
  embedder: z.string().nullable(),
  stats: z.record(z.string(), z.number()),
  testsCommitted: z.number().int(),
  testsSkipped: z.number().int(),
  insertErrors: z.number().int(),
  insertErrorMessages: z.array(z.string()),
  answerErrors: z.number().int(),
}) satisfies z.ZodType<SampleOutcome>;

/** A Sample is structured-cloned from the main thread, which validated the file; check its shape. */
export const sampleSchema = z
  .object({
    sampleId: z.string(),
    speakers: z.tuple([z.string(), z.string()]),
    sessions: z.array(z.unknown()),
    qa: z.array(z.unknown()),
  })
  .loose()
  .transform((s) => s as unknown as Sample);

const index = z.number().int().nonnegative();

/** The runner plans each sample once and sends the plan; the worker never re-plans. */
export const testPlanSchema = z.object({
  threshold: z.number().int().positive(),
  totalQuestions: index,
  questionOrder: z.array(index),
  visibleAtPacket: z.array(index.nullable()),
  tests: z.array(
    z.object({
      testIndex: index,
      packetIdx: index,
      dialogsInserted: index,
      visibleCount: index,
      questionIndices: z.array(index),
    }),
  ),
  completionPacketIdx: index.nullable(),
}) satisfies z.ZodType<TestPlan>;

/** An ErrorPayload as it crosses a worker boundary: the code survives, so callers can branch on it. */
export const errorPayloadSchema = z.object({
  code: z.enum(ERROR_CODES),
  message: z.string(),
  path: z.array(z.union([z.string(), z.number()])).optional(),
  where: z.string().optional(),
});

export const workerInSchema = z.discriminatedUnion('type', [
  z.object({
    seq: z.number().int().positive(),
    type: z.literal('start'),
    runId: z.string(),
    sample: sampleSchema,
    plan: testPlanSchema,
    config: ExperimentConfigSchema,
    benchmark: z.string().min(1),
    skipTests: z.array(z.number().int().nonnegative()),
    collectionDir: z.string(),
    cacheDir: z.string().optional(),
    responseCache: z.enum(['on', 'only']).optional(),
    responseCacheScope: z.string().min(1).max(100).optional(),
    /** False: a config from the network, whose errors never quote a service's replies. */
    quoteReplies: z.boolean().optional(),
    /** The run has a shared request budget: ask it for a slot before every LLM request. */
    budget: z.boolean().optional(),
    /**
     * The config's API keys by variable name, vetted on the main thread: the worker never reads
     * the environment for keys, and the main thread never writes keys into it.
     */
    apiKeys: z.record(z.string(), z.string()),
  }),
  z.object({ seq: z.number().int().positive(), type: z.literal('cancel') }),
  /**
   * Slots of the run's request budget the worker asked for are its own (see remoteGate.ts): the
   * grants of one turn of the main thread's event loop in one message.
   */
  z.object({
    seq: z.number().int().positive(),
    type: z.literal('slot-granted'),
    ids: z.array(z.number().int().positive()).min(1),
  }),
  /**
   * The word-vector cache file the worker asked for, checked, in the process's shared memory (read
   * once per process, not per worker); null: the worker reads it itself, and reports what fails.
   */
  z.object({
    seq: z.number().int().positive(),
    type: z.literal('word-vectors'),
    id: z.number().int().positive(),
    image: z.instanceof(SharedArrayBuffer).nullable(),
  }),
]);
/** Messages are built and read as the parsed shape (config with defaults, typed sample). */
export type WorkerIn = z.output<typeof workerInSchema>;

/**
 * What a worker reports that the main thread only has to take in order: sent in batches (one
 * `batch` message per BATCH_MS or per test, in the order they happened), where each used to be its
 * own message (~19k in a full LoCoMo run, mostly per-packet and per-answer progress).
 */
const workerReportSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('progress'), event: sampleEventSchema }),
  /** Asks the run's request budget for a slot of `endpoint`; main answers `slot-granted`. */
  z.object({
    type: z.literal('slot-acquire'),
    id: z.number().int().positive(),
    endpoint: z.string().min(1),
    /** The request's estimated tokens (a tokens-per-minute cap reserves them). */
    tokens: z.number().int().nonnegative().optional(),
  }),
  /** Gives a granted slot back, or withdraws an ask not yet granted (its request was cancelled). */
  z.object({
    type: z.literal('slot-release'),
    id: z.number().int().positive(),
    /** The request was throttled (429): the budget slows the endpoint down. */
    throttled: z.boolean().optional(),
    retryAfterMs: z.number().nonnegative().optional(),
    /** The tokens the reply reported, replacing the estimate in a tokens-per-minute window. */
    tokens: z.number().int().nonnegative().optional(),
  }),
  z.object({ type: z.literal('test-result'), test: testRecordSchema }),
  /** The sample's memory work is over; only answers are in flight (SampleHooks.memoryDone). */
  z.object({ type: z.literal('memory-done') }),
  /** An LLM request sent or ended: main adds it to the run's call ledger (filed in batches). */
  z.object({ type: z.literal('calls'), record: callRecordSchema }),
  z.object({
    type: z.literal('log'),
    level: z.enum(['info', 'warn', 'error']) satisfies z.ZodType<LogLevel>,
    message: z.string(),
  }),
]);
export type WorkerReport = z.output<typeof workerReportSchema>;

export const workerOutSchema = z.discriminatedUnion('type', [
  z.object({
    seq: z.number().int().positive(),
    type: z.literal('batch'),
    reports: z.array(workerReportSchema).min(1),
  }),
  /** Asks for the process's word vectors (main answers `word-vectors`). */
  z.object({
    seq: z.number().int().positive(),
    type: z.literal('word-vectors-acquire'),
    id: z.number().int().positive(),
    request: wordVectorRequestSchema,
  }),
  z.object({ seq: z.number().int().positive(), type: z.literal('done'), outcome: outcomeSchema }),
  z.object({
    seq: z.number().int().positive(),
    type: z.literal('error'),
    error: errorPayloadSchema,
  }),
]);
/** Outgoing messages are built as the parsed shape (events typed, not loose). */
export type WorkerOut = z.output<typeof workerOutSchema>;

/** Distributes `Omit` over a union (plain `Omit` collapses it). */
export type WithoutSeq<T> = T extends unknown ? Omit<T, 'seq'> : never;

/** Stamps outgoing messages with 1, 2, 3... */
export function sequencer<T extends { seq: number }>(): (message: WithoutSeq<T>) => T {
  let seq = 0;
  return (message) => ({ ...message, seq: ++seq }) as unknown as T;
}

/** Checks incoming sequence numbers are 1, 2, 3...; returns an error message on a gap. */
export function sequenceChecker(side: string): (seq: number) => string | null {
  let expected = 1;
  return (seq) => {
    if (seq !== expected)
      return `${side}: message out of sequence (got ${seq}, expected ${expected})`;
    expected++;
    return null;
  };
}

/** How long a report waits for others before its batch goes out: progress stays smooth. */
export const BATCH_MS = 25;

/**
 * Collects a worker's reports into batches: one goes out when its first report is BATCH_MS old
 * (checked on each report, and by a timer when none follows), at a test's result (the main thread
 * commits it at once), once the microtasks queued before it have run when it holds a slot request
 * (a request waits on its answer, and a release frees a slot another lane may be waiting for: not
 * at the end of the event loop's turn, which a test's retrievals can make long; the asks and
 * releases of one moment share a message with the reports before them, where each was one or two
 * of its own), or before any other message (`flush`), so the order is kept.
 */
export class ReportOutbox {
  private reports: WorkerReport[] = [];
  private since = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** A flush is queued for the end of the current microtasks (a slot request waits on it). */
  private soon = false;

  constructor(
    private readonly post: (reports: WorkerReport[]) => void,
    private readonly batchMs = BATCH_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  add(report: WorkerReport): void {
    if (this.reports.length === 0) {
      this.since = this.now();
      this.timer = setTimeout(() => this.flush(), this.batchMs);
    }
    this.reports.push(report);
    // A lane waits on `memory-done` to start its next sample: sent at once, like a test.
    if (
      report.type === 'test-result' ||
      report.type === 'memory-done' ||
      this.now() - this.since >= this.batchMs
    )
      this.flush();
    else if ((report.type === 'slot-acquire' || report.type === 'slot-release') && !this.soon) {
      this.soon = true;
      queueMicrotask(() => {
        if (this.soon) this.flush();
      });
    }
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.soon = false;
    if (this.reports.length === 0) return;
    const reports = this.reports;
    this.reports = [];
    this.post(reports);
  }
}
