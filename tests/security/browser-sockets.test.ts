import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService, type Service } from '../../src-main/core/service';
import { startServer, type RunningServer } from '../../src-main/server/server';

/**
 * A page of the browser mode (or whoever holds its token) aims an external memory service at this
 * machine's local sockets (issue 23 item 7): a unix socket anywhere on the disk, or a loopback
 * HTTP service that is not a memory service at all. Real server on 127.0.0.1, real sockets.
 */

const MINI = fileURLToPath(new URL('../fixtures/locomo/mini.json', import.meta.url));
const TOKEN = 'security-token-0123456789';
const SECRET = 'sk-live-51HxTopSecretValue0123456789';
const root = mkdtempSync(join(tmpdir(), 'workbench-sec-sockets-'));
const allowed = join(root, 'allowed');
const outside = join(root, 'outside');
let service: Service;
let server: RunningServer;
let datasetId: string;
const listeners: Server[] = [];

/** A plain HTTP server that answers every request with `status` and `body`. */
async function listen(at: string | number, status: number, body: string): Promise<Server> {
  const s = createServer((_req, res) => {
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(body);
  });
  listeners.push(s);
  await new Promise<void>((done) =>
    typeof at === 'string' ? s.listen(at, done) : s.listen(at, '127.0.0.1', done),
  );
  return s;
}

function api(method: string, input: unknown): Promise<{ status: number; body: string }> {
  const payload = JSON.stringify(input);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path: `/api/${method}`,
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Starts a run whose memory service is at `url`; the API's error (the run must not start). */
async function startWith(url: string): Promise<{ code: string; message: string; raw: string }> {
  const reply = await api('experiments.start', {
    datasetId,
    memory: { preset: 'external', config: { url } },
  });
  const parsed = JSON.parse(reply.body) as {
    ok: boolean;
    error?: { code: string; message: string };
  };
  expect(parsed.ok).toBe(false);
  return { ...(parsed.error as { code: string; message: string }), raw: reply.body };
}

beforeAll(async () => {
  mkdirSync(allowed);
  mkdirSync(outside);
  service = createService({
    dataDir: join(root, 'data'),
    transport: 'http',
    datasetDirs: [allowed],
    readWorkers: 0,
  });
  server = await startServer({
    handlers: service.handlers,
    staticDir: root,
    token: TOKEN,
  });
  const upload = await api('datasets.upload', {
    name: 'mini.json',
    content: readFileSync(MINI, 'utf8'),
  });
  datasetId = (JSON.parse(upload.body) as { data: { datasetId: string } }).data.datasetId;
});

afterAll(async () => {
  for (const s of listeners) s.close();
  await server?.close();
  await service?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('browser mode and local sockets', () => {
  it('refuses a unix socket outside the server’s folders with one error, whether it exists or not', async () => {
    const live = join(outside, 'live.sock');
    await listen(live, 200, SECRET);
    const existing = await startWith(`unix:${live}`);
    const missing = await startWith(`unix:${join(outside, 'missing.sock')}`);
    expect(existing.code).toBe('FORBIDDEN');
    expect(missing.code).toBe('FORBIDDEN');
    // Word for word the same but for the path itself: nothing tells a live socket from none.
    expect(existing.message.replace('live.sock', 'X')).toBe(
      missing.message.replace('missing.sock', 'X'),
    );
    expect(existing.raw).not.toContain(SECRET);
    // A socket inside the given folder is tried (and missing here): the rule, not a blanket ban.
    const inside = await startWith(`unix:${join(allowed, 'memory.sock')}`);
    expect(inside.code).toBe('UPSTREAM');
  });

  it('never echoes what a loopback HTTP service replied', async () => {
    const text = await listen(0, 200, `DATABASE_PASSWORD=${SECRET}\n`);
    const json = await listen(0, 500, JSON.stringify({ error: { code: 'E', message: SECRET } }));
    const keys = await listen(0, 200, JSON.stringify({ [SECRET]: 1 }));
    for (const s of [text, json, keys]) {
      const port = (s.address() as AddressInfo).port;
      const error = await startWith(`http://127.0.0.1:${port}`);
      expect(error.code).toBe('UPSTREAM');
      expect(error.message).toContain(`memory service http://127.0.0.1:${port}/: hello`);
      expect(error.raw).not.toContain(SECRET);
    }
  });
});
