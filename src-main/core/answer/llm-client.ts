import { z } from 'zod';
import { WorkbenchError } from '../../../src-shared/errors';
import type { LlmPrices, TokenCounts } from '../../../src-shared/experiment';
import { wireShapeOf, type LlmCallDelta, type TokenTotals } from '../../../src-shared/runs';
import { assertKeyTransport, type ApiKeys } from '../keys';
import {
  DEFAULT_MAX_DELAY_MS,
  DEFAULT_MAX_RETRY_AFTER_MS,
  Semaphore,
  describeReply,
  postJson,
  redact,
  withRetries,
  type Attempt,
} from '../http/retry';
import { CallBudget, type CallGate } from '../http/callBudget';
import { costOf } from '../http/pricing';
import { chatUrlOf, type CacheKey, type ResponseCache } from './responseCache';

/**
 * A client for any OpenAI-compatible `POST {baseUrl}/chat/completions` (OpenAI, vLLM, Ollama,
 * LM Studio, llama.cpp server). Retries 429 (honouring Retry-After), 5xx, timeouts and network
 * errors with exponential backoff and jitter; validates the response (a non-empty
 * `choices[0].message.content`); records latency and token usage per call and in total.
 *
 * The API key is never part of the config: `apiKeyEnv` names it, and the caller hands the client
 * an explicit map of vetted keys (`ApiKeys`, see core/keys.ts); the client never reads the process
 * environment. A key goes only to https or loopback URLs and never into an error message (it is
 * scrubbed).
 */

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface LlmClientConfig {
  baseUrl: string;
  model: string;
  temperature: number;
  maxTokens: number;
  apiKeyEnv?: string | undefined;
  timeoutMs: number;
  maxRetries: number;
  concurrency: number;
  baseDelayMs: number;
  maxDelayMs?: number;
  maxRetryAfterMs?: number;
  /** Reply bodies over this many bytes fail with LLM_REPLY_TOO_LARGE (default 4 MiB). */
  maxReplyBytes?: number | undefined;
  prices?: LlmPrices | undefined;
  /**
   * False when the endpoint came from the network (core/trust.ts isLocalUser): errors never quote
   * its replies (http/retry.ts PostJsonOptions.quoteReplies). Absent: they may.
   */
  quoteReplies?: boolean | undefined;
  /** Told before each retry's wait: how long, and the failure it retries (a rescore says it). */
  onRetry?: ((delayMs: number, error: WorkbenchError) => void) | undefined;
  /** The endpoint's rate limits, kept by a budget of the client's own outside a run's. */
  requestsPerMinute?: number | undefined;
  tokensPerMinute?: number | undefined;
}

export interface ChatCallOptions {
  signal?: AbortSignal;
  /** Sent as `seed` (OpenAI, vLLM and Ollama use it for reproducible sampling). */
  seed?: number;
  /** Sent as `response_format` (a judge protocol that asks for JSON mode). */
  responseFormat?: { type: 'json_object' };
  /** Overrides the endpoint's `maxTokens` (a judge protocol that fixes it, LongMemEval's 10). */
  maxTokens?: number;
  /** Sends no `max_tokens` (BEAM's judge: langchain's ChatOpenAI sends none by default). */
  omitMaxTokens?: boolean;
  /** Sent as `n` (a reference that sends `n: 1`, LoCoMo's and LongMemEval's). */
  n?: number;
  /** The protocol step the request serves (`answer`, `notes`, `judge`), filed with its shape. */
  step?: string;
}

/** The step a request is filed under when its caller names none (a memory LLM's requests). */
export const DEFAULT_WIRE_STEP = 'chat';

/** A delta that adds no request: a cache hit or miss, or a shape, filed on its own. */
export const NO_CALLS: LlmCallDelta = {
  calls: 0,
  failures: 0,
  promptTokens: 0,
  completionTokens: 0,
};

export interface ChatCompletion {
  content: string;
  /** The model the server says answered (falls back to the configured one). */
  model: string;
  usage: TokenCounts | null;
  /** Wall time of the whole call, retries and waits included. */
  latencyMs: number;
  attempts: number;
  /**
   * The server's `finish_reason` ("length": cut off at max_tokens); null when it sent none or the
   * reply came from the response cache, which does not keep it.
   */
  finishReason?: string | null;
}

