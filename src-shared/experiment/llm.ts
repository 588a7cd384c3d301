import { z } from 'zod';

/**
 * An OpenAI-compatible endpoint as a config names it (answerer, judge, a memory service's own
 * LLM): the shared shape, its defaults and bounds, and the deadline every config shares.
 */

/**
 * The longest deadline a config may set: Node's timers hold a signed 32-bit millisecond count, and
 * a longer one overflows to 1 ms (with a warning), so `answerMs: 3e9` would time every call out.
 */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;
/** Every deadline in a config (milliseconds, whole, at least 1, at most MAX_TIMEOUT_MS). */
export const timeoutMsSchema = z.number().int().positive().max(MAX_TIMEOUT_MS);

/** An environment variable's name: where an API key is read from at call time. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const DEFAULT_LLM_TIMEOUT_MS = 60_000;
export const DEFAULT_LLM_MAX_RETRIES = 4;
export const DEFAULT_LLM_CONCURRENCY = 4;
export const DEFAULT_LLM_BASE_DELAY_MS = 500;
/**
 * Largest reply body an LLM client reads off the socket. A chat completion or an embeddings batch
 * is a few KB to a few hundred KB; a bigger body is a broken or hostile server, and buffering it
 * whole let one run take 2.7 GB. Over the cap the request is aborted: LLM_REPLY_TOO_LARGE.
 */
export const DEFAULT_LLM_MAX_REPLY_BYTES = 4 * 1024 * 1024;

/** A reply body cap an endpoint's config may set, LLM or embeddings (1 KiB to 256 MiB). */
export const maxReplyBytesSchema = z
  .number()
  .int()
  .min(1024)
  .max(256 * 1024 * 1024)
  .default(DEFAULT_LLM_MAX_REPLY_BYTES);

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
export function llmEndpointShape(defaultMaxTokens: number) {
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
    maxReplyBytes: maxReplyBytesSchema,
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

/** Facts or a summary of a few turns: a few short lines. */
export const DEFAULT_MEMORY_LLM_MAX_TOKENS = 300;
/**
 * The LLM a memory service may use for its own stages (memoryos long-term facts, tiers summaries).
 * Presets without such a stage ignore it; with none configured those stages are off and the run's
 * manifest says so.
 */
export const MemoryLlmConfigSchema = z
  .object(llmEndpointShape(DEFAULT_MEMORY_LLM_MAX_TOKENS))
  .strict();
export type MemoryLlmConfig = z.output<typeof MemoryLlmConfigSchema>;
