import { z } from 'zod';
import { CATEGORY_IDS, type CategoryId } from './dataset/categories';

/**
 * The experiment contract shared by the CLI, the API and the UI: the run configuration (zod, with
 * defaults), the progress events a run emits, the answer rows it records and the pure aggregations
 * (summary, curve, final answers) every process computes the same way.
 */

// ---------------------------------------------------------------------------------------------
// Configuration

export const DEFAULT_MEMORY_PRESET = 'hybrid';
export const DEFAULT_TOP_K = 10;
export const DEFAULT_SEED = 42;
export const DEFAULT_INSERT_TIMEOUT_MS = 30_000;
export const DEFAULT_ANSWER_TIMEOUT_MS = 60_000;
/** Upper bound the schema accepts; the runner further clamps to the machine's cores. */
export const MAX_PARALLEL = 256;

export const ExtractiveAnswererConfigSchema = z.object({ kind: z.literal('extractive') }).strict();

/**
 * A discriminated union with one member today; an `{kind: 'llm', baseUrl, model, ...}` member is
 * added here when the LLM answerer lands, and every consumer's `switch (kind)` must then handle it.
 */
export const AnswererConfigSchema = z.discriminatedUnion('kind', [ExtractiveAnswererConfigSchema]);
export type AnswererConfig = z.output<typeof AnswererConfigSchema>;

export const ExperimentConfigSchema = z
  .object({
    datasetPath: z.string().min(1),
    /** Sample ids to run; absent means every sample in the file. */
    samples: z.array(z.string().min(1)).min(1).optional(),
    memory: z
      .object({
        preset: z.string().min(1).default(DEFAULT_MEMORY_PRESET),
        /** Preset-specific; validated by the preset's own schema when the service is created. */
        config: z.record(z.string(), z.unknown()).default({}),
      })
      .strict()
      .prefault({}),
    answerer: AnswererConfigSchema.prefault({ kind: 'extractive' }),
    retrieval: z
      .object({ topK: z.number().int().min(1).max(1000).default(DEFAULT_TOP_K) })
      .strict()
      .prefault({}),
    seed: z.number().int().default(DEFAULT_SEED),
    timeouts: z
      .object({
        insertMs: z.number().int().positive().default(DEFAULT_INSERT_TIMEOUT_MS),
        answerMs: z.number().int().positive().default(DEFAULT_ANSWER_TIMEOUT_MS),
      })
      .strict()
      .prefault({}),
    includeNoEvidence: z.boolean().default(false),
    parallel: z.number().int().min(1).max(MAX_PARALLEL).default(1),
  })
  .strict();

/** What a caller writes (defaults optional). */
export type ExperimentConfigInput = z.input<typeof ExperimentConfigSchema>;
/** What the engine runs (defaults filled in). */
export type ExperimentConfig = z.output<typeof ExperimentConfigSchema>;

// ---------------------------------------------------------------------------------------------
// Runs and answers

