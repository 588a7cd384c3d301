import { z } from 'zod';
import { openAIEmbedderEndpointShape } from '../../../src-shared/embedders';
import { wireShapeOf } from '../../../src-shared/runs';
import { WorkbenchError, parseOrThrow } from '../../../src-shared/errors';
import { maxReplyBytesSchema, timeoutMsSchema } from '../../../src-shared/experiment';
import { endedDelta, type CallMeter } from '../answer/llm-client';
import {
  DEFAULT_MAX_RETRY_AFTER_MS,
  describeReply,
  postJson,
  redact,
  withRetries,
  type Attempt,
} from '../http/retry';
import { assertKeyTransport, type ApiKeys } from '../keys';
import type { Embedder } from './types';
import { normalizeInPlace } from './vectorMath';

/**
 * An embedder for any OpenAI-compatible `POST {baseUrl}/embeddings` endpoint: OpenAI, vLLM,
 * Ollama, LM Studio. `baseUrl` includes the version segment, as in the OpenAI SDKs
 * (`https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`).
 *
 * The API key never enters the config: `apiKeyEnv` names it, the caller passes the vetted keys
 * explicitly (`ApiKeys`, core/keys.ts; the process environment is never read here), a key goes
 * only to https or loopback URLs, and it is scrubbed from every error message (some servers echo
 * it back).
 *
 * `dim` is known from `dimensions` in the config, or after the first successful call. Reading it
 * before either throws; `await embedder.resolveDim()` (or `createOpenAIEmbedder`) makes one small
 * call to learn it. Vectors are L2-normalised here, since not every server does it.
 */

export const openAIEmbedderConfigSchema = z
  .object({
    ...openAIEmbedderEndpointShape,
    batchSize: z.number().int().min(1).max(2048).default(64),
    timeoutMs: timeoutMsSchema.default(30_000),
    maxRetries: z.number().int().min(0).max(20).default(4),
    concurrency: z.number().int().min(1).max(64).default(2),
    /** Backoff: min(maxDelayMs, baseDelayMs * 2^attempt), times a jitter factor in [0.5, 1). */
    baseDelayMs: z.number().nonnegative().default(500),
    maxDelayMs: z.number().nonnegative().default(20_000),
    /** A 429 asking to wait longer than this fails instead of stalling the run. */
    maxRetryAfterMs: z.number().nonnegative().default(DEFAULT_MAX_RETRY_AFTER_MS),
    /** Reply bodies over this many bytes fail with LLM_REPLY_TOO_LARGE without being read whole. */
    maxReplyBytes: maxReplyBytesSchema,
  })
  // Strict, so a literal `apiKey` in a config file is refused instead of silently ignored.
  .strict();
export type OpenAIEmbedderConfig = z.input<typeof openAIEmbedderConfigSchema>;
type ResolvedConfig = z.output<typeof openAIEmbedderConfigSchema>;

const responseSchema = z.object({
  data: z.array(
    z.object({
      embedding: z.array(z.number()),
      index: z.number().int().nonnegative().optional(),
    }),
  ),
  usage: z.object({ prompt_tokens: z.number().optional() }).optional(),
});

export interface OpenAIEmbedderStats {
  requests: number;
  retries: number;
  promptTokens: number;
}

export interface EmbedCallOptions {
  /** Aborting rejects with CANCELLED and stops in-flight requests. */
  signal?: AbortSignal;
}

/** One request's vectors, and its token usage for the call ledger. */
type EmbedAttempt = Attempt<{
  vectors: Float32Array[];
  usage: { promptTokens: number; completionTokens: number };
}>;

export class OpenAIEmbedder implements Embedder {
  readonly name: string;
  readonly stats: OpenAIEmbedderStats = { requests: 0, retries: 0, promptTokens: 0 };
  private readonly config: ResolvedConfig;
  private readonly url: string;
  private knownDim: number | null;
  private readonly key: string | undefined;
  private shapeFiled = false;

