import { z } from 'zod';
import {
  answerableKeyOf,
  benchmarkCategory,
  judgeProtocolFor,
  LOCOMO_PROFILE,
  type BenchmarkProfile,
} from './benchmarks';
import type { CategoryId } from './benchmarks/types';
import { PROTOCOL_MODES } from './dataset/packets';
import { WorkbenchError } from './errors';
import {
  metricsOf,
  type MetricDefinition,
  scoreAnswer,
  type AggregateInput,
  type MetricId,
  type MetricMean,
  type Scores,
} from './metrics';
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
/** A finished run with more errored final answers than this share ends `degraded`. */
export const DEFAULT_MAX_ERROR_SHARE = 0.1;
export const DEFAULT_ANSWER_TIMEOUT_MS = 60_000;
/**
 * Upper bound the schema accepts; the runner further clamps to the machine's cores unless the run
 * answers with an LLM (its lanes wait on the endpoint, not on a core).
 */
export const MAX_PARALLEL = 256;
/** Requests in flight per endpoint a run may ask for (`concurrency`). */
export const MAX_CONCURRENCY = 1024;
/** Failed answers in a row that pause a run (the circuit breaker), unless the config says. */
export const DEFAULT_MAX_CONSECUTIVE_FAILURES = 20;
/**
 * The longest deadline a config may set: Node's timers hold a signed 32-bit millisecond count, and
 * a longer one overflows to 1 ms (with a warning), so `answerMs: 3e9` would time every call out.
 */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;
/** Every deadline in a config (milliseconds, whole, at least 1, at most MAX_TIMEOUT_MS). */
export const timeoutMsSchema = z.number().int().positive().max(MAX_TIMEOUT_MS);

/** An environment variable's name: where an API key is read from at call time. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The workbench's own prompts before answer protocols had names; kept as a config alias. */
export const PROMPT_STYLES = ['locomo', 'mem0'] as const;
export type PromptStyle = (typeof PROMPT_STYLES)[number];

/**
 * Named answer protocols (core/answer/protocols.ts has the bytes). `locomo-full-context`, `mem0`
 * and the `longmemeval` readers copy the papers' evaluation code byte for byte; the `workbench-*` ones are the
 * workbench's earlier prompts, kept under their own names so older runs stay interpretable.
 */
export const ANSWER_PROTOCOLS = [
  'workbench-locomo',
  'workbench-mem0',
  'locomo-full-context',
  'locomo-rag',
  'mem0',
  'mem0-rag',
  'mem0-full-context',
  'longmemeval',
  'longmemeval-direct',
  'longmemeval-full-context',
] as const;
export type AnswerProtocolName = (typeof ANSWER_PROTOCOLS)[number];
const LEGACY_PROMPT_STYLE: Record<PromptStyle, AnswerProtocolName> = {
  locomo: 'workbench-locomo',
  mem0: 'workbench-mem0',
};

/**
 * The offline answerer. `answerProtocol` names the protocol the run stands in for (a paper's
 * setting run offline): recorded in the manifest with its hash, never sent anywhere.
 */
export const ExtractiveAnswererConfigSchema = z
  .object({
    kind: z.literal('extractive'),
    answerProtocol: z
      .enum(ANSWER_PROTOCOLS, { error: `must be one of ${ANSWER_PROTOCOLS.join(', ')}` })
      .optional(),
  })
  .strict();

/**
 * How a reply to the two-option category-5 question becomes the scored answer: `locomo` is
 * LoCoMo's `get_cat_5_answer` exactly (lowercases, any 1- or 3-character reply picks an option);
 * `lenient` is the workbench's earlier mapping (bare `a`/`(a)`, or a reply that starts `(a)`).
 */
export const CATEGORY5_MAPPINGS = ['locomo', 'lenient'] as const;
export type Category5Mapping = (typeof CATEGORY5_MAPPINGS)[number];

/** LoCoMo full context: the model's context size the conversation is cut to (from the end). */
export const DEFAULT_FULL_CONTEXT_TOKENS = 128_000;

export const DEFAULT_LLM_TIMEOUT_MS = 60_000;
export const DEFAULT_LLM_MAX_RETRIES = 4;
export const DEFAULT_LLM_CONCURRENCY = 4;
/**
 * Requests in flight per endpoint for a run whose answerer is an LLM and whose config sets no
 * `concurrency`: answering is waiting on the endpoint, so one request at a time would leave it idle
 * (11,519 LoCoMo answer calls at 1 s take 3.2 h one by one). A 429 halves it (http/callBudget.ts).
 */
