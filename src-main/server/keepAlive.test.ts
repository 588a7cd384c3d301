import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createService } from '../core/service';
import { startServer, type RunningServer } from './server';

let server: RunningServer;
let root: string;
const TOKEN = 'test-token-keep-alive';

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mw-keep-alive-'));
  server = await startServer({
    handlers: createService({ dataDir: root, transport: 'http' }).handlers,
    staticDir: root,
    token: TOKEN,
  });
});

afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  reusedSocket: boolean;
}

/** `app.info` through `agent`, as Playwright's request context calls the API: pooled sockets. */
function appInfo(agent: Agent, onSocket?: (socket: Socket) => void): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path: '/api/app.info',
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            reusedSocket: req.reusedSocket,
          }),
        );
      },
    );
    if (onSocket) req.once('socket', onSocket);
    req.on('error', reject);
    req.end('{}');
  });
}

/** Holds this thread, and so the server's event loop (the server runs here), without using a core. */
function blockEventLoop(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

it('answers a call already waiting on a kept-alive socket when a callback held the event loop past the idle timeout', async () => {
  const polling = new Agent({ keepAlive: true, maxSockets: 1 });
  const idle = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const first = await appInfo(polling);
    expect(first.status).toBe(200);
    // The idle time the server announces; its own timer is at least as long.
    const idleSeconds = Number(/timeout=(\d+)/.exec(String(first.headers['keep-alive']))?.[1]);
    expect(idleSeconds).toBeGreaterThan(0);
    let idleSocket: Socket | undefined;
    expect((await appInfo(idle, (socket) => (idleSocket = socket))).status).toBe(200);

    // The next poll goes out on the pooled socket (written to the kernel before the check phase),
    // then a callback holds the loop past the idle timer, as a busy main thread does under load:
    // the timer then runs before the loop reads that poll. Closing a socket with unread bytes
    // resets it, and the client got `read ECONNRESET`.
    const second = appInfo(polling);
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        blockEventLoop(2 * idleSeconds * 1000);
        resolve();
      }),
    );
    const answer = await second;
    expect(answer).toMatchObject({ status: 200, reusedSocket: true });

    // A socket on which nothing came is still closed once idle past the timeout.
    if (!idleSocket) throw new Error('the idle call had no socket');
    if (!idleSocket.destroyed) await once(idleSocket, 'close');
    expect(idleSocket.destroyed).toBe(true);
  } finally {
    polling.destroy();
    idle.destroy();
  }
});
