import { z } from 'zod';
import { CATEGORY_IDS, type CategoryId } from './dataset/categories';
import { bleu1, officialF1, setF1 } from './scoring';
import { stdDev } from './scoring/stats';

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

/** An environment variable's name: where an API key is read from at call time. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const PROMPT_STYLES = ['locomo', 'mem0'] as const;
export type PromptStyle = (typeof PROMPT_STYLES)[number];

export const DEFAULT_LLM_TIMEOUT_MS = 60_000;
export const DEFAULT_LLM_MAX_RETRIES = 4;
export const DEFAULT_LLM_CONCURRENCY = 4;
export const DEFAULT_LLM_BASE_DELAY_MS = 500;
export const DEFAULT_ANSWER_MAX_TOKENS = 64;
export const DEFAULT_JUDGE_MAX_TOKENS = 256;
/** Facts or a summary of a few turns: a few short lines. */
export const DEFAULT_MEMORY_LLM_MAX_TOKENS = 300;
export const DEFAULT_JUDGE_REPEATS = 1;

/** USD per million tokens; with them a run's manifest carries its cost. */
export const LlmPricesSchema = z
  .object({
    inputPerMillion: z.number().nonnegative(),
    outputPerMillion: z.number().nonnegative(),
  })
  .strict();
export type LlmPrices = z.output<typeof LlmPricesSchema>;

/**
 * An OpenAI-compatible chat endpoint. `baseUrl` includes the version segment
 * (`https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`). The API key is never part of a
 * config: `apiKeyEnv` names the environment variable it is read from at each call, and the
 * schemas are strict, so a literal `apiKey` field is refused rather than stored in a run.
 */
function llmEndpointShape(defaultMaxTokens: number) {
  return {
    baseUrl: z.url({ protocol: /^https?$/ }),
    model: z.string().min(1),
    temperature: z.number().min(0).max(2).default(0),
    maxTokens: z.number().int().min(1).max(32_768).default(defaultMaxTokens),
    apiKeyEnv: z.string().regex(ENV_NAME, 'must be an environment variable name').optional(),
    /** Per HTTP attempt; the pipeline's answer timeout bounds the whole call with its retries. */
    timeoutMs: z.number().int().positive().default(DEFAULT_LLM_TIMEOUT_MS),
    maxRetries: z.number().int().min(0).max(20).default(DEFAULT_LLM_MAX_RETRIES),
    /** Requests in flight at once, per process (each experiment worker has its own client). */
    concurrency: z.number().int().min(1).max(64).default(DEFAULT_LLM_CONCURRENCY),
    /** Backoff: min(20 s, baseDelayMs * 2^attempt) times a jitter in [0.5, 1); Retry-After wins. */
    baseDelayMs: z.number().nonnegative().default(DEFAULT_LLM_BASE_DELAY_MS),
    prices: LlmPricesSchema.optional(),
  };
}

export const LlmAnswererConfigSchema = z
  .object({
    kind: z.literal('llm'),
    ...llmEndpointShape(DEFAULT_ANSWER_MAX_TOKENS),
    promptStyle: z.enum(PROMPT_STYLES).default('locomo'),
  })
  .strict();
export type LlmAnswererConfig = z.output<typeof LlmAnswererConfigSchema>;

/** Every consumer's `switch (kind)` must handle each member (answerers.ts is exhaustive). */
export const AnswererConfigSchema = z.discriminatedUnion('kind', [
  ExtractiveAnswererConfigSchema,
  LlmAnswererConfigSchema,
]);
export type AnswererConfig = z.output<typeof AnswererConfigSchema>;

/** The Mem0-style LLM judge: CORRECT/WRONG per answer, `repeats` times, categories 1-4. */
export const JudgeConfigSchema = z
  .object({
    ...llmEndpointShape(DEFAULT_JUDGE_MAX_TOKENS),
    repeats: z.number().int().min(1).max(20).default(DEFAULT_JUDGE_REPEATS),
  })
  .strict();
export type JudgeConfigInput = z.input<typeof JudgeConfigSchema>;
export type JudgeConfig = z.output<typeof JudgeConfigSchema>;

/**
 * The LLM a memory service may use for its own stages (memoryos long-term facts, tiers summaries).
 * Presets without such a stage ignore it; with none configured those stages are off and the run's
 * manifest says so.
 */
export const MemoryLlmConfigSchema = z
  .object(llmEndpointShape(DEFAULT_MEMORY_LLM_MAX_TOKENS))
  .strict();
export type MemoryLlmConfig = z.output<typeof MemoryLlmConfigSchema>;

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
        llm: MemoryLlmConfigSchema.optional(),
      })
      .strict()
      .prefault({}),
    answerer: AnswererConfigSchema.prefault({ kind: 'extractive' }),
    /** When set, every answer of categories 1-4 is judged after the run (cached in the runs DB). */
    judge: JudgeConfigSchema.optional(),
    retrieval: z
      .object({
        topK: z.number().int().min(1).max(1000).default(DEFAULT_TOP_K),
        /**
         * Equal-context-budget mode: the retrieved memories are trimmed to this many words
         * (best first) before the answerer reads them, so systems compare at matched context.
         */
        contextWords: z.number().int().min(1).max(1_000_000).optional(),
      })
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