export const DEFAULT_RUN_CONCURRENCY = 32;
export const DEFAULT_LLM_BASE_DELAY_MS = 500;
export const DEFAULT_ANSWER_MAX_TOKENS = 64;
export const DEFAULT_JUDGE_MAX_TOKENS = 256;
/** Facts or a summary of a few turns: a few short lines. */
export const DEFAULT_MEMORY_LLM_MAX_TOKENS = 300;
export const DEFAULT_JUDGE_REPEATS = 1;
/**
 * Largest reply body an LLM client reads off the socket. A chat completion or an embeddings batch
 * is a few KB to a few hundred KB; a bigger body is a broken or hostile server, and buffering it
 * whole let one run take 2.7 GB. Over the cap the request is aborted: LLM_REPLY_TOO_LARGE.
 */
export const DEFAULT_LLM_MAX_REPLY_BYTES = 4 * 1024 * 1024;
/**
 * Longest answer text a run stores. LoCoMo answers are a few words; an answerer that returns more
 * than this is broken, and its answer is recorded as an error (not truncated: a cut answer would
 * still be scored as if it were the model's).
 */
export const MAX_ANSWER_CHARS = 8 * 1024;

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
    timeoutMs: timeoutMsSchema.default(DEFAULT_LLM_TIMEOUT_MS),
    maxRetries: z.number().int().min(0).max(20).default(DEFAULT_LLM_MAX_RETRIES),
    /** Requests in flight at once, per process (each experiment worker has its own client). */
    concurrency: z.number().int().min(1).max(64).default(DEFAULT_LLM_CONCURRENCY),
    /** Backoff: min(20 s, baseDelayMs * 2^attempt) times a jitter in [0.5, 1); Retry-After wins. */
    baseDelayMs: z.number().nonnegative().default(DEFAULT_LLM_BASE_DELAY_MS),
    /** Reply bodies over this many bytes are refused (LLM_REPLY_TOO_LARGE) without reading the rest. */
    maxReplyBytes: z
      .number()
      .int()
      .min(1024)
      .max(256 * 1024 * 1024)
      .default(DEFAULT_LLM_MAX_REPLY_BYTES),
    prices: LlmPricesSchema.optional(),
    /**
     * Request starts allowed per minute at this endpoint (its rate limit), enforced by the run's
     * shared request budget across samples and workers. No default: configs hash as before.
     */
    requestsPerMinute: z.number().int().min(1).max(1_000_000).optional(),
    /**
     * Prompt plus completion tokens allowed per minute at this endpoint, enforced by the same
     * budget (a request reserves an estimate, replaced by the reported usage). No default.
     */
    tokensPerMinute: z.number().int().min(1).max(1_000_000_000).optional(),
  };
}

/** LoCoMo's scripts go up to 20; a prompt of 100 questions is past any model's answer budget. */
export const MAX_LOCOMO_BATCH_SIZE = 100;

export const LlmAnswererConfigSchema = z
  .object({
    kind: z.literal('llm'),
    ...llmEndpointShape(DEFAULT_ANSWER_MAX_TOKENS),
    /** Legacy name of the workbench prompts; `answerProtocol` wins when both are given. */
    promptStyle: z.enum(PROMPT_STYLES).optional(),
    answerProtocol: z
      .enum(ANSWER_PROTOCOLS, {
        error: `must be one of ${ANSWER_PROTOCOLS.join(', ')}`,
      })
      .optional(),
    category5Mapping: z
      .enum(CATEGORY5_MAPPINGS, {
        error: `must be one of ${CATEGORY5_MAPPINGS.join(', ')}`,
      })
      .default('locomo'),
    /** `locomo-full-context` only: the context budget in tokens (LoCoMo's MAX_LENGTH). */
    contextTokens: z.number().int().min(256).max(10_000_000).default(DEFAULT_FULL_CONTEXT_TOKENS),
    /**
     * `locomo-full-context` only: questions to a prompt, LoCoMo's `--batch-size` (its scripts run
     * the long-context models at 10 and 20). Absent or 1: one question to a prompt; no default,
     * so configs hash as before.
     */
    batchSize: z.number().int().min(1).max(MAX_LOCOMO_BATCH_SIZE).optional(),
  })
  .strict()
  .refine(
    (c) =>
      c.batchSize === undefined ||
      c.batchSize === 1 ||
      (c.answerProtocol ?? LEGACY_PROMPT_STYLE[c.promptStyle ?? 'locomo']) ===
        'locomo-full-context',
    {
      message:
        'a batch of questions to a prompt is LoCoMo full context only (answerProtocol locomo-full-context)',
      path: ['batchSize'],
    },
  );