export const RUN_STATUSES = ['running', 'completed', 'cancelled', 'failed', 'interrupted'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const SAMPLE_STATUSES = ['pending', 'running', 'completed', 'cancelled', 'failed'] as const;
export type SampleStatus = (typeof SAMPLE_STATUSES)[number];

/** What an errored answer shows in tables and exports. */
export const ERROR_PREDICTION = '[ERROR]';

export interface RetrievedRef {
  id: string;
  diaId: string | null;
  score: number;
}

/** One question asked at one test. */
export interface AnswerRecord {
  sampleId: string;
  testIndex: number;
  questionIndex: number;
  category: CategoryId;
  question: string;
  /** The dataset's answer; null for category-5 questions that only carry an adversarial answer. */
  gold: string | null;
  /** ERROR_PREDICTION when `error` is set. */
  prediction: string;
  retrieved: RetrievedRef[];
  /** Official LoCoMo F1; 0 for errored answers. */
  officialF1: number;
  /** Evidence recall@k of the retrieved turns; null for questions without evidence. */
  evidenceRecall: number | null;
  retrieveMs: number;
  answerMs: number;
  /** Why the question has no real answer (timeout, thrown error); null when it has one. */
  error: string | null;
}

/** One committed test round (all its answers are committed with it, atomically). */
export interface TestRecord {
  sampleId: string;
  testIndex: number;
  packetIdx: number;
  dialogsInserted: number;
  visibleCount: number;
  questionIndices: number[];
  answers: AnswerRecord[];
}

/** Mean with its count; mean is null (not NaN, which JSON cannot carry) when n is 0. */
export interface MeanN {
  mean: number | null;
  n: number;
}

export interface ScorePair {
  officialF1: MeanN;
  /** Over questions that have evidence; its n can be smaller than officialF1's. */
  evidenceRecall: MeanN;
}

export interface RunSummary {
  /** Keyed by the stored category number; name it with a scheme when displaying. */
  byCategory: Record<CategoryId, ScorePair>;
  overall: {
    /** Official LoCoMo convention: every question. */
    all: ScorePair;
    /** Mem0 convention: categories 1-4. */
    categories1to4: ScorePair;
  };
  questions: number;
  errors: number;
}

export interface CurvePoint {
  sampleId: string;
  testIndex: number;
  dialogsInserted: number;
  visibleCount: number;
  meanF1: number | null;
  meanRecall: number | null;
}

// ---------------------------------------------------------------------------------------------
// Progress events

interface EventBase {
  runId: string;
  /** Epoch milliseconds. */
  at: number;
}

export type ProgressEvent =
  | (EventBase & {
      type: 'run-started';
      samples: string[];
      totalPackets: number;
      totalTests: number;
      resumed: boolean;
    })
  | (EventBase & {
      type: 'sample-started';
      sampleId: string;
      totalPackets: number;
      plannedTests: number;
      /** Tests already committed by an earlier attempt (resume): replayed, not re-answered. */
      skippedTests: number;
    })
  | (EventBase & {
      type: 'packet';
      sampleId: string;
      inserted: number;
      total: number;
      /** Whole-run estimate, from packets done so far; null until there is a rate. */
      etaMs: number | null;
    })
  | (EventBase & {
      type: 'test-started';
      sampleId: string;
      testIndex: number;
      questions: number;
    })
  | (EventBase & {
      type: 'question-answered';
      sampleId: string;
      testIndex: number;
      questionIndex: number;
      done: number;
      total: number;
      error: boolean;
    })
  | (EventBase & {
      type: 'test-committed';
      sampleId: string;
      testIndex: number;
      meanF1: number | null;
      errors: number;
    })
  | (EventBase & {
      type: 'sample-finished';
      sampleId: string;
      status: SampleStatus;
      insertErrors: number;
      answerErrors: number;
    })
  | (EventBase & { type: 'run-finished'; summary: RunSummary; elapsedMs: number })
  | (EventBase & { type: 'run-cancelled'; elapsedMs: number })
  | (EventBase & { type: 'run-failed'; message: string; elapsedMs: number });

export type ProgressEventType = ProgressEvent['type'];

// ---------------------------------------------------------------------------------------------
// Aggregation (pure)

function meanN(values: readonly number[]): MeanN {
  if (values.length === 0) return { mean: null, n: 0 };
  let sum = 0;
  for (const v of values) sum += v;
  return { mean: sum / values.length, n: values.length };
}

type Scored = Pick<AnswerRecord, 'category' | 'officialF1' | 'evidenceRecall' | 'error'>;

function scorePair(answers: readonly Scored[]): ScorePair {
  const recalls: number[] = [];
  for (const a of answers) if (a.evidenceRecall !== null) recalls.push(a.evidenceRecall);
  return { officialF1: meanN(answers.map((a) => a.officialF1)), evidenceRecall: meanN(recalls) };
}

/**
 * Per-category and overall means over a set of answers. Pass final answers for a run's headline;
 * per-test answers must not be pooled into it (DESIGN §3).
 */
export function summarizeAnswers(answers: readonly Scored[]): RunSummary {
  const byCategory = {} as Record<CategoryId, ScorePair>;
  for (const c of CATEGORY_IDS) byCategory[c] = scorePair(answers.filter((a) => a.category === c));
  return {
    byCategory,
    overall: {
      all: scorePair(answers),
      categories1to4: scorePair(answers.filter((a) => a.category !== 5)),
    },
    questions: answers.length,
    errors: answers.filter((a) => a.error !== null).length,
  };
}

type Keyed = Pick<AnswerRecord, 'sampleId' | 'questionIndex' | 'testIndex'>;

/** Each question's answer at the last test that asked it: the headline set. Sorted by sample, question. */
export function finalAnswersOf<T extends Keyed>(answers: readonly T[]): T[] {
  const last = new Map<string, T>();
  for (const a of answers) {
    const key = `${a.sampleId}\u0000${a.questionIndex}`;
    const seen = last.get(key);
    if (!seen || a.testIndex > seen.testIndex) last.set(key, a);
  }
  return [...last.values()].sort(
    (x, y) =>
      (x.sampleId < y.sampleId ? -1 : x.sampleId > y.sampleId ? 1 : 0) ||
      x.questionIndex - y.questionIndex,
  );
}

/** One point per committed test: how the scores move as the conversation grows. */
export function curveOf(tests: readonly Omit<TestRecord, 'questionIndices'>[]): CurvePoint[] {
  return tests
    .map((t) => {
      const s = scorePair(t.answers);
      return {
        sampleId: t.sampleId,
        testIndex: t.testIndex,
        dialogsInserted: t.dialogsInserted,
        visibleCount: t.visibleCount,
        meanF1: s.officialF1.mean,
        meanRecall: s.evidenceRecall.mean,
      };
    })
    .sort(
      (x, y) =>
        (x.sampleId < y.sampleId ? -1 : x.sampleId > y.sampleId ? 1 : 0) ||
        x.testIndex - y.testIndex,
    );
}

/** Remaining time from the share of work done; null before anything is done. */
export function estimateRemainingMs(elapsedMs: number, done: number, total: number): number | null {
  if (done <= 0 || total <= 0 || elapsedMs <= 0) return null;
  if (done >= total) return 0;
  return Math.round((elapsedMs / done) * (total - done));
}
