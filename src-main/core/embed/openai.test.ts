import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../src-shared/errors';
import {
  fakeEmbedding,
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from '../../../tests/support/fake-openai-server';
import { createOpenAIEmbedder, OpenAIEmbedder, type OpenAIEmbedderConfig } from './openai';
import { l2norm } from './vectorMath';

const KEY_ENV = 'MW_TEST_EMBED_KEY';
const KEY = 'sk-test-9f8e7d6c5b4a-secret';

let server: FakeOpenAIServer;

beforeEach(async () => {
  server = await startFakeOpenAIServer({ dim: 8, apiKey: KEY });
});

afterEach(async () => {
  await server.close();
});

function embedder(overrides: Partial<OpenAIEmbedderConfig> = {}): OpenAIEmbedder {
  return new OpenAIEmbedder(
    {
      baseUrl: server.url,
      model: 'text-embedding-3-small',
      apiKeyEnv: KEY_ENV,
      baseDelayMs: 1,
      maxDelayMs: 5,
      timeoutMs: 2_000,
      ...overrides,
    },
    { [KEY_ENV]: KEY },
  );
}

async function failure(promise: Promise<unknown>): Promise<WorkbenchError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkbenchError);
  return error as WorkbenchError;
}

function expected(text: string): number[] {
  const v = fakeEmbedding(text, 8);
  const n = l2norm(v);
  return v.map((x) => Math.fround(x / n));
}

const texts = (n: number): string[] => Array.from({ length: n }, (_, i) => `turn number ${i}`);