export type LlmAnswererConfig = z.output<typeof LlmAnswererConfigSchema>;

/** The answer protocol a config asks for: `answerProtocol`, else the legacy `promptStyle`. */
export function answerProtocolOf(
  config: Pick<LlmAnswererConfig, 'answerProtocol' | 'promptStyle'>,
): AnswerProtocolName {
  return config.answerProtocol ?? LEGACY_PROMPT_STYLE[config.promptStyle ?? 'locomo'];
}

/** Every consumer's `switch (kind)` must handle each member (answerers.ts is exhaustive). */
export const AnswererConfigSchema = z.discriminatedUnion('kind', [
  ExtractiveAnswererConfigSchema,
  LlmAnswererConfigSchema,
]);
export type AnswererConfig = z.output<typeof AnswererConfigSchema>;

/**
 * The answerer's LLM response cache: `on` answers identical requests from it, `off` always asks the
 * endpoint, `only` never does (an offline replay of an earlier run). Not part of a run's config:
 * it changes what is paid for, not what is answered.
 */
export const RESPONSE_CACHE_MODES = ['on', 'off', 'only'] as const;
export type ResponseCacheMode = (typeof RESPONSE_CACHE_MODES)[number];

/**
 * Named judge protocols (core/answer/judge-protocols.ts has the bytes): `mem0` is Mem0's
 * ACCURACY_PROMPT and parsing exactly; `strict` asks for the same fact, not the same topic;
 * `workbench-v1` is the workbench's earlier judge prompt, kept so older runs stay interpretable.
 */
export const JUDGE_PROTOCOLS = ['mem0', 'strict', 'workbench-v1', 'longmemeval'] as const;
export type JudgeProtocolName = (typeof JUDGE_PROTOCOLS)[number];

/** The benchmark's own judge protocol (its profile's `defaultJudgeProtocol`) as a built-in name. */
export function ownJudgeProtocol(profile: BenchmarkProfile): JudgeProtocolName {
  const own = JUDGE_PROTOCOLS.find((p) => p === profile.defaultJudgeProtocol);
  if (!own) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `benchmark ${profile.id}: judge protocol "${profile.defaultJudgeProtocol}" is not one of ${JUDGE_PROTOCOLS.join(', ')}`,
    );
  }
  return own;
}

/**
 * What the app's run form preselects before it knows the dataset: LoCoMo's own judge. A config
 * that names none gets its dataset's profile's (judgeConfigFor).
 */
export const DEFAULT_JUDGE_PROTOCOL: JudgeProtocolName = ownJudgeProtocol(LOCOMO_PROFILE);
/** Unparseable judge replies are asked again this many times before they count (bounded). */
export const DEFAULT_JUDGE_PARSE_RETRIES = 2;
/** The slots a user-defined judge template must fill. */
export const CUSTOM_JUDGE_SLOTS = ['{{question}}', '{{gold}}', '{{answer}}'] as const;

/** A user-defined judge prompt (from `--judge-protocol-file`), stored whole in the config. */
export const CustomJudgeProtocolSchema = z
  .object({
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1-64 letters, digits, ".", "_" or "-"'),
    template: z
      .string()
      .min(1)
      .max(100_000)
      .refine((t) => CUSTOM_JUDGE_SLOTS.every((slot) => t.includes(slot)), {
        message: `must contain each of ${CUSTOM_JUDGE_SLOTS.join(', ')}`,
      }),
    /** Send `response_format: {type: "json_object"}` (the template must then mention JSON). */
    jsonMode: z.boolean().default(true),
  })
  .strict();
export type CustomJudgeProtocol = z.output<typeof CustomJudgeProtocolSchema>;

