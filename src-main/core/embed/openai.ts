import { z } from 'zod';
import { openAIEmbedderEndpointShape } from '../../../src-shared/embedders';
import { WorkbenchError, parseOrThrow } from '../../../src-shared/errors';
import { apiKeyFor } from '../answer/llm-client';
import type { Embedder } from './types';
import { normalizeInPlace } from './vectorMath';

/**
 * An embedder for any OpenAI-compatible `POST {baseUrl}/embeddings` endpoint: OpenAI, vLLM,
 * Ollama, LM Studio. `baseUrl` includes the version segment, as in the OpenAI SDKs
 * (`https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`).
 *
 * The API key never enters the config: `apiKeyEnv` names an environment variable that is read at
 * each request, and the key is scrubbed from every error message (some servers echo it back).
 *
 * `dim` is known from `dimensions` in the config, or after the first successful call. Reading it
 * before either throws; `await embedder.resolveDim()` (or `createOpenAIEmbedder`) makes one small
 * call to learn it. Vectors are L2-normalised here, since not every server does it.
 */

export const openAIEmbedderConfigSchema = z
  .object({
    ...openAIEmbedderEndpointShape,
    batchSize: z.number().int().min(1).max(2048).default(64),
    timeoutMs: z.number().int().positive().default(30_000),
    maxRetries: z.number().int().min(0).max(20).default(4),
    concurrency: z.number().int().min(1).max(64).default(2),
    /** Backoff: min(maxDelayMs, baseDelayMs * 2^attempt), times a jitter factor in [0.5, 1). */
    baseDelayMs: z.number().nonnegative().default(500),
    maxDelayMs: z.number().nonnegative().default(20_000),
    /** A 429 asking to wait longer than this fails instead of stalling the run. */
    maxRetryAfterMs: z.number().nonnegative().default(60_000),
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

type Attempt =
  | { ok: true; vectors: Float32Array[] }
  | { ok: false; error: WorkbenchError; retryable: boolean; retryAfterMs?: number };

const EXCERPT_CHARS = 200;

export class OpenAIEmbedder implements Embedder {
  readonly name: string;
  readonly stats: OpenAIEmbedderStats = { requests: 0, retries: 0, promptTokens: 0 };
  private readonly config: ResolvedConfig;
  private readonly url: string;
  private knownDim: number | null;

  constructor(config: OpenAIEmbedderConfig) {
    this.config = parseOrThrow(openAIEmbedderConfigSchema, config, 'OpenAIEmbedder config');
    const { apiKeyEnv, model, dimensions } = this.config;
    // Fail at construction, not at the first batch of a run.
    apiKeyFor(apiKeyEnv, 'OpenAIEmbedder');
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
    for (let attempt = 0; ; attempt++) {
      const result = await this.attempt(texts, signal);
      if (result.ok) return result.vectors;
      if (!result.retryable || attempt >= maxRetries) {
        if (result.retryable && attempt > 0) {
          throw new WorkbenchError(
            result.error.code,
            `${result.error.message} (after ${attempt + 1} attempts)`,
            {
              where: this.config.baseUrl,
              cause: result.error,
            },
          );
        }
        throw result.error;
      }
      let delay = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt) * (0.5 + Math.random() * 0.5);
      if (result.retryAfterMs !== undefined) {
        if (result.retryAfterMs > maxRetryAfterMs) {
          throw new WorkbenchError(
            'UPSTREAM',
            `${result.error.message} (server asked to retry after ${Math.round(result.retryAfterMs / 1000)} s, more than maxRetryAfterMs)`,
            { where: this.config.baseUrl },
          );
        }
        delay = result.retryAfterMs;
      }
      this.stats.retries++;
      await sleep(delay, signal);
    }
  }

  private async attempt(texts: string[], signal: AbortSignal): Promise<Attempt> {
    const { model, dimensions, timeoutMs, apiKeyEnv } = this.config;
    const key = apiKeyFor(apiKeyEnv, 'OpenAIEmbedder');
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (key) headers['authorization'] = `Bearer ${key}`;
    const body = JSON.stringify(
      dimensions === undefined ? { model, input: texts } : { model, input: texts, dimensions },
    );
    const where = this.config.baseUrl;
    const label = `OpenAIEmbedder: POST ${this.url}`;

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = (): void => controller.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) controller.abort();
    let status: number;
    let text: string;
    let retryAfter: string | null;
    this.stats.requests++;
    try {
      // The body is read under the same timer: a server that sends headers and then stalls is
      // as stuck as one that never answers.
      const response = await fetch(this.url, {
        method: 'POST',
        headers,
        body,
        signal: controller.signal,
      });
      status = response.status;
      retryAfter = response.headers.get('retry-after');
      text = await response.text();
    } catch (error) {
      if (signal.aborted) throw cancelled();
      if (timedOut) {
        return {
          ok: false,
          retryable: true,
          error: new WorkbenchError('TIMEOUT', `${label} timed out after ${timeoutMs} ms`, {
            where,
          }),
        };
      }
      return {
        ok: false,
        retryable: true,
        error: new WorkbenchError(
          'UPSTREAM',
          redact(`${label} failed: ${networkReason(error)}`, key),
          {
            where,
          },
        ),
      };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }

    if (status < 200 || status >= 300) {
      const retryable = status === 429 || status >= 500;
      const error = new WorkbenchError(
        'UPSTREAM',
        redact(`${label} -> HTTP ${status}: ${excerpt(text)}`, key),
        {
          where,
        },
      );
      const retryAfterMs = status === 429 ? parseRetryAfter(retryAfter) : undefined;
      return retryAfterMs === undefined
        ? { ok: false, retryable, error }
        : { ok: false, retryable, error, retryAfterMs };
    }

    const fail = (message: string): Attempt => ({
      ok: false,
      retryable: false,
      error: new WorkbenchError('UPSTREAM', redact(`${label}: ${message}`, key), { where }),
    });
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return fail(`response is not JSON: ${excerpt(text)}`);
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
    this.stats.promptTokens += usage?.prompt_tokens ?? 0;
    return { ok: true, vectors };
  }
}