export interface LlmClientStats {
  calls: number;
  failures: number;
  retries: number;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
}

const responseSchema = z.object({
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z
            .string({ error: 'must be a string' })
            .refine((t) => t.trim() !== '', 'is empty'),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1, 'is empty'),
  usage: z
    .object({
      prompt_tokens: z.number().int().nonnegative().optional(),
      completion_tokens: z.number().int().nonnegative().optional(),
    })
    .nullish(),
});

/**
 * Told about every HTTP request a client sends: `calls: 1` as it goes out, then `failures: 1` or
 * its tokens when it ends. A run's ledger adds these up, so retries, failed attempts and a request
 * cut off by a killed process are all counted.
 */
export type CallMeter = (delta: LlmCallDelta) => void;

const SENT: LlmCallDelta = { calls: 1, failures: 0, promptTokens: 0, completionTokens: 0 };

/** What an ended request adds to the ledger; null when nothing (a success without usage). */
export function endedDelta(
  ok: boolean,
  usage: { promptTokens: number; completionTokens: number } | null | undefined,
): LlmCallDelta | null {
  if (!ok) return { calls: 0, failures: 1, promptTokens: 0, completionTokens: 0 };
  if (!usage || (usage.promptTokens === 0 && usage.completionTokens === 0)) return null;
  return { calls: 0, failures: 0, ...usage };
}

/**
 * A request's tokens before it is sent, for a tokens-per-minute budget: about four characters a
 * token over the messages, plus the answer allowance. The reply's reported usage replaces it.
 */
export function estimatedTokens(messages: readonly ChatMessage[], maxTokens: number): number {
  return tokensOfChars(promptChars(messages)) + maxTokens;
}

/** The characters of a request's messages, what `tokensOfChars` counts. */
export function promptChars(messages: readonly ChatMessage[]): number {
  return messages.reduce((sum, m) => sum + m.content.length, 0);
}

/** Prompt tokens before a tokenizer has seen them: about four characters a token. */
export function tokensOfChars(chars: number): number {
  return Math.ceil(chars / 4);
}

/**
 * A client outside a run's shared budget (a judge pass, a rescore, the Models view's test call)
 * still keeps its endpoint's requests- and tokens-per-minute caps: a budget of its own.
 */
function ownRateBudget(config: LlmClientConfig): CallBudget | undefined {
  const { requestsPerMinute, tokensPerMinute } = config;
  if (requestsPerMinute === undefined && tokensPerMinute === undefined) return undefined;
  return new CallBudget(
    config.concurrency,
    new Map([[config.baseUrl, { requestsPerMinute, tokensPerMinute }]]),
  );
}

export class LlmClient {
  readonly model: string;
  readonly url: string;
  readonly stats: LlmClientStats = {
    calls: 0,
    failures: 0,
    retries: 0,
    promptTokens: 0,
    completionTokens: 0,
    latencyMs: 0,
  };
  private readonly config: LlmClientConfig;
  private readonly gate: Semaphore;
  private readonly label: string;
  private readonly budget: CallGate | undefined;
  private readonly shapesFiled = new Set<string>();

  constructor(
    config: LlmClientConfig,
    /** Keys by variable name; only `config.apiKeyEnv`'s entry is used. */
    private readonly keys: ApiKeys = {},
    private readonly random: () => number = Math.random,
    private readonly meter?: CallMeter,
    /**
     * A run's shared request budget: when given it replaces this client's own concurrency gate,
     * and it gates each HTTP attempt (a retry waiting out its backoff holds no slot).
     */
    budget?: CallGate,
    /** Identical requests are answered from it (and, in mode `only`, only from it). */
    private readonly cache?: ResponseCache,
  ) {
    this.config = config;
    this.model = config.model;
    this.url = chatUrlOf(config.baseUrl);
    this.label = `LlmClient: POST ${this.url}`;
    this.gate = new Semaphore(config.concurrency);
    this.budget = budget ?? ownRateBudget(config);
  }

  /** Token totals so far, with their cost at the configured prices. */
  totals(): TokenTotals {
    const { calls, promptTokens, completionTokens } = this.stats;
    const usage = { promptTokens, completionTokens };
    return { calls, ...usage, cost: costOf(usage, this.config.prices) };
  }