/** The LLM judge: CORRECT/WRONG per answer, `repeats` times, categories 1-4. */
export const JudgeConfigSchema = z
  .object({
    ...llmEndpointShape(DEFAULT_JUDGE_MAX_TOKENS),
    repeats: z.number().int().min(1).max(20).default(DEFAULT_JUDGE_REPEATS),
    protocol: z
      .union([z.enum(JUDGE_PROTOCOLS), CustomJudgeProtocolSchema], {
        // A union's own message would be "Invalid input" (an object is checked field by field).
        error: `must be one of ${JUDGE_PROTOCOLS.join(', ')}, or a custom protocol {name, template}`,
      })
      // Absent: the dataset's benchmark profile names its own (judgeConfigFor), once it is known.
      .optional(),
    parseRetries: z.number().int().min(0).max(10).default(DEFAULT_JUDGE_PARSE_RETRIES),
  })
  .strict()
  // Absent counts as mem0 here: every profile's own judge (mem0, longmemeval) is defined at 0.
  .refine((c) => (c.protocol ?? 'mem0') !== 'mem0' || c.temperature === 0, {
    message: 'the mem0 judge protocol is defined at temperature 0',
    path: ['temperature'],
  })
  .refine((c) => c.protocol !== 'longmemeval' || c.temperature === 0, {
    message: 'the longmemeval judge protocol is defined at temperature 0',
    path: ['temperature'],
  });
export type JudgeConfigInput = z.input<typeof JudgeConfigSchema>;
export type JudgeConfig = z.output<typeof JudgeConfigSchema>;
/** A judge protocol as a config names it: built-in by name, or a custom template. */
export type JudgeProtocolChoice = JudgeProtocolName | CustomJudgeProtocol;
/** A judge config whose protocol is settled: named, or the benchmark profile's own. */
export type ResolvedJudgeConfig = JudgeConfig & { protocol: JudgeProtocolChoice };

/**
 * The judge config a run of the benchmark uses: its protocol as named, else the profile's own
 * judge; `warning` says when the named one is another benchmark's judge.
 */
export function judgeConfigFor(
  config: JudgeConfig,
  profile: BenchmarkProfile,
): { config: ResolvedJudgeConfig; warning: string | null } {
  const { protocol, warning } = judgeProtocolFor(profile, config.protocol);
  const parsed = JudgeConfigSchema.safeParse({ ...config, protocol });
  if (!parsed.success || parsed.data.protocol === undefined) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `judge: benchmark ${profile.id}'s judge protocol "${String(protocol)}" is not a judge protocol here`,
    );
  }
  return { config: { ...parsed.data, protocol: parsed.data.protocol }, warning };
}

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
    samples: z
      .array(z.string().min(1))
      .min(1)
      .superRefine((ids, ctx) => {
        // Each sample runs once: a repeated id would plan the same sample twice in one run.
        const seen = new Set<string>();
        ids.forEach((id, index) => {
          if (seen.has(id)) {
            ctx.addIssue({
              code: 'custom',
              path: [index],
              message: `sample "${id}" is listed twice`,
            });
          }
          seen.add(id);
        });
      })
      .optional(),
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
        insertMs: timeoutMsSchema.default(DEFAULT_INSERT_TIMEOUT_MS),
        answerMs: timeoutMsSchema.default(DEFAULT_ANSWER_TIMEOUT_MS),
      })
      .strict()
      .prefault({}),
    /**
     * Questions without usable evidence are asked at the last packet, so the headline n is the
     * dataset's question count (1,986 in LoCoMo); false leaves them out (the opt-out). Configs
     * stored before the default changed carry their explicit false.
     */
    includeNoEvidence: z.boolean().default(true),
    /**
     * `stream` (absent means stream): tests as questions become visible, the last after the last
     * packet; `ingest-all`: every packet first, then each question once (the papers' protocol).
     * No default, so existing configs hash as before.
     */
    mode: z
      .enum(PROTOCOL_MODES, { error: `must be one of ${PROTOCOL_MODES.join(', ')}` })
      .optional(),
    /**
     * Haystack benchmarks (LongMemEval): also ask each question after every n-th of its haystack
     * (the curve); absent or 1: only after the whole haystack. No default: configs hash as before.
     */
    haystackCurvePoints: z.number().int().min(1).max(100).optional(),
    /**
     * Ask only the questions of these stored categories: a paper's question set (Mem0 leaves out
     * LoCoMo's adversarial category 5). Absent: every category; no default, so configs hash as
     * before.
     */
    questionCategories: z.array(z.number().int().positive()).min(1).optional(),
    /**
     * Above this share of errored final answers a finished run is `degraded`, not `completed`
     * (DEFAULT_MAX_ERROR_SHARE when absent; no default here, so existing configs hash as before).
     */
    maxErrorShare: z.number().min(0).max(1).optional(),
    /**
     * Run the valid samples of a file that also holds invalid ones (the manifest lists what was
     * skipped). Without it such a file is refused. No default, so existing configs hash as before.
     */
    skipInvalid: z.boolean().optional(),
    parallel: z.number().int().min(1).max(MAX_PARALLEL).default(1),
    /**
     * LLM requests in flight at once per endpoint, one budget for the whole run (every sample and
     * worker); the questions of a test are then answered concurrently and committed in order.
     * Absent: DEFAULT_RUN_CONCURRENCY when the answerer is an LLM, else one question at a time,
     * each client with its own `concurrency` (resolved at run time by `runConcurrency`, not a
     * schema default, so existing configs hash as before).
     */
    concurrency: z.number().int().min(1).max(MAX_CONCURRENCY).optional(),
    /**
     * This many LLM calls failing in a row (answers, retries spent) pause the run with the reason;
     * `cli resume` continues it once the endpoint is fixed. Absent: DEFAULT_MAX_CONSECUTIVE_FAILURES.
     */
    maxConsecutiveFailures: z.number().int().min(1).max(1_000_000).optional(),
  })
  .strict();