  /**
   * `keys`: API keys by variable name; only `config.apiKeyEnv`'s entry is used. `meter` is told
   * about every request (see CallMeter), for a run's call ledger. `quoteReplies` false: errors
   * never quote the endpoint's replies (it came from the network, core/trust.ts isLocalUser).
   */
  constructor(
    config: OpenAIEmbedderConfig,
    keys: ApiKeys = {},
    private readonly meter?: CallMeter,
    private readonly quoteReplies = true,
  ) {
    this.config = parseOrThrow(openAIEmbedderConfigSchema, config, 'OpenAIEmbedder config');
    const { apiKeyEnv, model, dimensions } = this.config;
    // Fail at construction, not at the first batch of a run.
    if (apiKeyEnv !== undefined) {
      this.key = Object.hasOwn(keys, apiKeyEnv) ? keys[apiKeyEnv] || undefined : undefined;
      if (this.key === undefined) {
        throw new WorkbenchError(
          'INVALID_INPUT',
          `OpenAIEmbedder: environment variable ${apiKeyEnv} (apiKeyEnv) is not set`,
          { path: ['apiKeyEnv'] },
        );
      }
      assertKeyTransport(this.config.baseUrl, apiKeyEnv, 'OpenAIEmbedder');
    }
    this.url = `${this.config.baseUrl.replace(/\/+$/, '')}/embeddings`;
    this.name = dimensions === undefined ? `openai:${model}` : `openai:${model}:${dimensions}d`;
    this.knownDim = dimensions ?? null;
  }

  get dim(): number {
    if (this.knownDim === null) {
      throw new WorkbenchError(
        'INTERNAL',
        `OpenAIEmbedder: dim of ${this.config.model} is unknown until the first call; set "dimensions" or await resolveDim()`,
      );
    }
    return this.knownDim;
  }

  /** The vector size, asking the server once if neither the config nor a call has told us. */
  async resolveDim(options: EmbedCallOptions = {}): Promise<number> {
    if (this.knownDim === null) await this.embed(['dimension probe'], options);
    return this.dim;
  }