  costOf(usage: TokenCounts): number | null {
    return costOf(usage, this.config.prices);
  }

  async complete(
    messages: readonly ChatMessage[],
    options: ChatCallOptions = {},
  ): Promise<ChatCompletion> {
    // Serialised once: the cache's key and the bytes sent are the same string.
    const body = this.requestBody(messages, options);
    const json = JSON.stringify(body);
    this.fileShape(options.step ?? DEFAULT_WIRE_STEP, body);
    const cacheKey = this.cache ? this.cache.keyOf(this.url, json) : null;
    if (this.cache && cacheKey) {
      const shared = this.cache.underWay(cacheKey);
      if (shared) {
        this.meter?.({ ...NO_CALLS, cacheHits: 1 });
        return { ...(await shared), latencyMs: 0, attempts: 0 };
      }
      const hit = this.cache.get(cacheKey);
      // Filed as they happen, like the calls: a killed launch's hits stay counted.
      this.meter?.({ ...NO_CALLS, ...(hit ? { cacheHits: 1 } : { cacheMisses: 1 }) });
      if (hit) return { ...hit, latencyMs: 0, attempts: 0 };
      if (this.cache.mode === 'only') {
        this.stats.failures++;
        throw new WorkbenchError(
          'NOT_FOUND',
          `${this.label}: no cached reply to this request in ${this.cache.file} (cache-only replays only requests an earlier run made)`,
          { where: this.cache.file },
        );
      }
      const reply = this.ask(messages, json, options, cacheKey);
      this.cache.asked(cacheKey, reply);
      return reply;
    }
    return this.ask(messages, json, options, null);
  }

  /** The request sent (retried, gated, metered), and its reply stored when the cache is on. */
  private async ask(
    messages: readonly ChatMessage[],
    json: string,
    options: ChatCallOptions,
    cacheKey: CacheKey | null,
  ): Promise<ChatCompletion> {
    const { signal } = options;
    const key = this.apiKey();
    const started = performance.now();
    const policy = {
      maxRetries: this.config.maxRetries,
      baseDelayMs: this.config.baseDelayMs,
      maxDelayMs: this.config.maxDelayMs ?? DEFAULT_MAX_DELAY_MS,
      maxRetryAfterMs: this.config.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS,
    };
    try {
      const budget = this.budget;
      const estimate = estimatedTokens(messages, options.maxTokens ?? this.config.maxTokens);
      const attempt = budget
        ? () =>
            budget.run(
              this.config.baseUrl,
              () => this.attempt(json, options, key),
              signal,
              (result) => {
                const usage = result.ok ? result.value.usage : null;
                const used = usage ? { tokens: usage.promptTokens + usage.completionTokens } : {};
                return !result.ok && result.throttled === true
                  ? {
                      throttled: true,
                      ...(result.retryAfterMs !== undefined
                        ? { retryAfterMs: result.retryAfterMs }
                        : {}),
                      ...used,
                    }
                  : { throttled: false, ...used };
              },
              estimate,
            )
        : () => this.attempt(json, options, key);
      const retried = (): ReturnType<
        typeof withRetries<Omit<ChatCompletion, 'latencyMs' | 'attempts'>>
      > =>
        withRetries(attempt, policy, {
          where: this.config.baseUrl,
          random: this.random,
          ...(signal ? { signal } : {}),
          onRetry: (delayMs, error) => {
            this.stats.retries++;
            this.config.onRetry?.(delayMs, error);
          },
        });
      const { value, attempts } = budget
        ? await retried()
        : await this.gate.run(retried, signal, this.label);
      const latencyMs = Math.round((performance.now() - started) * 100) / 100;
      this.stats.calls++;
      this.stats.latencyMs += latencyMs;
      if (value.usage) {
        this.stats.promptTokens += value.usage.promptTokens;
        this.stats.completionTokens += value.usage.completionTokens;
      }
      if (this.cache && cacheKey) this.cache.put(cacheKey, this.config.model, value);
      return { ...value, latencyMs, attempts };
    } catch (error) {
      this.stats.failures++;
      throw error;
    }
  }

