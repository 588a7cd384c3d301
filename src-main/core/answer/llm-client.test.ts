import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { WorkbenchError } from '../../../src-shared/errors';
import {
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from '../../../tests/support/fake-openai-server';
import type { LlmCallDelta } from '../../../src-shared/runs';
import { LlmClient, estimatedTokens, type LlmClientConfig } from './llm-client';
import { ResponseCache } from './responseCache';

const KEY_ENV = 'MW_TEST_LLM_CLIENT_API_KEY';
const KEY = 'sk-test-llm-client-0123456789';

let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await startFakeOpenAIServer({
    apiKey: KEY,
    chat: (chat) => `echo: ${chat.messages.at(-1)?.content ?? ''}`,
  });
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  server.setFault(null);
  server.requests.length = 0;
});

function client(overrides: Partial<LlmClientConfig> = {}): LlmClient {
  return new LlmClient(
    {
      baseUrl: server.url,
      model: 'fake-chat',
      temperature: 0,
      maxTokens: 32,
      apiKeyEnv: KEY_ENV,
      timeoutMs: 2_000,
      maxRetries: 3,
      concurrency: 4,
      baseDelayMs: 1,
      ...overrides,
    },
    { [KEY_ENV]: KEY },
    // Jitter pinned to its upper end: delays are exactly min(max, base * 2^n).
    () => 0.999999,
  );
}

async function rejection(promise: Promise<unknown>): Promise<WorkbenchError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof WorkbenchError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

const ask = [{ role: 'user' as const, content: 'hello there' }];

