import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { WorkbenchError } from '../../../src-shared/errors';
import { DEFAULT_LLM_MAX_REPLY_BYTES } from '../../../src-shared/experiment';
import { NOT_QUOTED } from '../trust';

/**
 * The HTTP plumbing OpenAI-compatible clients share: one JSON POST under a per-attempt timeout
 * that also covers reading the body, a retry loop with exponential backoff and jitter that honours
 * Retry-After, a concurrency gate, and the error hygiene (server messages excerpted, the API key
 * scrubbed from anything a server might echo back).
 *
 * The chat client (`answer/llm-client.ts`) and the embedder (`embed/openai.ts`) both send through
 * `postJson`, so both read reply bodies under the same byte cap.
 */

export interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A 429 asking to wait longer than this fails instead of stalling the run. */
  maxRetryAfterMs: number;
}

export const DEFAULT_MAX_DELAY_MS = 20_000;
/**
 * The longest wait a server may ask for (Retry-After), one owner for every wait it can ask: a
 * client's retry fails rather than wait longer (RetryPolicy.maxRetryAfterMs), and a run's request
 * budget pauses its endpoint no longer (http/callBudget.ts).
 */
export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

/** A wait as errors and a run's warnings say it: whole seconds, or milliseconds under one. */
export function spokenWait(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 1000)} s`;
}

export type Attempt<T> =
  | { ok: true; value: T }
  | {
      ok: false;
      error: WorkbenchError;
      retryable: boolean;
      retryAfterMs?: number;
      /** 429: the endpoint is throttling (a shared request budget slows down on it). */
      throttled?: boolean;
    };

export interface RetryOptions {
  /** Where errors point (the base URL). */
  where: string;
  signal?: AbortSignal;
  /** Jitter source; tests pin it. */
  random?: () => number;
  /** Called before each wait, e.g. to count retries. */
  onRetry?: (delayMs: number, error: WorkbenchError) => void;
}

/** Delay before retry number `attempt + 1`: exponential, capped, times a jitter in [0.5, 1). */
export function backoffDelay(
  attempt: number,
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>,
  random: () => number = Math.random,
): number {
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt) * (0.5 + random() * 0.5);
}

/** Runs `attempt` until it succeeds, fails for good, or the retries are spent. */
export async function withRetries<T>(
  attempt: (n: number) => Promise<Attempt<T>>,
  policy: RetryPolicy,
  options: RetryOptions,
): Promise<{ value: T; attempts: number }> {
  for (let n = 0; ; n++) {
    const result = await attempt(n);
    if (result.ok) return { value: result.value, attempts: n + 1 };
    if (!result.retryable || n >= policy.maxRetries) {
      if (result.retryable && n > 0) {
        throw new WorkbenchError(
          result.error.code,
          `${result.error.message} (after ${n + 1} attempts)`,
          { where: options.where, cause: result.error },
        );
      }
      throw result.error;
    }
    let delay = backoffDelay(n, policy, options.random);
    if (result.retryAfterMs !== undefined) {
      if (result.retryAfterMs > policy.maxRetryAfterMs) {
        throw new WorkbenchError(
          'UPSTREAM',
          `${result.error.message} (server asked to wait ${spokenWait(result.retryAfterMs)}, more than the cap of ${spokenWait(policy.maxRetryAfterMs)} (maxRetryAfterMs): not retried)`,
          { where: options.where },
        );
      }
      delay = result.retryAfterMs;
    }
    options.onRetry?.(delay, result.error);
    await sleep(delay, options.signal, result.error.message);
  }
}

export interface PostJsonOptions {
  headers: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Starts every message: `LlmClient: POST http://...`. */
  label: string;
  where: string;
  /** Scrubbed from every message (servers sometimes echo the Authorization header). */
  secret?: string | undefined;
  /** Reply bodies longer than this fail with LLM_REPLY_TOO_LARGE (default 4 MiB). */
  maxReplyBytes?: number | undefined;
  /**
   * False when the endpoint came from the network (core/trust.ts isLocalUser): errors then say a
   * reply's status, content type and length, never its text. Absent: an excerpt is quoted.
   */
  quoteReplies?: boolean | undefined;
}

export interface HttpText {
  status: number;
  text: string;
  contentType: string | null;
}

/**
 * A reply body in an error: an excerpt for the local user, else only its content type and length
 * (`quote` false, see PostJsonOptions.quoteReplies), as memory-service replies are treated.
 */
export function describeReply(text: string, contentType: string | null, quote: boolean): string {
  if (quote) return excerpt(text);
  const bytes = Buffer.byteLength(text, 'utf8');
  return `${bytes} bytes of ${contentType ?? 'no content type'} ${NOT_QUOTED}`;
}

/**
 * One POST of `json` (the body, already serialised: the response cache keys the same bytes).
 * Resolves to the 2xx body, or to a classified failure: 429 (with its Retry-After), 5xx, timeouts
 * and network errors are retryable; other statuses are not. Rejects only when `signal` aborts
 * (CANCELLED).
 */