/** Builds an embedder and learns its dimension (one small call unless `dimensions` is set). */
export async function createOpenAIEmbedder(
  config: OpenAIEmbedderConfig,
  options: EmbedCallOptions = {},
): Promise<OpenAIEmbedder> {
  const embedder = new OpenAIEmbedder(config);
  await embedder.resolveDim(options);
  return embedder;
}

function cancelled(): WorkbenchError {
  return new WorkbenchError('CANCELLED', 'OpenAIEmbedder: cancelled');
}

/** An OpenAI-style `{"error":{"message"}}` says it best; otherwise the start of the body. */
function excerpt(text: string): string {
  let message = text;
  try {
    const json = JSON.parse(text) as { error?: { message?: unknown } | string };
    if (typeof json.error === 'string') message = json.error;
    else if (typeof json.error?.message === 'string') message = json.error.message;
  } catch {
    // Not JSON: the raw text it is.
  }
  const flat = message.replace(/\s+/g, ' ').trim();
  if (flat === '') return '(empty body)';
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}...` : flat;
}

function redact(message: string, key: string | undefined): string {
  return key && key.length >= 4 ? message.split(key).join('[redacted]') : message;
}

/** undici reports "fetch failed" with the useful part in `cause`. */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const parts: string[] = [];
  if (typeof cause?.code === 'string') parts.push(cause.code);
  if (typeof cause?.message === 'string') parts.push(cause.message);
  if (parts.length === 0) parts.push(error instanceof Error ? error.message : String(error));
  return parts.join(' ');
}

/** Retry-After is seconds or an HTTP date. Fractional seconds are accepted (some proxies send them). */
function parseRetryAfter(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(cancelled());
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(cancelled());
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