describe('LlmClient against the fake server', () => {
  it('posts an OpenAI chat request and returns the content with usage and latency', async () => {
    const c = client();
    const r = await c.complete(ask, { seed: 7 });
    expect(r.content).toBe('echo: hello there');
    expect(r.model).toBe('fake-chat');
    expect(r.usage).toEqual({ promptTokens: 2, completionTokens: 3 });
    expect(r.attempts).toBe(1);
    expect(r.latencyMs).toBeGreaterThan(0);
    const [request] = server.requests;
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.headers['authorization']).toBe(`Bearer ${KEY}`);
    expect(request?.body).toEqual({
      model: 'fake-chat',
      messages: ask,
      temperature: 0,
      max_tokens: 32,
      seed: 7,
    });
    expect(c.totals()).toEqual({ calls: 1, promptTokens: 2, completionTokens: 3, cost: null });
  });

  it('retries 500s and dropped connections with exponential backoff', async () => {
    server.setFault({ kind: 'status', status: 500, body: '{"error":{"message":"boom"}}' });
    server.setFault({ kind: 'drop' });
    const c = client({ baseDelayMs: 40 });
    const r = await c.complete(ask);
    expect(r.attempts).toBe(3);
    expect(c.stats.retries).toBe(2);
    const at = server.requests.map((q) => q.at);
    // Waits of 40 ms then 80 ms (jitter pinned high); timer granularity allows a little slack.
    expect((at[1] ?? 0) - (at[0] ?? 0)).toBeGreaterThanOrEqual(35);
    expect((at[2] ?? 0) - (at[1] ?? 0)).toBeGreaterThanOrEqual(75);
  });

  it('honours Retry-After on a 429 instead of its own backoff', async () => {
    server.setFault({ kind: 'rateLimit', retryAfter: 0.4 });
    const r = await client({ baseDelayMs: 1 }).complete(ask);
    expect(r.attempts).toBe(2);
    const [first, second] = server.requests;
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(380);
  });

  it('gives up after maxRetries, saying how many attempts it made', async () => {
    server.setFault({ kind: 'status', status: 503 }, { times: 10 });
    const error = await rejection(client({ maxRetries: 2 }).complete(ask));
    expect(error.code).toBe('UPSTREAM');
    expect(error.message).toContain('HTTP 503');
    expect(error.message).toContain('(after 3 attempts)');
    expect(server.requests).toHaveLength(3);
  });

  it('turns a hang past timeoutMs into TIMEOUT', async () => {
    server.setFault({ kind: 'hang' }, { times: 5 });
    const error = await rejection(client({ timeoutMs: 150, maxRetries: 1 }).complete(ask));
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toContain('timed out after 150 ms');
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry malformed JSON, empty choices or empty content: they fail as UPSTREAM', async () => {
    server.setFault({ kind: 'malformedJson' });
    expect((await rejection(client().complete(ask))).message).toContain('response is not JSON');
    server.setFault({ kind: 'emptyChoices' });
    expect((await rejection(client().complete(ask))).message).toContain(
      'unexpected response shape at choices: is empty',
    );
    server.setFault({
      kind: 'transform',
      fn: (r) => ({
        ...r,
        json: { choices: [{ message: { role: 'assistant', content: '  ' } }] },
      }),
    });
    expect((await rejection(client().complete(ask))).message).toContain(
      'choices.0.message.content: is empty',
    );
    server.setFault({
      kind: 'transform',
      fn: (r) => ({ ...r, json: { choices: [{ message: { role: 'assistant', content: null } }] } }),
    });
    expect((await rejection(client().complete(ask))).code).toBe('UPSTREAM');
    expect(server.requests).toHaveLength(4);
  });

  it('reads the key at call time and scrubs it from errors a server echoes', async () => {
    server.setFault({
      kind: 'status',
      status: 401,
      body: (request) =>
        JSON.stringify({ error: { message: `bad key: ${request.headers['authorization']}` } }),
    });
    const error = await rejection(client().complete(ask));
    expect(error.message).toContain('HTTP 401: bad key: Bearer [redacted]');
    expect(error.message).not.toContain(KEY);

    const unset = new LlmClient({
      ...{ baseUrl: server.url, model: 'm', temperature: 0, maxTokens: 8 },
      ...{ timeoutMs: 1000, maxRetries: 0, concurrency: 1, baseDelayMs: 1 },
      apiKeyEnv: 'MW_TEST_UNSET_VARIABLE',
    });
    const missing = await rejection(unset.complete(ask));
    expect(missing.code).toBe('INVALID_INPUT');
    expect(missing.message).toBe(
      'LlmClient: environment variable MW_TEST_UNSET_VARIABLE (apiKeyEnv) is not set',
    );
  });

  it('takes keys only from the map it is given, never from process.env', async () => {
    vi.stubEnv('MW_TEST_ENV_ONLY_API_KEY', 'sk-from-the-environment');
    try {
      const envOnly = new LlmClient({
        ...{ baseUrl: server.url, model: 'm', temperature: 0, maxTokens: 8 },
        ...{ timeoutMs: 1000, maxRetries: 0, concurrency: 1, baseDelayMs: 1 },
        apiKeyEnv: 'MW_TEST_ENV_ONLY_API_KEY',
      });
      const before = server.requests.length;
      const error = await rejection(envOnly.complete(ask));
      expect(error.message).toBe(
        'LlmClient: environment variable MW_TEST_ENV_ONLY_API_KEY (apiKeyEnv) is not set',
      );
      expect(server.requests.length).toBe(before);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('refuses to send a key over plain http to a host that is not loopback', async () => {
    // 192.0.2.1 is TEST-NET-1: the client must refuse before it opens any connection.
    const error = await rejection(client({ baseUrl: 'http://192.0.2.1:9/v1' }).complete(ask));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toBe(
      `LlmClient: refusing to send the key in ${KEY_ENV} over plain http to 192.0.2.1:9; use https, or reach the server through a tunnel on 127.0.0.1`,
    );
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const slow = await startFakeOpenAIServer({
      chat: async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 30));
        inFlight--;
        return { json: { choices: [{ message: { role: 'assistant', content: 'ok' } }] } };
      },
    });
    try {
      const c = client({ baseUrl: slow.url, apiKeyEnv: undefined, concurrency: 2 });
      const results = await Promise.all(Array.from({ length: 6 }, () => c.complete(ask)));
      expect(results.map((r) => r.content)).toEqual(Array(6).fill('ok'));
      // No usage in the response: recorded as unknown, not as zero.
      expect(results[0]?.usage).toBeNull();
      expect(peak).toBe(2);
    } finally {
      await slow.close();
    }
  });
});

describe('LlmClient reply cap', () => {
  // 64 MiB planned, 1 MiB cap: the server writes with backpressure, so it can only get far past
  // the cap if the client keeps reading.
  const planned = 64 * 1024 * 1024;
  const cap = 1024 * 1024;

  it('stops reading a chunked reply past maxReplyBytes and fails with LLM_REPLY_TOO_LARGE', async () => {
    server.setFault({ kind: 'hugeBody', bytes: planned });
    const c = client({ maxReplyBytes: cap });
    const error = await rejection(c.complete(ask));
    expect(error.code).toBe('LLM_REPLY_TOO_LARGE');
    expect(error.message).toBe(
      `LlmClient: POST ${server.url}/chat/completions -> HTTP 200: reply body is larger than the ${cap}-byte cap (maxReplyBytes); stopped reading`,
    );
    expect(server.requests).toHaveLength(1); // not retried: the same server would send it again
    const [stream] = server.streams.slice(-1);
    await stream?.ended;
    expect(stream?.closedEarly).toBe(true);
    // Socket buffers on both sides hold a few MB at most; far from the 64 MiB planned.
    expect(stream?.written).toBeLessThan(16 * 1024 * 1024);
    expect(c.stats.failures).toBe(1);
  });

  it('refuses a declared Content-Length over the cap before reading the body', async () => {
    server.setFault({ kind: 'hugeBody', bytes: planned, contentLength: true });
    const error = await rejection(client({ maxReplyBytes: cap }).complete(ask));
    expect(error.code).toBe('LLM_REPLY_TOO_LARGE');
    const [stream] = server.streams.slice(-1);
    await stream?.ended;
    expect(stream?.closedEarly).toBe(true);
    expect(stream?.written).toBeLessThan(16 * 1024 * 1024);
  });

  it('reads a reply under the cap as usual', async () => {
    const r = await client({ maxReplyBytes: 1024 }).complete(ask);
    expect(r.content).toBe('echo: hello there');
  });
});