export async function postJson(
  url: string,
  json: string,
  options: PostJsonOptions,
): Promise<Attempt<HttpText>> {
  const { label, where, secret, timeoutMs, signal } = options;
  const maxReplyBytes = options.maxReplyBytes ?? DEFAULT_LLM_MAX_REPLY_BYTES;
  if (signal?.aborted) throw cancelledError(label, signal);
  const outcome = await exchange(
    new URL(url),
    json,
    options.headers,
    timeoutMs,
    maxReplyBytes,
    signal,
  );
  if (outcome.kind === 'cancelled') throw cancelledError(label, signal);
  if (outcome.kind === 'timeout') {
    return {
      ok: false,
      retryable: true,
      error: new WorkbenchError('TIMEOUT', `${label} timed out after ${timeoutMs} ms`, { where }),
    };
  }
  if (outcome.kind === 'network') {
    return {
      ok: false,
      retryable: true,
      error: new WorkbenchError(
        'UPSTREAM',
        redact(`${label} failed: ${networkReason(outcome.error)}`, secret),
        { where, cause: outcome.error },
      ),
    };
  }
  const { status, text, retryAfter, contentType } = outcome;
  if (text === null) {
    return {
      ok: false,
      retryable: false,
      error: new WorkbenchError(
        'LLM_REPLY_TOO_LARGE',
        `${label} -> HTTP ${status}: reply body is larger than the ${maxReplyBytes}-byte cap (maxReplyBytes); stopped reading`,
        { where },
      ),
    };
  }
  if (status >= 200 && status < 300) return { ok: true, value: { status, text, contentType } };
  const said = describeReply(text, contentType, options.quoteReplies !== false);
  const error = new WorkbenchError(
    'UPSTREAM',
    redact(`${label} -> HTTP ${status}: ${said}`, secret),
    { where },
  );
  const retryable = status === 429 || status >= 500;
  const retryAfterMs = status === 429 ? parseRetryAfter(retryAfter) : undefined;
  const throttled = status === 429;
  return retryAfterMs === undefined
    ? { ok: false, retryable, error, throttled }
    : { ok: false, retryable, error, retryAfterMs, throttled };
}

/** How one request ended; `text` is null when the body passed the cap (the rest was not read). */
type Exchange =
  | {
      kind: 'reply';
      status: number;
      retryAfter: string | null;
      contentType: string | null;
      text: string | null;
    }
  | { kind: 'timeout' }
  | { kind: 'cancelled' }
  | { kind: 'network'; error: Error };

/**
 * Idle connections kept for the next request, one pool per protocol for the whole thread: at 0.1 s
 * a call, a new connection (or fetch's web streams) per request was a tenth of a run's CPU. How many
 * are in flight is the callers' gates' business (a client's concurrency, a run's budget), so the
 * pool has no cap of its own. An idle socket is closed after 4 s, before the 5 s keep-alive most
 * servers (Node, uvicorn) allow, so a request is rarely written to a socket the server is closing.
 */
const IDLE_SOCKET_MS = 4_000;
let pools: { http: HttpAgent; https: HttpsAgent } | undefined;
function poolFor(protocol: string): HttpAgent {
  pools ??= {
    http: new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
    https: new HttpsAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
  };
  return protocol === 'https:' ? pools.https : pools.http;
}

/** A decoder for a body the server compressed although it was not asked to (fetch decoded it too). */
function decoderFor(encoding: string | undefined): Transform | null {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      return null;
  }
}

/**
 * The request and its reply under one timer: a server that sends headers and then stalls is as
 * stuck as one that never answers. The body is read chunk by chunk and dropped with its connection
 * as soon as it passes `maxBytes` (a declared Content-Length over the cap, before reading anything).
 */
