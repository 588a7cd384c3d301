import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

/**
 * The reference memory services (examples/) as real processes, and a misbehaving HTTP service on
 * 127.0.0.1 for the failure paths. Ports are ephemeral; every process is killed by `stop`.
 */

const repo = fileURLToPath(new URL('../../', import.meta.url));
/** Debian's python3: standard library only, like a user's plain install. */
export const PYTHON = '/usr/bin/python3';
export const PYTHON_SERVICE = `${repo}examples/memory-service-python/memory_service.py`;
export const TS_SERVICE = `${repo}examples/memory-service-ts/server.ts`;
export const pythonCommand = `${PYTHON} ${PYTHON_SERVICE}`;
export const tsCommand = `${process.execPath} --import tsx ${TS_SERVICE}`;

export interface RunningService {
  url: string;
  stop(): Promise<void>;
}

/** Starts a reference service with --http and waits for its "listening on <url>" line. */
export function startHttpService(
  command: string[],
  extraArgs: string[] = [],
): Promise<RunningService> {
  const child: ChildProcess = spawn(
    command[0] as string,
    [...command.slice(1), '--http', ...extraArgs],
    {
      cwd: repo,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`service did not start: ${stderr}`)), 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+|unix:\S+)/.exec(out);
      if (!match) return;
      clearTimeout(timer);
      resolve({
        url: match[1] as string,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code}: ${stderr}`));
    });
  });
}

export type Handler = (
  method: string,
  params: Record<string, unknown>,
  headers: IncomingMessage['headers'],
) => unknown;

/**
 * A protocol service whose replies the test writes: `handler` returns the raw reply body (an object
 * with an `error` key goes out with status 404).
 */
export async function startFakeService(
  handler: Handler,
): Promise<RunningService & { calls: string[] }> {
  const calls: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const method = (req.url ?? '').split('/').pop() ?? '';
      calls.push(method);
      const reply = handler(
        method,
        JSON.parse(Buffer.concat(chunks).toString() || '{}'),
        req.headers,
      );
      const body = typeof reply === 'string' ? reply : JSON.stringify(reply);
      // A coded error goes out as the protocol says: a non-2xx status with {error: {code, message}}.
      const coded = typeof reply === 'object' && reply !== null && 'error' in reply;
      res.writeHead(coded ? 404 : 200, { 'content-type': 'application/json' });
      res.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A well-formed hello for fakes. */
export const FAKE_HELLO = {
  protocol: 'memory-workbench/1',
  name: 'fake',
  version: '0.0.1',
  capabilities: { retrieve: true, answer: false, reset: false, snapshot: false },
};
