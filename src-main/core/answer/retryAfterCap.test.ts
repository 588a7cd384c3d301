import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from '../../../tests/support/fake-openai-server';
import { LlmClient } from './llm-client';
import { CallBudget, cappedPauseMessage } from '../http/callBudget';

/**
 * Issue 39 item 4: one 429 with `Retry-After: 100000` kept a run alive for a day, because the
 * run's request budget paused the endpoint for as long as the server asked. Every wait a server
 * asks for is capped by the retry policy's cap: the client does not retry past it (and says the
 * wait and the cap), and the budget pauses the endpoint for the cap at most (and says so). A tiny
 * configured cap stands in for the 60 s default, so the test is not slow.
 */
let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await startFakeOpenAIServer({ chat: () => 'ok' });
});
afterAll(async () => {
  await server.close();
});

describe('a huge Retry-After', () => {
  it('fails the call that got it, saying the wait and the cap, and pauses the endpoint only for the cap', async () => {
    const CAP_MS = 50;
    const warnings: string[] = [];
    const budget = new CallBudget(4, new Map(), Date.now, undefined, {
      maxMs: CAP_MS,
      onCapped: (endpoint, askedMs, capMs) =>
        warnings.push(cappedPauseMessage(endpoint, askedMs, capMs)),
    });
    const client = new LlmClient(
      {
        baseUrl: server.url,
        model: 'fake-chat',
        temperature: 0,
        maxTokens: 8,
        timeoutMs: 2_000,
        maxRetries: 3,
        concurrency: 4,
        baseDelayMs: 1,
        maxRetryAfterMs: CAP_MS,
      },
      {},
      Math.random,
      undefined,
      budget,
    );
    server.setFault({ kind: 'rateLimit', retryAfter: 100_000 });
    await expect(client.complete([{ role: 'user', content: 'hi' }])).rejects.toThrow(
      'HTTP 429: Rate limit reached (server asked to wait 100000 s, more than the cap of 50 ms (maxRetryAfterMs): not retried)',
    );
    expect(warnings).toEqual([
      `${server.url}: server asked to wait 100000 s; waiting the cap of 50 ms`,
    ]);
    // The next request waits out the cap, not the day the server asked for.
    const reply = await client.complete([{ role: 'user', content: 'again' }]);
    expect(reply.content).toBe('ok');
    expect(server.requests).toHaveLength(2);
  });
});
