import { z } from 'zod';
import { PROTOCOL_MODES } from '../dataset/packets';
import { AnswererConfigSchema, withCurrentAnswererNames } from './answerer';
import { JudgeConfigSchema } from './judge';
import { MemoryLlmConfigSchema, timeoutMsSchema } from './llm';

/**
 * A run's configuration (zod, with defaults): what a caller writes and what the engine runs. The
 * answerer, judge and LLM endpoint parts have their own modules beside this one.
 */

// R@10 0.801 on LoCoMo (0.803 on the held-out half) against hybrid's 0.735: docs/benchmarks.md.
export const DEFAULT_MEMORY_PRESET = 'hybrid-context';
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
 * Requests in flight per endpoint for a run whose answerer is an LLM and whose config sets no
 * `concurrency`: answering is waiting on the endpoint, so one request at a time would leave it idle
 * (11,519 LoCoMo answer calls at 1 s take 3.2 h one by one). A 429 halves it (http/callBudget.ts).
 */
export const DEFAULT_RUN_CONCURRENCY = 32;

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
    // A stored config's older field names read as today's (`category5Mapping`).
    answerer: z.preprocess(
      withCurrentAnswererNames,
      AnswererConfigSchema.prefault({ kind: 'extractive' }),
    ),
    /**
     * When set, every answer the judge scores under the run's benchmark (LoCoMo: categories 1-4)
     * is judged after the run (cached in the runs DB).
     */
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
