import {
  mkdtempSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createService } from '../core/service';
import { startServer, type RunningServer } from './server';

let server: RunningServer;
let root: string;
const TOKEN = 'test-token-0123456789';
const MINI = join(__dirname, '../../tests/fixtures/locomo/mini.json');

function raw(
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string; headers: IncomingHttpHeaders }> {
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
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
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
    maxBodyBytes: 64 * 1024,
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
    expect(JSON.parse(noToken.body).error).toEqual({
      code: 'UNAUTHORIZED',
      message: 'Missing or wrong API token',
    });
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
      body: 'x'.repeat(65 * 1024),
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
    expect(JSON.parse(res.body).error.code).toBe('FORBIDDEN');
  });

  it('refuses API calls from another origin even with the token (CSRF)', async () => {
    const foreign = await raw('/api/app.info', {
      method: 'POST',
      headers: { ...auth, origin: 'http://127.0.0.1:9' },
      body: '{}',
    });
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body).error).toEqual({
      code: 'FORBIDDEN',
      message: 'Forbidden origin',
    });
    const own = await raw('/api/app.info', {
      method: 'POST',
      headers: { ...auth, origin: `http://127.0.0.1:${server.port}` },
      body: '{}',
    });
    expect(own.status).toBe(200);
  });

  it('answers malformed percent-encoding with 400 INVALID_INPUT, not a server error', async () => {
    for (const path of ['/api/app.%E0%A4%A', '/api/%zz', '/%E0%A4%A']) {
      const res = await raw(path, { method: 'POST', headers: auth, body: '{}' });
      expect(res.status, path).toBe(400);
      expect(JSON.parse(res.body).error, path).toEqual({
        code: 'INVALID_INPUT',
        message: 'Malformed percent-encoding in the request path',
      });
    }
  });

  it('serves the renderer and never files outside its folder', async () => {
    expect((await raw('/', { headers: auth })).body).toBe('<html>workbench</html>');
    // Unknown paths fall back to the single-page app instead of leaking the parent folder.
    expect((await raw('/../secret.txt', { headers: auth })).body).toBe('<html>workbench</html>');
    expect((await raw('/%2e%2e/secret.txt', { headers: auth })).body).toBe(
      '<html>workbench</html>',
    );
  });

  it('trades the token in the URL for an HttpOnly SameSite=Strict cookie and drops it from the URL', async () => {
    const first = await raw(`/?token=${TOKEN}&view=1`);
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/?view=1');
    const cookie = first.headers['set-cookie']?.[0] ?? '';
    expect(cookie).toBe(`mw_token_${server.port}=${TOKEN}; HttpOnly; SameSite=Strict; Path=/`);
    const jar = { cookie: cookie.split(';')[0] as string };

    expect((await raw('/?view=1', { headers: jar })).body).toBe('<html>workbench</html>');
    const api = await raw('/api/app.info', { method: 'POST', headers: jar, body: '{}' });
    expect(api.status).toBe(200);

    // Without the cookie or with a wrong token the page says how to get in, and sets nothing.
    const bare = await raw('/');
    expect(bare.status).toBe(401);
    expect(bare.body).toContain('Open the URL that `serve` printed');
    const wrong = await raw('/?token=nope');
    expect(wrong.status).toBe(401);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    // Another server's cookie name (another port) is not this server's token.
    const otherPort = await raw('/api/app.info', {
      method: 'POST',
      headers: { cookie: `mw_token_1=${TOKEN}` },
      body: '{}',
    });
    expect(otherPort.status).toBe(401);
  });

  it('forbids framing on every response', async () => {
    const responses = [
      await raw('/', { headers: auth }),
      await raw('/'),
      await raw('/api/app.info', { method: 'POST', headers: auth, body: '{}' }),
      await raw('/api/app.info', { method: 'POST', body: '{}' }),
      await raw('/api/app.info', { method: 'POST', headers: { host: 'evil.example' } }),
    ];
    for (const res of responses) {
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    }
  });

  it('sends a burst of progress events as one frame, before any later event', async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${server.port}/api/events`, {
      headers: auth,
      origin: `http://127.0.0.1:${server.port}`,
    });
    await new Promise((resolve) => socket.once('open', resolve));
    const frames: unknown[] = [];
    const two = new Promise<void>((resolve) =>
      socket.on('message', (data) => {
        frames.push(JSON.parse(String(data)));
        if (frames.length === 2) resolve();
      }),
    );
    const progress = (at: number) => ({
      type: 'progress' as const,
      seq: at,
      event: { type: 'run-cancelled' as const, runId: 'r', at, elapsedMs: 0 },
    });
    server.broadcast(progress(1));
    server.broadcast(progress(2));
    server.broadcast(progress(3));
    // A later event of another kind must not overtake the batch.
    server.broadcast({ type: 'log', level: 'info', message: 'after' });
    await two;
    expect(frames).toEqual([
      [progress(1), progress(2), progress(3)],
      { type: 'log', level: 'info', message: 'after' },
    ]);
    socket.close();
  });

  it('streams events over the WebSocket only with the token and from its own origin', async () => {
    const eventsUrl = `ws://127.0.0.1:${server.port}/api/events`;
    const ownOrigin = `http://127.0.0.1:${server.port}`;
    const good = new WebSocket(eventsUrl, { headers: auth, origin: ownOrigin });
    await new Promise((resolve) => good.once('open', resolve));
    const received = new Promise<string>((resolve) =>
      good.once('message', (data) => resolve(String(data))),
    );
    server.broadcast({ type: 'log', level: 'info', message: 'hello' });
    expect(JSON.parse(await received)).toEqual({ type: 'log', level: 'info', message: 'hello' });
    good.close();

    const byCookie = new WebSocket(eventsUrl, {
      headers: { cookie: `mw_token_${server.port}=${TOKEN}` },
      origin: ownOrigin,
    });
    await new Promise((resolve) => byCookie.once('open', resolve));
    byCookie.close();

    const refused = async (socket: WebSocket): Promise<number> =>
      new Promise((resolve) => {
        socket.once('open', () => resolve(101));
        socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        socket.once('error', () => resolve(-1));
      });
    expect(await refused(new WebSocket(eventsUrl, { origin: ownOrigin }))).toBe(401);
    expect(
      await refused(new WebSocket(eventsUrl, { headers: { authorization: 'Bearer nope' } })),
    ).toBe(401);
    // The token no longer travels in URLs.
    expect(await refused(new WebSocket(`${eventsUrl}?token=${TOKEN}`))).toBe(401);
    // A page on another origin is refused even when the browser sends the cookie along.
    expect(
      await refused(new WebSocket(eventsUrl, { headers: auth, origin: 'http://127.0.0.1:9' })),
    ).toBe(403);
  });

  it('stores 20 concurrent uploads of the same file as one dataset, with no server path in any answer', async () => {
    const content = readFileSync(MINI, 'utf8');
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        raw('/api/datasets.upload', {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ name: 'mini.json', content }),
        }),
      ),
    );
    for (const answer of answers) {
      const body = JSON.parse(answer.body) as { ok: boolean; error?: { message: string } };
      expect(body.error?.message ?? '').not.toContain(root);
      expect(answer.status, answer.body).toBe(200);
    }
    const ids = new Set(answers.map((a) => JSON.parse(a.body).data.datasetId as string));
    expect(ids.size).toBe(1);
    // One stored copy, no temp files left behind.
    expect(readdirSync(join(root, 'datasets'))).toEqual([`${[...ids][0]}.json`]);
  });

  it('opens datasets by path only inside the --dataset-dir folders, and never echoes a file', async () => {
    const shadow = join(root, 'shadow');
    writeFileSync(shadow, 'root:$6$QQsecretQQ:19000:0:99999:7:::\n');
    const refused = await raw('/api/datasets.open', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ path: shadow }),
    });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).error).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringContaining('restart `serve` with --dataset-dir <folder>'),
    });

    const allowed = join(root, 'allowed');
    mkdirSync(allowed);
    writeFileSync(join(allowed, 'shadow'), readFileSync(shadow));
    writeFileSync(join(allowed, 'mini.json'), readFileSync(MINI));
    const browser = createService({ dataDir: root, transport: 'http', datasetDirs: [allowed] });
    const desktop = createService({ dataDir: root, transport: 'electron' });
    try {
      // The page's picker lists what it may open; the desktop app has its own dialog.
      expect(await browser.handlers['datasets.folderFiles']({})).toEqual([
        {
          path: join(allowed, 'mini.json'),
          name: 'mini.json',
          folder: allowed,
          bytes: statSync(MINI).size,
        },
      ]);
      expect(await desktop.handlers['datasets.folderFiles']({})).toEqual([]);
      const opened = await browser.handlers['datasets.open']({ path: join(allowed, 'mini.json') });
      expect(opened).toMatchObject({ name: 'mini.json', path: join(allowed, 'mini.json') });
      await expect(browser.handlers['datasets.open']({ path: shadow })).rejects.toMatchObject({
        code: 'FORBIDDEN',
      });
      const parse = await browser.handlers['datasets.open']({ path: join(allowed, 'shadow') }).then(
        () => null,
        (error: unknown) => error as { code: string; message: string },
      );
      expect(parse?.code).toBe('DATASET_INVALID');
      expect(parse?.message).toBe(
        `${join(allowed, 'shadow')}: not valid JSON at line 1, column 1: expected a value`,
      );
      // The desktop app opens what the user picked in its own dialog, wherever it is.
      await expect(desktop.handlers['datasets.open']({ path: MINI })).resolves.toMatchObject({
        name: 'mini.json',
      });
    } finally {
      await browser.close();
      await desktop.close();
    }
  });
});