/** The LLM judge's verdict on one answer over its repeats. */
export interface JudgeScore {
  /** Share of repeats labelled CORRECT; null when the judge failed. */
  mean: number | null;
  /** Sample standard deviation over the repeats (0 for one repeat); null when the judge failed. */
  std: number | null;
  /** 1 = CORRECT, 0 = WRONG, one per repeat in repeat order; empty when the judge failed. */
  labels: number[];
  /** Why there is no verdict (malformed judge output, HTTP failure); null when there is one. */
  error: string | null;
}

/** Tokens one model call used, as the server reported them. */
export interface TokenCounts {
  promptTokens: number;
  completionTokens: number;
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
  /** Mem0-style set F1 (categories 1-4; null for category 5); 0 for errored answers. */
  setF1: number | null;
  /** Mem0-style BLEU-1 (categories 1-4; null for category 5); 0 for errored answers. */
  bleu1: number | null;
  /** The LLM judge's verdict; null when no judge ran (none configured, category 5, not yet). */
  judge: JudgeScore | null;
  /** The answerer's token usage for this call; null when it reports none (extractive, errors). */
  usage: TokenCounts | null;
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

/** The judge's J: mean over judged answers, std over the repeats' accuracies (Mem0 reports J ± std). */
export interface JudgeMeanN extends MeanN {
  /** Sample std of the per-repeat accuracies; null with fewer than one repeat judged. */
  std: number | null;
  repeats: number;
}

export interface ScorePair {
  officialF1: MeanN;
  /** Over questions that have evidence; its n can be smaller than officialF1's. */
  evidenceRecall: MeanN;
  /** Mem0-style metrics: category-5 answers have none, so their n counts categories 1-4 only. */
  setF1: MeanN;
  bleu1: MeanN;
  /** Over answers with a verdict; n is 0 when no judge ran. */
  judge: JudgeMeanN;
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
  meanSetF1: number | null;
  meanBleu1: number | null;
  /** Mean judge score of the test's judged answers; null when none were judged. */
  meanJudge: number | null;
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

/**
 * The lexical scores of one answer, computed the same way by the pipeline and `cli score`:
 * official F1 on every category, Mem0-style set F1 and BLEU-1 on categories 1-4 (null on 5); an
 * errored answer scores 0, never its "[ERROR]" text against the gold.
 */
export function lexicalScores(
  prediction: string,
  gold: string | null,
  category: CategoryId,
  errored = false,
): Pick<AnswerRecord, 'officialF1' | 'setF1' | 'bleu1'> {
  const mem0 = category !== 5;
  if (errored) return { officialF1: 0, setF1: mem0 ? 0 : null, bleu1: mem0 ? 0 : null };
  return {
    officialF1: officialF1(prediction, gold, category),
    setF1: mem0 ? setF1(prediction, gold ?? '') : null,
    bleu1: mem0 ? bleu1(prediction, gold ?? '') : null,
  };
}

/** The per-answer judge verdict from its labels (1 CORRECT, 0 WRONG). */
export function judgeScoreOf(labels: readonly number[]): JudgeScore {
  if (labels.length === 0) return { mean: null, std: null, labels: [], error: null };
  let sum = 0;
  for (const l of labels) sum += l;
  return { mean: sum / labels.length, std: stdDev(labels), labels: [...labels], error: null };
}

type Scored = Pick<AnswerRecord, 'category' | 'officialF1' | 'evidenceRecall' | 'error'> &
  Partial<Pick<AnswerRecord, 'setF1' | 'bleu1' | 'judge'>>;

function presentMean(values: ReadonlyArray<number | null | undefined>): MeanN {
  const present: number[] = [];
  for (const v of values) if (v !== null && v !== undefined) present.push(v);
  return meanN(present);
}

/**
 * J as Mem0 reports it: the mean over judged answers, and the spread of the accuracy across
 * repeats (accuracy of repeat r over the answers that have an r-th label).
 */
function judgeMeanN(answers: readonly Scored[]): JudgeMeanN {
  const judged = answers.filter((a) => a.judge != null && a.judge.mean !== null);
  const base = presentMean(judged.map((a) => a.judge?.mean));
  let repeats = 0;
  for (const a of judged) repeats = Math.max(repeats, a.judge?.labels.length ?? 0);
  const perRepeat: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const m = presentMean(judged.map((a) => a.judge?.labels[r])).mean;
    if (m !== null) perRepeat.push(m);
  }
  return { ...base, std: perRepeat.length === 0 ? null : stdDev(perRepeat), repeats };
}

function scorePair(answers: readonly Scored[]): ScorePair {
  return {
    officialF1: meanN(answers.map((a) => a.officialF1)),
    evidenceRecall: presentMean(answers.map((a) => a.evidenceRecall)),
    setF1: presentMean(answers.map((a) => a.setF1)),
    bleu1: presentMean(answers.map((a) => a.bleu1)),
    judge: judgeMeanN(answers),
  };
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
        meanSetF1: s.setF1.mean,
        meanBleu1: s.bleu1.mean,
        meanJudge: s.judge.mean,
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