function exchange(
  target: URL,
  json: string,
  headers: Record<string, string>,
  timeoutMs: number,
  maxBytes: number,
  signal: AbortSignal | undefined,
): Promise<Exchange> {
  return new Promise((resolve) => {
    const https = target.protocol === 'https:';
    const request = (https ? httpsRequest : httpRequest)(target, {
      method: 'POST',
      agent: poolFor(target.protocol),
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(json, 'utf8')),
        ...headers,
      },
    });
    let settled = false;
    const finish = (outcome: Exchange): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    // Ends the exchange and closes its connection (the rest of the reply is never read).
    const stop = (outcome: Exchange): void => {
      finish(outcome);
      request.destroy();
    };
    const timer = setTimeout(() => stop({ kind: 'timeout' }), timeoutMs);
    const onAbort = (): void => stop({ kind: 'cancelled' });
    signal?.addEventListener('abort', onAbort, { once: true });
    request.on('error', (error) => finish({ kind: 'network', error }));
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const retryAfterHeader = response.headers['retry-after'];
      const retryAfter = retryAfterHeader === undefined ? null : retryAfterHeader;
      const contentType = response.headers['content-type'] ?? null;
      const tooLarge: Exchange = { kind: 'reply', status, retryAfter, contentType, text: null };
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        stop(tooLarge);
        return;
      }
      const decoder = decoderFor(response.headers['content-encoding']);
      const body = decoder ? response.pipe(decoder) : response;
      const chunks: Buffer[] = [];
      let bytes = 0;
      body.on('data', (chunk: Buffer) => {
        bytes += chunk.byteLength;
        if (bytes > maxBytes) stop(tooLarge);
        else chunks.push(chunk);
      });
      body.on('end', () =>
        finish({
          kind: 'reply',
          status,
          retryAfter,
          contentType,
          text: Buffer.concat(chunks, bytes).toString('utf8'),
        }),
      );
      body.on('error', (error) => stop({ kind: 'network', error }));
      // A connection dropped mid-body ends the reply without an 'end'.
      response.on('close', () => {
        if (!response.complete) stop({ kind: 'network', error: prematureClose() });
      });
    });
    // A string body goes out with the headers in one write (a Buffer would be a second chunk).
    request.end(json, 'utf8');
  });
}

function prematureClose(): Error {
  return Object.assign(new Error('the connection closed before the reply ended'), {
    code: 'ECONNRESET',
  });
}

const EXCERPT_CHARS = 200;

/** An OpenAI-style `{"error":{"message"}}` says it best; otherwise the start of the body. */
export function excerpt(text: string): string {
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

export function redact(message: string, secret: string | undefined): string {
  return secret && secret.length >= 4 ? message.split(secret).join('[redacted]') : message;
}

/** Network errors that mean no connection was made: the request never reached an endpoint. */
const NOT_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
  'ENETUNREACH',
  'EHOSTUNREACH',
]);

/**
 * Whether a failed call reached its endpoint, so it counts as a call made (a call ledger counts
 * requests sent, not requests tried): false for a request refused before it was sent (bad input,
 * a key that may not travel) and for one whose connection was never made (nothing listening at
 * `http://0.0.0.0`, an unknown host).
 */
export function requestWasSent(error: unknown): boolean {
  if (!(error instanceof WorkbenchError)) return true;
  if (error.code === 'INVALID_INPUT') return false;
  const code = networkError(error.cause)?.code;
  return !(code !== undefined && NOT_CONNECTED.has(code));
}

/**
 * The system error under a failed request: the error itself (node:http's, `connect ECONNREFUSED
 * ...` with its code) or its `cause` (fetch's "fetch failed" keeps the useful part there).
 */
function networkError(error: unknown): { code?: string; message: string } | undefined {
  const withCode = (e: unknown): { code?: string; message: string } | undefined => {
    const { code, message } = (e ?? {}) as { code?: unknown; message?: unknown };
    if (typeof code !== 'string') return undefined;
    return { code, message: typeof message === 'string' ? message : '' };
  };
  return withCode(error) ?? withCode((error as { cause?: unknown } | null)?.cause);
}

/** A network failure in words, its code first: `ECONNREFUSED connect ECONNREFUSED 127.0.0.1:9`. */
export function networkReason(error: unknown): string {
  const system = networkError(error);
  if (system) return [system.code, system.message].filter((part) => part !== '').join(' ');
  return error instanceof Error ? error.message : String(error);
}

/** Retry-After is seconds or an HTTP date. Fractional seconds are accepted (some proxies send them). */
export function parseRetryAfter(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * The error a cancelled call rejects with: the signal's own reason when it is a WorkbenchError
 * (the pipeline's timeout aborts with a TIMEOUT error), else CANCELLED.
 */
export function cancelledError(label: string, signal?: AbortSignal): WorkbenchError {
  const reason: unknown = signal?.reason;
  if (reason instanceof WorkbenchError) return reason;
  return new WorkbenchError('CANCELLED', `${label}: cancelled`);
}

export function sleep(ms: number, signal: AbortSignal | undefined, label: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(cancelledError(label, signal));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(cancelledError(label, signal));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** At most `limit` tasks at once; the rest wait in arrival order. */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly limit: number) {}

  async run<T>(task: () => Promise<T>, signal?: AbortSignal, label = 'Semaphore'): Promise<T> {
    if (this.active >= this.limit) {
      await new Promise<void>((resolve, reject) => {
        const onAbort = (): void => {
          const i = this.waiting.indexOf(go);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(cancelledError(label, signal));
        };
        const go = (): void => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        if (signal?.aborted) {
          reject(cancelledError(label, signal));
          return;
        }
        signal?.addEventListener('abort', onAbort, { once: true });
        this.waiting.push(go);
      });
    } else {
      this.active++;
      return this.finish(task);
    }
    // A released slot was handed to us without being given back: `active` already counts us.
    return this.finish(task);
  }

  private async finish<T>(task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