describe('LlmClient call meter', () => {
  it('counts every attempt as it is sent, and each failure or its tokens as it ends', async () => {
    const deltas: LlmCallDelta[] = [];
    const c = new LlmClient(
      {
        baseUrl: server.url,
        model: 'fake-chat',
        temperature: 0,
        maxTokens: 32,
        apiKeyEnv: KEY_ENV,
        timeoutMs: 2_000,
        maxRetries: 3,
        concurrency: 1,
        baseDelayMs: 1,
      },
      { [KEY_ENV]: KEY },
      () => 0.5,
      (d) => deltas.push(d),
    );
    server.setFault({ kind: 'status', status: 500, body: 'boom' });
    server.setFault({ kind: 'drop' });
    await c.complete(ask);
    const sum = deltas.reduce(
      (t, d) => ({
        calls: t.calls + d.calls,
        failures: t.failures + d.failures,
        promptTokens: t.promptTokens + d.promptTokens,
        completionTokens: t.completionTokens + d.completionTokens,
      }),
      { calls: 0, failures: 0, promptTokens: 0, completionTokens: 0 },
    );
    expect(server.requests).toHaveLength(3);
    expect(sum).toEqual({ calls: 3, failures: 2, promptTokens: 2, completionTokens: 3 });
    // Sent is reported before the request ends: a kill in between still counts the call.
    const counting = deltas.filter((d) => d.shapes === undefined);
    expect(counting[0]).toEqual({ calls: 1, failures: 0, promptTokens: 0, completionTokens: 0 });
    // The request's shape is filed once, however often it is retried: the body as sent, no messages.
    expect(deltas.flatMap((d) => d.shapes ?? [])).toEqual([
      { step: 'chat', params: { max_tokens: 32, model: 'fake-chat', temperature: 0 } },
    ]);
  });
});

describe('LlmClient rate limits outside a run', () => {
  it('keeps requestsPerMinute with a budget of its own (a judge pass, a rescore)', async () => {
    const limited = client({ requestsPerMinute: 2 });
    const abort = new AbortController();
    const calls = [1, 2, 3].map((n) =>
      limited.complete([{ role: 'user', content: `q${n}` }], { signal: abort.signal }),
    );
    const [first, second] = await Promise.all(calls.slice(0, 2));
    expect([first?.content, second?.content]).toEqual(['echo: q1', 'echo: q2']);
    // The third waits for the minute to pass; the server has not seen it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.requests.filter((r) => r.path.endsWith('/chat/completions'))).toHaveLength(2);
    abort.abort();
    expect((await rejection(calls[2] as Promise<unknown>)).code).toBe('CANCELLED');
    expect(server.requests.filter((r) => r.path.endsWith('/chat/completions'))).toHaveLength(2);
  });

  it('estimates a request at about four characters a token plus its answer allowance', () => {
    expect(estimatedTokens([{ role: 'user', content: 'x'.repeat(401) }], 32)).toBe(101 + 32);
  });
});

describe('LlmClient response cache', () => {
  it('shares a request under way with an identical one asked meanwhile: one request, one hit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'workbench-llm-client-cache-'));
    const cache = ResponseCache.open(dir, 'on');
    try {
      const cached = new LlmClient(
        {
          baseUrl: server.url,
          model: 'fake-chat',
          temperature: 0,
          maxTokens: 32,
          apiKeyEnv: KEY_ENV,
          timeoutMs: 2_000,
          maxRetries: 0,
          concurrency: 4,
          baseDelayMs: 1,
        },
        { [KEY_ENV]: KEY },
        Math.random,
        undefined,
        undefined,
        cache,
      );
      // The first is still at the server when the second is asked.
      server.setFault({ kind: 'delay', ms: 200 });
      const [first, second] = await Promise.all([cached.complete(ask), cached.complete(ask)]);
      expect(server.requests).toHaveLength(1);
      expect(second.content).toBe(first.content);
      expect(cache.stats).toEqual({ hits: 1, misses: 1 });
      // Settled: the next identical request reads the stored reply.
      await cached.complete(ask);
      expect(server.requests).toHaveLength(1);
      expect(cache.stats).toEqual({ hits: 2, misses: 1 });
    } finally {
      cache.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