  async embed(texts: readonly string[], options: EmbedCallOptions = {}): Promise<Float32Array[]> {
    const out = new Array<Float32Array>(texts.length);
    const { batchSize, concurrency } = this.config;
    const batches: Array<{ start: number; texts: string[] }> = [];
    for (let start = 0; start < texts.length; start += batchSize) {
      batches.push({ start, texts: texts.slice(start, start + batchSize) });
    }
    if (batches.length === 0) return out;

    // One failed batch fails the call: stop the others rather than pay for work that is dropped.
    const group = new AbortController();
    const external = options.signal;
    const onExternalAbort = (): void => group.abort();
    external?.addEventListener('abort', onExternalAbort, { once: true });
    let firstError: unknown = null;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < batches.length && firstError === null && !group.signal.aborted) {
        const batch = batches[next++] as { start: number; texts: string[] };
        try {
          const vectors = await this.embedBatch(batch.texts, group.signal);
          for (let i = 0; i < vectors.length; i++)
            out[batch.start + i] = vectors[i] as Float32Array;
        } catch (error) {
          if (firstError === null) firstError = error;
          group.abort();
        }
      }
    };
    try {
      if (external?.aborted) throw cancelled();
      await Promise.all(Array.from({ length: Math.min(concurrency, batches.length) }, worker));
    } finally {
      external?.removeEventListener('abort', onExternalAbort);
    }
    if (external?.aborted) throw cancelled();
    if (firstError !== null) throw firstError;
    // Concurrent batches each checked their own dimensions; make sure they agree with each other.
    for (const v of out) {
      if (v.length !== this.knownDim) {
        throw new WorkbenchError(
          'UPSTREAM',
          `OpenAIEmbedder: POST ${this.url}: batches returned ${v.length}- and ${this.knownDim}-dimensional vectors`,
          { where: this.config.baseUrl },
        );
      }
    }
    return out;
  }

  private async embedBatch(texts: string[], signal: AbortSignal): Promise<Float32Array[]> {
    const { maxRetries, baseDelayMs, maxDelayMs, maxRetryAfterMs } = this.config;
    const { value } = await withRetries(
      () => this.attempt(texts, signal),
      { maxRetries, baseDelayMs, maxDelayMs, maxRetryAfterMs },
      { where: this.config.baseUrl, signal, onRetry: () => void this.stats.retries++ },
    );
    return value.vectors;
  }

  private async attempt(texts: string[], signal: AbortSignal): Promise<EmbedAttempt> {
    if (!this.meter) return this.send(texts, signal);
    // The request's shape (model, dimensions) is filed once, with the first request.
    const shape = this.shapeFiled ? {} : { shapes: [wireShapeOf('embed', this.body([]))] };
    this.shapeFiled = true;
    this.meter({ calls: 1, failures: 0, promptTokens: 0, completionTokens: 0, ...shape });
    let result: EmbedAttempt | undefined;
    try {
      result = await this.send(texts, signal);
      return result;
    } finally {
      const ended = endedDelta(result?.ok === true, result?.ok ? result.value.usage : null);
      if (ended) this.meter(ended);
    }
  }

  /** The request body: one owner for the bytes sent and the shape filed in the ledger. */
  private body(texts: string[]): Record<string, unknown> {
    const { model, dimensions } = this.config;
    return dimensions === undefined ? { model, input: texts } : { model, input: texts, dimensions };
  }

  private async send(texts: string[], signal: AbortSignal): Promise<EmbedAttempt> {
    const { timeoutMs, maxReplyBytes } = this.config;
    const key = this.key;
    const where = this.config.baseUrl;
    const label = `OpenAIEmbedder: POST ${this.url}`;
    this.stats.requests++;
    const sent = await postJson(this.url, JSON.stringify(this.body(texts)), {
      headers: key ? { authorization: `Bearer ${key}` } : {},
      timeoutMs,
      label,
      where,
      secret: key,
      signal,
      maxReplyBytes,
      quoteReplies: this.quoteReplies,
    });
    if (!sent.ok) return sent;
    const { text, contentType } = sent.value;

    const fail = (message: string): Attempt<never> => ({
      ok: false,
      retryable: false,
      error: new WorkbenchError('UPSTREAM', redact(`${label}: ${message}`, key), { where }),
    });
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return fail(`response is not JSON: ${describeReply(text, contentType, this.quoteReplies)}`);
    }
    const parsed = responseSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return fail(
        `unexpected response shape at ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`,
      );
    }
    const { data, usage } = parsed.data;
    if (data.length !== texts.length)
      return fail(`returned ${data.length} embeddings for ${texts.length} inputs`);

    const vectors = new Array<Float32Array>(texts.length);
    const withIndex = data.every((d) => d.index !== undefined);
    for (let i = 0; i < data.length; i++) {
      const item = data[i] as (typeof data)[number];
      const slot = withIndex ? (item.index as number) : i;
      if (slot >= texts.length || vectors[slot] !== undefined) {
        return fail(`embedding indexes are not a permutation of 0..${texts.length - 1}`);
      }
      const expected = this.knownDim ?? (data[0] as (typeof data)[number]).embedding.length;
      if (item.embedding.length !== expected || expected === 0) {
        return fail(
          `embedding ${slot} has ${item.embedding.length} dimensions, expected ${expected}`,
        );
      }
      const v = Float32Array.from(item.embedding);
      if (!normalizeInPlace(v)) return fail(`embedding ${slot} is zero or not finite`);
      vectors[slot] = v;
    }
    this.knownDim ??= (vectors[0] as Float32Array).length;
    const promptTokens = usage?.prompt_tokens ?? 0;
    this.stats.promptTokens += promptTokens;
    return { ok: true, value: { vectors, usage: { promptTokens, completionTokens: 0 } } };
  }
}

/** Builds an embedder and learns its dimension (one small call unless `dimensions` is set). */
export async function createOpenAIEmbedder(
  config: OpenAIEmbedderConfig,
  options: EmbedCallOptions = {},
  keys: ApiKeys = {},
): Promise<OpenAIEmbedder> {
  const embedder = new OpenAIEmbedder(config, keys);
  await embedder.resolveDim(options);
  return embedder;
}

function cancelled(): WorkbenchError {
  return new WorkbenchError('CANCELLED', 'OpenAIEmbedder: cancelled');
}
