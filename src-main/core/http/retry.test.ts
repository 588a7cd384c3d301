import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WorkbenchError } from '../../../src-shared/errors';
import { postJson, requestWasSent } from './retry';

/** A server on 127.0.0.1 that answers every POST with `reply` and counts its connections. */
async function serve(
  reply: (body: string) => { headers?: Record<string, string>; body: Buffer | string },
): Promise<{ url: string; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const { headers = {}, body } = reply(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(200, { 'content-type': 'application/json', ...headers });
      response.end(body);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
    connections: () => connections,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const options = { headers: {}, timeoutMs: 2_000, label: 'test: POST', where: 'test' };

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('postJson', () => {
  it('sends the JSON text as given over one kept-alive connection, without fetch', async () => {
    // fetch's web streams and abort plumbing were a tenth of an LLM run's CPU at 0.1 s a call.
    vi.stubGlobal('fetch', () => {
      throw new Error('postJson must not use fetch');
    });
    const server = await serve((body) => ({ body: `{"echo":${body}}` }));
    try {
      for (let i = 0; i < 5; i++) {
        const sent = await postJson(server.url, `{"n":${i}}`, options);
        expect(sent).toEqual({
          ok: true,
          value: { status: 200, text: `{"echo":{"n":${i}}}`, contentType: 'application/json' },
        });
      }
      expect(server.connections()).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('decodes a reply the server compressed unasked, and caps the decoded bytes', async () => {
    const text = JSON.stringify({ text: 'x'.repeat(10_000) });
    const server = await serve(() => ({
      headers: { 'content-encoding': 'gzip' },
      body: gzipSync(text),
    }));
    try {
      const sent = await postJson(server.url, '{}', options);
      expect(sent.ok && sent.value.text).toBe(text);
      // Under 100 bytes compressed, 10 kB decoded: the cap counts what is read into memory.
      const capped = await postJson(server.url, '{}', { ...options, maxReplyBytes: 5_000 });
      expect(capped.ok).toBe(false);
      expect(!capped.ok && capped.error.code).toBe('LLM_REPLY_TOO_LARGE');
    } finally {
      await server.close();
    }
  });

  it('names a refused connection by its code, and counts it as a request never sent', async () => {
    const server = await serve(() => ({ body: '{}' }));
    const { url } = server;
    await server.close();
    const sent = await postJson(url, '{}', options);
    expect(sent.ok).toBe(false);
    if (sent.ok) return;
    expect(sent.retryable).toBe(true);
    expect(sent.error.message).toMatch(/^test: POST failed: ECONNREFUSED connect ECONNREFUSED /);
    expect(requestWasSent(sent.error)).toBe(false);
    expect(requestWasSent(new WorkbenchError('UPSTREAM', 'HTTP 500'))).toBe(true);
  });

  it('rejects with CANCELLED when the signal aborts while the reply is awaited', async () => {
    const server = await serve(() => ({ body: '{}' }));
    try {
      const abort = new AbortController();
      const pending = postJson(server.url, '{}', { ...options, signal: abort.signal });
      abort.abort();
      await expect(pending).rejects.toMatchObject({ code: 'CANCELLED' });
    } finally {
      await server.close();
    }
  });
});