describe('OpenAIEmbedder', () => {
  it('batches 150 texts into 64 + 64 + 22 and keeps their order', async () => {
    const e = embedder({ concurrency: 3 });
    const input = texts(150);
    const out = await e.embed(input);
    expect(server.requests.map((r) => (r.body as { input: string[] }).input.length).sort()).toEqual(
      [22, 64, 64],
    );
    expect(out).toHaveLength(150);
    out.forEach((v, i) => {
      expect(
        [...v].map((x, j) => x - expected(input[i]!)[j]!).every((d) => Math.abs(d) < 1e-6),
      ).toBe(true);
      expect(l2norm(v)).toBeCloseTo(1, 5);
    });
    expect(e.dim).toBe(8);
    expect(e.stats).toMatchObject({ requests: 3, retries: 0 });
  });

  it('keeps order when the server answers batches out of order and lists data by index', async () => {
    // The first batch is slow, so the second finishes first; the items come back reversed.
    server.setFault({ kind: 'delay', ms: 80 });
    server.setFault({
      kind: 'transform',
      fn: (res) => ({
        ...res,
        json: {
          ...(res.json as object),
          data: [...(res.json as { data: unknown[] }).data].reverse(),
        },
      }),
    });
    const input = texts(6);
    const out = await embedder({ batchSize: 3, concurrency: 2 }).embed(input);
    out.forEach((v, i) => expect(v[0]).toBeCloseTo(expected(input[i]!)[0]!, 6));
  });

  it('sends the key from the environment as a bearer token, and the model and dimensions', async () => {
    await embedder({ dimensions: 8 }).embed(['hello']);
    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/embeddings');
    expect(request?.headers['authorization']).toBe(`Bearer ${KEY}`);
    expect(request?.body).toEqual({
      model: 'text-embedding-3-small',
      input: ['hello'],
      dimensions: 8,
    });
  });

  it('sends no Authorization header without apiKeyEnv (local servers)', async () => {
    await server.close();
    server = await startFakeOpenAIServer({ dim: 4 });
    await embedder({ apiKeyEnv: undefined }).embed(['hello']);
    expect(server.requests[0]?.headers['authorization']).toBeUndefined();
  });

  it('learns dim from the first response, or says how to get it', async () => {
    const e = embedder();
    expect(() => e.dim).toThrow(/dim of text-embedding-3-small is unknown until the first call/);
    expect(await e.resolveDim()).toBe(8);
    expect(
      (
        await createOpenAIEmbedder(
          { baseUrl: server.url, model: 'm', apiKeyEnv: KEY_ENV },
          {},
          { [KEY_ENV]: KEY },
        )
      ).dim,
    ).toBe(8);
    expect(embedder({ dimensions: 16 }).dim).toBe(16);
    expect(embedder({ dimensions: 16 }).name).toBe('openai:text-embedding-3-small:16d');
    expect(e.name).toBe('openai:text-embedding-3-small');
  });

  it('returns [] for no texts without calling the server', async () => {
    expect(await embedder().embed([])).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it('honours Retry-After on 429, then succeeds', async () => {
    server.setFault({ kind: 'rateLimit', retryAfter: 1 });
    const start = Date.now();
    const out = await embedder().embed(['a b']);
    expect(Date.now() - start).toBeGreaterThanOrEqual(950);
    expect(out).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
  });

  it('retries a 500 with backoff', async () => {
    server.setFault(
      { kind: 'status', status: 500, body: '{"error":{"message":"boom"}}' },
      { times: 2 },
    );
    const e = embedder();
    await e.embed(['x']);
    expect(server.requests).toHaveLength(3);
    expect(e.stats.retries).toBe(2);
  });

  it('gives up after maxRetries with UPSTREAM, the status and the server message', async () => {
    server.setFault(
      { kind: 'status', status: 503, body: '{"error":{"message":"overloaded, try later"}}' },
      { times: Infinity },
    );
    const error = await failure(embedder({ maxRetries: 2 }).embed(['x']));
    expect(error.code).toBe('UPSTREAM');
    expect(error.message).toBe(
      `OpenAIEmbedder: POST ${server.url}/embeddings -> HTTP 503: overloaded, try later (after 3 attempts)`,
    );
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry other 4xx', async () => {
    server.setFault({
      kind: 'status',
      status: 400,
      body: '{"error":{"message":"input too long"}}',
    });
    const error = await failure(embedder().embed(['x']));
    expect(error.code).toBe('UPSTREAM');
    expect(error.message).toContain('HTTP 400: input too long');
    expect(server.requests).toHaveLength(1);
  });

  it('times out each attempt and reports TIMEOUT after the retries', async () => {
    server.setFault({ kind: 'hang' }, { times: Infinity });
    const error = await failure(embedder({ timeoutMs: 100, maxRetries: 2 }).embed(['x']));
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toBe(
      `OpenAIEmbedder: POST ${server.url}/embeddings timed out after 100 ms (after 3 attempts)`,
    );
    expect(server.requests).toHaveLength(3);
  });

  it('reports malformed JSON as UPSTREAM without retrying', async () => {
    server.setFault({ kind: 'malformedJson' });
    const error = await failure(embedder().embed(['x']));
    expect(error.code).toBe('UPSTREAM');
    expect(error.message).toMatch(/response is not JSON: \{"object":"list"/);
    expect(server.requests).toHaveLength(1);
  });

  it('reports a wrong number of embeddings as UPSTREAM', async () => {
    server.setFault({ kind: 'wrongCount' });
    const error = await failure(embedder().embed(['a', 'b', 'c']));
    expect(error.code).toBe('UPSTREAM');
    expect(error.message).toContain('returned 2 embeddings for 3 inputs');
  });

  it('reports inconsistent dimensions and bad shapes as UPSTREAM', async () => {
    server.setFault({
      kind: 'transform',
      fn: (res) => {
        const json = res.json as { data: Array<{ embedding: number[] }> };
        json.data[1]!.embedding = [1, 2, 3];
        return res;
      },
    });
    expect((await failure(embedder().embed(['a', 'b']))).message).toContain(
      'embedding 1 has 3 dimensions, expected 8',
    );
    server.setFault({
      kind: 'transform',
      fn: () => ({ json: { data: [{ embedding: 'base64...' }] } }),
    });
    expect((await failure(embedder().embed(['a']))).message).toMatch(
      /unexpected response shape at data\.0\.embedding/,
    );
  });

  it('retries a dropped connection', async () => {
    server.setFault({ kind: 'drop' });
    const e = embedder();
    expect(await e.embed(['x'])).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
  });

  it('reports a connection that keeps dropping as UPSTREAM network failure', async () => {
    server.setFault({ kind: 'drop' }, { times: Infinity });
    const error = await failure(embedder({ maxRetries: 1 }).embed(['x']));
    expect(error.code).toBe('UPSTREAM');
    expect(error.message).toMatch(/^OpenAIEmbedder: POST .* failed: .+ \(after 2 attempts\)$/);
  });

  it('never puts the API key in an error, even when the server echoes it', async () => {
    server.setFault({
      kind: 'status',
      status: 401,
      body: (req) =>
        JSON.stringify({ error: { message: `bad key: ${req.headers['authorization']}` } }),
    });
    const error = await failure(embedder().embed(['x']));
    expect(error.message).toContain('HTTP 401: bad key: Bearer [redacted]');
    const everything = JSON.stringify([
      error.message,
      error.toPayload(),
      String(error.stack),
      String(error.cause),
    ]);
    expect(everything).not.toContain(KEY);
  });

  it('refuses a config with a literal apiKey, and a missing environment variable', () => {
    expect(
      () =>
        new OpenAIEmbedder({
          baseUrl: server.url,
          model: 'm',
          apiKey: KEY,
        } as OpenAIEmbedderConfig),
    ).toThrow(/OpenAIEmbedder config: .*apiKey/);
    try {
      new OpenAIEmbedder({ baseUrl: server.url, model: 'm', apiKeyEnv: 'MW_TEST_UNSET_VARIABLE' });
      expect.unreachable();
    } catch (error) {
      expect((error as WorkbenchError).code).toBe('INVALID_INPUT');
      expect((error as WorkbenchError).message).toBe(
        'OpenAIEmbedder: environment variable MW_TEST_UNSET_VARIABLE (apiKeyEnv) is not set',
      );
    }
    // The environment is not a key source: only the map the caller vetted is.
    process.env['MW_TEST_EMBED_ENV_ONLY_API_KEY'] = KEY;
    try {
      expect(
        () =>
          new OpenAIEmbedder({
            baseUrl: server.url,
            model: 'm',
            apiKeyEnv: 'MW_TEST_EMBED_ENV_ONLY_API_KEY',
          }),
      ).toThrow(
        'OpenAIEmbedder: environment variable MW_TEST_EMBED_ENV_ONLY_API_KEY (apiKeyEnv) is not set',
      );
    } finally {
      delete process.env['MW_TEST_EMBED_ENV_ONLY_API_KEY'];
    }
    expect(
      () =>
        new OpenAIEmbedder(
          { baseUrl: 'http://192.0.2.1:9/v1', model: 'm', apiKeyEnv: KEY_ENV },
          { [KEY_ENV]: KEY },
        ),
    ).toThrow(
      `OpenAIEmbedder: refusing to send the key in ${KEY_ENV} over plain http to 192.0.2.1:9; use https, or reach the server through a tunnel on 127.0.0.1`,
    );
    expect(() => new OpenAIEmbedder({ baseUrl: 'not a url', model: 'm' })).toThrow(
      /OpenAIEmbedder config: baseUrl/,
    );
  });

  it('stops reading a reply larger than maxReplyBytes: LLM_REPLY_TOO_LARGE, not retried', async () => {
    server.setFault({ kind: 'hugeBody', bytes: 64 * 1024 * 1024 });
    const error = await failure(
      embedder({ maxReplyBytes: 1024 * 1024, dimensions: 8 }).embed(['a']),
    );
    expect(error.code).toBe('LLM_REPLY_TOO_LARGE');
    expect(error.message).toMatch(/larger than the 1048576-byte cap \(maxReplyBytes\)/);
    expect(server.requests).toHaveLength(1);
    const stream = server.streams[0];
    await stream?.ended;
    expect(stream?.closedEarly).toBe(true);
    expect(stream?.written).toBeLessThan(16 * 1024 * 1024);
  });

  it('tells its meter of every request: sent, then failed or its tokens', async () => {
    const deltas: Array<{ calls: number; failures: number; promptTokens: number }> = [];
    const e = new OpenAIEmbedder(
      {
        baseUrl: server.url,
        model: 'text-embedding-3-small',
        apiKeyEnv: KEY_ENV,
        baseDelayMs: 1,
        maxDelayMs: 5,
        dimensions: 8,
      },
      { [KEY_ENV]: KEY },
      (d) => deltas.push(d),
    );
    server.setFault({ kind: 'status', status: 503, body: 'busy' });
    await e.embed(['one two three']);
    expect(server.requests).toHaveLength(2);
    expect(deltas.reduce((n, d) => n + d.calls, 0)).toBe(2);
    expect(deltas.reduce((n, d) => n + d.failures, 0)).toBe(1);
    expect(deltas.reduce((n, d) => n + d.promptTokens, 0)).toBe(3);
  });

  it('cancels in-flight work when the caller aborts', async () => {
    server.setFault({ kind: 'hang' }, { times: Infinity });
    const controller = new AbortController();
    const pending = embedder({ timeoutMs: 10_000 }).embed(['x'], { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect((await failure(pending)).code).toBe('CANCELLED');
  });

  it('stops other batches after one fails for good', async () => {
    server.setFault({ kind: 'status', status: 400, body: 'nope' });
    await failure(embedder({ batchSize: 1, concurrency: 1 }).embed(texts(5)));
    expect(server.requests).toHaveLength(1);
  });
});

describe('fake OpenAI server', () => {
  it('answers unknown routes with an OpenAI-style 404 and serves added routes', async () => {
    server.route('POST', '/v1/chat/completions', () => ({ json: { choices: [] } }));
    const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    const chat = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers,
      body: '{}',
    });
    expect(await chat.json()).toEqual({ choices: [] });
    const missing = await fetch(`${server.url}/nothing`, { method: 'POST', headers, body: '{}' });
    expect(missing.status).toBe(404);
    expect(server.requests.map((r) => r.path)).toEqual(['/v1/chat/completions', '/v1/nothing']);
  });

  it('applies a fault only to its path and only as many times as asked', async () => {
    server.setFault({ kind: 'status', status: 500 }, { path: '/v1/chat/completions', times: 1 });
    await embedder().embed(['a']);
    expect(server.requests).toHaveLength(1);
  });
});