/** What a caller writes (defaults optional). */
export type ExperimentConfigInput = z.input<typeof ExperimentConfigSchema>;
/** What the engine runs (defaults filled in). */
export type ExperimentConfig = z.output<typeof ExperimentConfigSchema>;

// ---------------------------------------------------------------------------------------------
// Runs and answers

/**
 * `degraded`: the run finished, but more than `maxErrorShare` of its final answers are errors; its
 * scores measure the endpoint's failures more than the memory. A run whose every final answer is
 * an error ends `failed`. `paused`: the circuit breaker stopped it (its endpoint kept failing);
 * committed tests stay and it resumes once the endpoint is fixed.
 */
export const RUN_STATUSES = [
  'running',
  'completed',
  'degraded',
  'cancelled',
  'failed',
  'interrupted',
  'paused',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const SAMPLE_STATUSES = ['pending', 'running', 'completed', 'cancelled', 'failed'] as const;
export type SampleStatus = (typeof SAMPLE_STATUSES)[number];

/** What an errored answer shows in tables and exports. */
export const ERROR_PREDICTION = '[ERROR]';

export interface RetrievedRef {
  id: string;
  diaId: string | null;
  score: number;
  /**
   * LoCoMo-convention context ids of a memory that is not one turn: an observation's source turns
   * as the dataset writes them, `S<n>` for a session summary (see `retrievedContext`).
   */
  context?: string[];
  /**
   * Every turn the memory cites, when it cites more than one (an external service's chunk or
   * summary); `diaId` is the first. Each counts for evidence recall (`retrievedTurnIds`).
   */
  diaIds?: string[];
}

/** The turns a retrieved memory cites: its `diaIds` when it has several, else its `diaId`. */
export function citedTurnIds(ref: Pick<RetrievedRef, 'diaId' | 'diaIds'>): readonly string[] {
  return ref.diaIds ?? (ref.diaId !== null ? [ref.diaId] : []);
}

/**
 * The turn ids cited by the first k memories, best first (what evidence recall@k is measured on):
 * every id of a memory that cites several turns counts.
 */
export function retrievedTurnIds(
  refs: ReadonlyArray<Pick<RetrievedRef, 'diaId' | 'diaIds'>>,
  topK: number,
): string[] {
  return refs.slice(0, topK).flatMap((r) => citedTurnIds(r));
}

/**
 * The retrieved context in LoCoMo's id form, as `get_rag_context` lists it for its top k: each
 * memory's context ids (a turn: its dia_id). Undefined when no memory carries context ids, so
 * LoCoMo-convention recall reads the retrieved turns as before.
 */
export function retrievedContext(
  refs: ReadonlyArray<Pick<RetrievedRef, 'diaId' | 'context'>>,
  topK: number,
): string[] | undefined {
  const top = refs.slice(0, topK);
  if (!top.some((r) => r.context !== undefined)) return undefined;
  return top.flatMap((r) => r.context ?? (r.diaId !== null ? [r.diaId] : []));
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
  /**
   * The judge protocol that gave it (`mem0`, `strict`, …). Set by the judge, not kept per row by
   * the runs DB: a run's protocol is its manifest's `judge.prompt.style`.
   */
  protocol?: string;
  /**
   * Repeats whose reply stayed unparseable after the bounded retries. Under `mem0` each counts
   * as a WRONG label (Mem0's denominator); under other protocols the answer gets `error` instead.
   * Not kept per row: the run's count is its manifest's `judge.unparseable`.
   */
  unparseable?: number;
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
  /**
   * Every registered metric's value (src-shared/metrics), null where the metric does not score
   * the question (Mem0 metrics on adversarial questions, recall without evidence, no verdict yet).
   * An errored answer scores 0 on answer metrics. `scores.judge` is `judge.mean`.
   */
  scores: Scores;
  /** The LLM judge's verdict detail (labels per repeat, std, error); null when no judge ran. */
  judge: JudgeScore | null;
  /** The answerer's token usage for this call; null when it reports none (extractive, errors). */
  usage: TokenCounts | null;
  /**
   * Tokens of the retrieved context handed to the answerer (Mem0 Table 2's memory tokens per
   * question); null when unknown (runs from before it was stored, answers that failed first).
   */
  memoryTokens?: number | null;
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

/** Each metric's mean over a set of answers (n counts the answers it scored), by metric id. */
export type ScorePair = Record<MetricId, MetricMean> & { judge: JudgeMeanN };

export interface RunSummary {
  /** Keyed by the stored category number; name it with a scheme when displaying. */
  byCategory: Record<CategoryId, ScorePair>;
  /**
   * Profiles with `taskAveraged` (LongMemEval): per task, keyed by its category, the categories
   * that count for it included (a type's abstention questions in their type, as
   * `print_qa_metrics.py` prints its per-type rows).
   */
  byTask?: Record<CategoryId, ScorePair>;
  overall: {
    /** Official LoCoMo convention: every question. */
    all: ScorePair;
    /**
     * Mem0 convention: LoCoMo's non-adversarial categories 1-4, under the key LoCoMo summaries
     * have always had. Other profiles name the same mean `answerable`; read it by `answerableOf`.
     */
    categories1to4?: ScorePair;
    /** A non-LoCoMo profile's non-adversarial categories (LongMemEval: every non-abstention question). */
    answerable?: ScorePair;
    /**
     * Profiles with `abstentionAccuracy` (LongMemEval `print_qa_metrics.py` "Abstention
     * Accuracy"): the adversarial (abstention) questions alone.
     */
    abstention?: ScorePair;
    /**
     * Profiles with `taskAveraged` (LongMemEval): the mean over question types of each type's
     * mean, abstention questions counted in their type, as the benchmark reports it beside the
     * overall mean ("task-averaged accuracy" vs "overall accuracy").
     */
    taskAveraged?: ScorePair;
  };
  questions: number;
  errors: number;
}

export interface CurvePoint {
  sampleId: string;
  testIndex: number;
  dialogsInserted: number;
  visibleCount: number;
  /** Each metric's mean over the test's answers; null when it scored none. */
  means: Record<MetricId, number | null>;
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
      /** A resume's samples an earlier attempt finished: not run again, still part of the run. */
      finished?: Array<{ sampleId: string; totalPackets: number; plannedTests: number }>;
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
      /** The answer's error, when it has one (the circuit breaker names the last). */
      errorMessage?: string;
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
      /** Why a failed sample stopped. */
      error?: string;
    })
  | (EventBase & {
      type: 'run-finished';
      summary: RunSummary;
      elapsedMs: number;
      /** `degraded` (with why) when too many final answers are errors; absent means completed. */
      status?: 'completed' | 'degraded';
      message?: string | null;
    })
  /** `reason`: who or what cancelled it (the user, the app quitting), when the canceller said. */
  | (EventBase & { type: 'run-cancelled'; elapsedMs: number; reason?: string })
  | (EventBase & { type: 'run-failed'; message: string; elapsedMs: number })
  /** The circuit breaker stopped the run (`message` says why); resume it once the endpoint works. */
  | (EventBase & { type: 'run-paused'; message: string; elapsedMs: number });

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
 * The scores of one answer, computed the same way by the pipeline and `cli score`: every
 * registered metric that scores the category under the benchmark profile. An errored answer
 * scores 0 on answer metrics, never its "[ERROR]" text against the gold.
 */
export function answerScores(
  answer: {
    prediction: string;
    gold: string | null;
    category: CategoryId;
    evidence?: readonly string[];
    evidenceRaw?: readonly string[];
    retrieved?: readonly string[];
    topK?: number;
    retrievalCorpus?: readonly string[];
    /** LoCoMo-form context ids (`retrievedContext`), when they differ from `retrieved`. */
    context?: readonly string[];
    errored?: boolean;
  },
  profile: BenchmarkProfile = LOCOMO_PROFILE,
): Scores {
  return scoreAnswer({
    prediction: answer.prediction,
    gold: answer.gold,
    category: benchmarkCategory(profile, answer.category),
    evidence: answer.evidence ?? [],
    retrieved: answer.retrieved ?? [],
    ...(answer.evidenceRaw ? { evidenceRaw: answer.evidenceRaw } : {}),
    ...(answer.context ? { context: answer.context } : {}),
    ...(answer.topK !== undefined ? { topK: answer.topK } : {}),
    ...(answer.retrievalCorpus ? { retrievalCorpus: answer.retrievalCorpus } : {}),
    errored: answer.errored ?? false,
  });
}

/** The per-answer judge verdict from its labels (1 CORRECT, 0 WRONG). */
export function judgeScoreOf(labels: readonly number[]): JudgeScore {
  if (labels.length === 0) return { mean: null, std: null, labels: [], error: null };
  let sum = 0;
  for (const l of labels) sum += l;
  return { mean: sum / labels.length, std: stdDev(labels), labels: [...labels], error: null };
}

type Scored = Pick<AnswerRecord, 'category' | 'scores' | 'error'> & AggregateInput;

function presentMean(values: ReadonlyArray<number | null | undefined>): MeanN {
  const present: number[] = [];
  for (const v of values) if (v !== null && v !== undefined) present.push(v);
  return meanN(present);
}

function scorePair(
  answers: readonly Scored[],
  metrics: readonly MetricDefinition[] = metricsOf(LOCOMO_PROFILE),
): ScorePair {
  const pair: Record<MetricId, MetricMean> = {};
  for (const metric of metrics) {
    pair[metric.id] = metric.aggregate
      ? metric.aggregate(answers)
      : presentMean(answers.map((a) => a.scores[metric.id]));
  }
  return pair as ScorePair;
}

/**
 * Each task's mean (LongMemEval `print_qa_metrics.py`'s per-type rows): a category counts for the
 * task its `task` names, else is its own, so a type's abstention questions count in their type.
 */
function taskPairs(
  answers: readonly Scored[],
  profile: BenchmarkProfile,
  metrics: readonly MetricDefinition[],
): Record<CategoryId, ScorePair> {
  const taskOf = new Map(profile.categories.map((c) => [c.id, c.task ?? c.id]));
  const byTask = new Map<number, Scored[]>();
  for (const c of profile.categories) if (c.task === undefined) byTask.set(c.id, []);
  for (const a of answers) {
    const task = taskOf.get(a.category) ?? a.category;
    const list = byTask.get(task);
    if (list) list.push(a);
    else byTask.set(task, [a]);
  }
  const out: Record<CategoryId, ScorePair> = {};
  for (const [task, list] of byTask) out[task] = scorePair(list, metrics);
  return out;
}

/**
 * The mean over tasks of each task's mean ("Task-averaged Accuracy"); tasks where a metric scored
 * nothing are left out of that metric's mean. n counts the answers scored.
 */
function taskAveragedPair(
  tasks: Readonly<Record<CategoryId, ScorePair>>,
  metrics: readonly MetricDefinition[],
): ScorePair {
  const pairs = Object.values(tasks);
  const out: Record<MetricId, MetricMean> = {};
  for (const metric of metrics) {
    const means: number[] = [];
    let n = 0;
    let repeats = 0;
    for (const pair of pairs) {
      const m = pair[metric.id];
      if (!m || m.mean === null || m.n === 0) continue;
      means.push(m.mean);
      n += m.n;
      repeats = Math.max(repeats, m.repeats ?? 0);
    }
    const mean = means.length === 0 ? null : means.reduce((x, y) => x + y, 0) / means.length;
    // A mean of means has no per-repeat spread of its own.
    out[metric.id] = metric.aggregate ? { mean, n, std: null, repeats } : { mean, n };
  }
  return out as ScorePair;
}

/**
 * Per-category and overall means over a set of answers. Pass final answers for a run's headline;
 * per-test answers must not be pooled into it (DESIGN §3).
 */
export function summarizeAnswers(
  answers: readonly Scored[],
  profile: BenchmarkProfile = LOCOMO_PROFILE,
): RunSummary {
  const metrics = metricsOf(profile);
  const byCategory: Record<CategoryId, ScorePair> = {};
  for (const c of profile.categories) {
    byCategory[c.id] = scorePair(
      answers.filter((a) => a.category === c.id),
      metrics,
    );
  }
  const adversarial = new Set(profile.categories.filter((c) => c.adversarial).map((c) => c.id));
  const byTask = profile.taskAveraged === true ? taskPairs(answers, profile, metrics) : null;
  return {
    byCategory,
    ...(byTask ? { byTask } : {}),
    overall: {
      all: scorePair(answers, metrics),
      [answerableKeyOf(profile)]: scorePair(
        answers.filter((a) => !adversarial.has(a.category)),
        metrics,
      ),
      ...(byTask ? { taskAveraged: taskAveragedPair(byTask, metrics) } : {}),
      ...(profile.abstentionAccuracy === true
        ? {
            abstention: scorePair(
              answers.filter((a) => adversarial.has(a.category)),
              metrics,
            ),
          }
        : {}),
    },
    questions: answers.length,
    errors: answers.filter((a) => a.error !== null).length,
  };
}

/**
 * The mean over the non-adversarial categories, whatever the profile calls it (LoCoMo's stored
 * `categories1to4`, else `answerable`).
 */
export function answerableOf<P = ScorePair>(summary: {
  overall: { categories1to4?: P; answerable?: P };
}): P {
  const pair = summary.overall.categories1to4 ?? summary.overall.answerable;
  if (!pair) throw new WorkbenchError('INTERNAL', 'run summary: no answerable overall');
  return pair;
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
export function curveOf(
  tests: readonly Omit<TestRecord, 'questionIndices'>[],
  profile: BenchmarkProfile = LOCOMO_PROFILE,
): CurvePoint[] {
  const metrics = metricsOf(profile);
  return tests
    .map((t) => {
      const s = scorePair(t.answers, metrics);
      const means: Record<MetricId, number | null> = {};
      for (const id of Object.keys(s)) means[id] = s[id]?.mean ?? null;
      return {
        sampleId: t.sampleId,
        testIndex: t.testIndex,
        dialogsInserted: t.dialogsInserted,
        visibleCount: t.visibleCount,
        means,
      };
    })
    .sort(
      (x, y) =>
        (x.sampleId < y.sampleId ? -1 : x.sampleId > y.sampleId ? 1 : 0) ||
        x.testIndex - y.testIndex,
    );
}

/**
 * How a run that ran its course ends, from its final answers: `failed` when every one is an error
 * (e.g. a wrong API key), `degraded` when more than `maxErrorShare` are, else `completed`.
 */
export function finishedStatus(
  summary: Pick<RunSummary, 'questions' | 'errors'>,
  maxErrorShare: number,
): { status: 'completed' | 'degraded' | 'failed'; message: string | null } {
  const { questions, errors } = summary;
  if (questions === 0 || errors === 0) return { status: 'completed', message: null };
  const percent = (share: number): string => `${Math.round(share * 1000) / 10}%`;
  if (errors === questions) {
    return {
      status: 'failed',
      message: `every final answer is an error (${errors} of ${questions})`,
    };
  }
  if (errors / questions > maxErrorShare) {
    return {
      status: 'degraded',
      message: `${errors} of ${questions} final answers are errors (${percent(errors / questions)}, more than maxErrorShare ${percent(maxErrorShare)})`,
    };
  }
  return { status: 'completed', message: null };
}

/** Remaining time from the share of work done; null before anything is done. */
export function estimateRemainingMs(elapsedMs: number, done: number, total: number): number | null {
  if (done <= 0 || total <= 0 || elapsedMs <= 0) return null;
  if (done >= total) return 0;
  return Math.round((elapsedMs / done) * (total - done));
}