  private apiKey(): string | undefined {
    const name = this.config.apiKeyEnv;
    if (name === undefined) return undefined;
    const key = Object.hasOwn(this.keys, name) ? this.keys[name] : undefined;
    if (!key) {
      throw new WorkbenchError(
        'INVALID_INPUT',
        `LlmClient: environment variable ${name} (apiKeyEnv) is not set`,
        { path: ['apiKeyEnv'] },
      );
    }
    assertKeyTransport(this.config.baseUrl, name, 'LlmClient');
    return key;
  }

  /** One HTTP request, metered: counted when sent, its failure or tokens when it ends. */
  private async attempt(
    json: string,
    options: ChatCallOptions,
    key: string | undefined,
  ): Promise<Attempt<Omit<ChatCompletion, 'latencyMs' | 'attempts'>>> {
    if (!this.meter) return this.send(json, options, key);
    this.meter(SENT);
    let result: Attempt<Omit<ChatCompletion, 'latencyMs' | 'attempts'>> | undefined;
    try {
      result = await this.send(json, options, key);
      return result;
    } finally {
      // No result: the request was cancelled under way, which is a failed call too.
      const ended = endedDelta(result?.ok === true, result?.ok ? result.value.usage : null);
      if (ended) this.meter(ended);
    }
  }

  /**
   * Files the request's shape (its body but the messages) in the ledger the first time this client
   * builds it, so the manifest records the parameters sent, not the config's. A cache hit files it
   * too: its reply is the reply to these very bytes.
   */
  private fileShape(step: string, body: Record<string, unknown>): void {
    if (!this.meter) return;
    const shape = wireShapeOf(step, body);
    const key = JSON.stringify(shape);
    if (this.shapesFiled.has(key)) return;
    this.shapesFiled.add(key);
    this.meter({ ...NO_CALLS, shapes: [shape] });
  }

  /** The request body as sent (serialised once); the response cache is keyed on those bytes. */
  private requestBody(
    messages: readonly ChatMessage[],
    options: ChatCallOptions,
  ): Record<string, unknown> {
    const { model, temperature, maxTokens } = this.config;
    const body: Record<string, unknown> = { model, messages, temperature };
    if (options.omitMaxTokens !== true) body['max_tokens'] = options.maxTokens ?? maxTokens;
    if (options.seed !== undefined) body['seed'] = options.seed;
    if (options.responseFormat !== undefined) body['response_format'] = options.responseFormat;
    if (options.n !== undefined) body['n'] = options.n;
    return body;
  }

  private async send(
    json: string,
    options: ChatCallOptions,
    key: string | undefined,
  ): Promise<Attempt<Omit<ChatCompletion, 'latencyMs' | 'attempts'>>> {
    const { model, timeoutMs, baseUrl } = this.config;
    const sent = await postJson(this.url, json, {
      headers: key ? { authorization: `Bearer ${key}` } : {},
      timeoutMs,
      label: this.label,
      where: baseUrl,
      secret: key,
      maxReplyBytes: this.config.maxReplyBytes,
      quoteReplies: this.config.quoteReplies,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (!sent.ok) return sent;
    const fail = (message: string): Attempt<never> => ({
      ok: false,
      retryable: false,
      error: new WorkbenchError('UPSTREAM', redact(`${this.label}: ${message}`, key), {
        where: baseUrl,
      }),
    });
    let reply: unknown;
    try {
      reply = JSON.parse(sent.value.text);
    } catch {
      const { text, contentType } = sent.value;
      return fail(
        `response is not JSON: ${describeReply(text, contentType, this.config.quoteReplies !== false)}`,
      );
    }
    const parsed = responseSchema.safeParse(reply);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return fail(
        `unexpected response shape at ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`,
      );
    }
    const { choices, usage } = parsed.data;
    const choice = choices[0] as (typeof choices)[number];
    const content = choice.message.content;
    return {
      ok: true,
      value: {
        content,
        finishReason: choice.finish_reason ?? null,
        model: parsed.data.model ?? model,
        usage:
          usage && (usage.prompt_tokens !== undefined || usage.completion_tokens !== undefined)
            ? {
                promptTokens: usage.prompt_tokens ?? 0,
                completionTokens: usage.completion_tokens ?? 0,
              }
            : null,
      },
    };
  }
}
