import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createService } from '../core/service';
import { startServer, type RunningServer } from './server';

let server: RunningServer;
let root: string;
const TOKEN = 'test-token-0123456789';

function raw(
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path,
        method: options.method ?? 'GET',
        headers: options.headers,
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mw-server-'));
  const staticDir = join(root, 'static');
  mkdirSync(staticDir);
  writeFileSync(join(staticDir, 'index.html'), '<html>workbench</html>');
  writeFileSync(join(root, 'secret.txt'), 'outside the static root');
  server = await startServer({
    handlers: createService({ dataDir: root, transport: 'http' }).handlers,
    staticDir,
    token: TOKEN,
    maxBodyBytes: 1024,
  });
});

afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

describe('local server', () => {
  const auth = { authorization: `Bearer ${TOKEN}` };

  it('answers API calls with the token and refuses them without', async () => {
    const ok = await raw('/api/app.info', { method: 'POST', headers: auth, body: '{}' });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({
      ok: true,
      data: { transport: 'http', dataDir: root },
    });

    const noToken = await raw('/api/app.info', { method: 'POST', body: '{}' });
    expect(noToken.status).toBe(401);
    const wrongToken = await raw('/api/app.info', {
      method: 'POST',
      headers: { authorization: 'Bearer test-token-0123456780' },
      body: '{}',
    });
    expect(wrongToken.status).toBe(401);
  });

  it('names the method and the bad value in input errors', async () => {
    const bad = await raw('/api/app.info', { method: 'POST', headers: auth, body: '{"x":1}' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toEqual({
      ok: false,
      error: {
        code: 'INVALID_INPUT',
        message: 'API app.info input: (root): Unrecognized key: "x"',
        path: [],
        where: 'API app.info input',
      },
    });
    const notJson = await raw('/api/app.info', { method: 'POST', headers: auth, body: '{' });
    expect(JSON.parse(notJson.body).error.message).toBe('API app.info: request body is not JSON');
    const unknown = await raw('/api/nope', { method: 'POST', headers: auth, body: '{}' });
    expect(unknown.status).toBe(404);
  });

  it('refuses bodies over the limit', async () => {
    const big = await raw('/api/app.info', {
      method: 'POST',
      headers: auth,
      body: 'x'.repeat(2048),
    });
    expect(big.status).toBe(413);
  });

  it('refuses a foreign Host header (DNS rebinding)', async () => {
    const res = await raw('/api/app.info', {
      method: 'POST',
      headers: { ...auth, host: 'evil.example:80' },
      body: '{}',
    });
    expect(res.status).toBe(403);
  });

  it('serves the renderer and never files outside its folder', async () => {
    expect((await raw('/')).body).toBe('<html>workbench</html>');
    // Unknown paths fall back to the single-page app instead of leaking the parent folder.
    expect((await raw('/../secret.txt')).body).toBe('<html>workbench</html>');
    expect((await raw('/%2e%2e/secret.txt')).body).toBe('<html>workbench</html>');
  });

  it('streams events over the WebSocket only with the token', async () => {
    const good = new WebSocket(`ws://127.0.0.1:${server.port}/api/events?token=${TOKEN}`);
    await new Promise((resolve) => good.once('open', resolve));
    const received = new Promise<string>((resolve) =>
      good.once('message', (data) => resolve(String(data))),
    );
    server.broadcast({ type: 'log', level: 'info', message: 'hello' });
    expect(JSON.parse(await received)).toEqual({ type: 'log', level: 'info', message: 'hello' });
    good.close();

    const bad = new WebSocket(`ws://127.0.0.1:${server.port}/api/events?token=nope`);
    const outcome = await new Promise<string>((resolve) => {
      bad.once('open', () => resolve('open'));
      bad.once('error', () => resolve('refused'));
    });
    expect(outcome).toBe('refused');
  });
});
