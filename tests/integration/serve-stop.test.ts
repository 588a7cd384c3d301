import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVE_STOP_GRACE_MS } from '../../src-main/cli/commands/serve';
import { runCli, CLI_ARGS, REPO } from '../support/cli';

/**
 * `cli serve` ends on its first SIGTERM in the state that once ignored it: a judge rescore in
 * flight against an endpoint that accepts the connection and never answers. The server closed,
 * but the rescore's retries kept the process alive (the e2e suite left such a server running);
 * only a second SIGTERM ended it.
 */

const root = mkdtempSync(join(tmpdir(), 'workbench-serve-stop-'));
const dataDir = join(root, 'data');
const mini = join(REPO, 'tests/fixtures/locomo/mini.json');
let silent: Server;
const connections: Socket[] = [];
let serve: ChildProcess | undefined;

beforeAll(async () => {
  // A run for the rescore, in the data folder serve will use.
  const made = await runCli([
    'experiment',
    '--data',
    mini,
    '--samples',
    'mini-1',
    '--data-dir',
    dataDir,
    '--runs-db',
    join(dataDir, 'runs.db'),
    '--json',
  ]);
  expect(made.code, made.err).toBe(0);
  // An LLM endpoint that takes the request and never replies.
  silent = createServer((socket) => connections.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  if (serve?.exitCode === null && serve.signalCode === null) serve.kill('SIGKILL');
  for (const socket of connections) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

describe('serve stops on the first SIGTERM', () => {
  it('with a judge rescore in flight against an endpoint that never answers', async () => {
    const child = spawn(
      process.execPath,
      [...CLI_ARGS, 'serve', '--port', '0', '--data-dir', dataDir],
      { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    serve = child;
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const url = await new Promise<URL>((resolve, reject) => {
      child.stdout?.on('data', () => {
        const match = /serving at (\S+)/.exec(out);
        if (match) resolve(new URL(match[1] as string));
      });
      void exited.then(() => reject(new Error(`serve exited early:\n${out}`)));
    });
    const call = (name: string, input: unknown): Promise<Response> =>
      fetch(`${url.origin}/api/${name}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${url.searchParams.get('token') ?? ''}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(input),
      });
    const listed = (await (await call('runs.list', {})).json()) as {
      data: Array<{ id: string }>;
    };
    const runId = listed.data[0]?.id;
    expect(runId, JSON.stringify(listed)).toBeDefined();
    const port = (silent.address() as { port: number }).port;
    const rescore = call('runs.rescore', {
      runId,
      judge: { baseUrl: `http://127.0.0.1:${port}/v1`, model: 'never-answers', timeoutMs: 600_000 },
    }).catch(() => null);
    // The judge's first request has reached the endpoint: the rescore is in flight.
    for (let i = 0; i < 600 && connections.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(connections.length, out).toBeGreaterThan(0);

    child.kill('SIGTERM');
    const ended = await Promise.race([
      exited,
      // Well past the stop's own grace: before, it never ended by itself.
      new Promise<null>((r) => setTimeout(() => r(null), SERVE_STOP_GRACE_MS * 4)),
    ]);
    expect(ended, `serve still running after one SIGTERM:\n${out}`).not.toBeNull();
    expect(ended?.code, out).toBe(0);
    await rescore;
  });
});
