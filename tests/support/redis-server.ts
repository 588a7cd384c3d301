import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/**
 * A throwaway redis-server for tests: 127.0.0.1 only, a free port, no persistence, stopped by the
 * test. Debian's `redis-server` must be installed (.ci/run installs it); without it the tests that
 * need it fail loudly rather than skip.
 */

export interface TestRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export function redisServerAvailable(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** `password`: the server requires it (`requirepass`); the URL stays without it. */
export async function startRedis(options: { password?: string } = {}): Promise<TestRedis> {
  if (!redisServerAvailable()) {
    throw new Error(
      'redis-server is not installed: the distributed sweep tests need it (apt-get install redis-server)',
    );
  }
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    [
      ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      ...(options.password !== undefined ? ['--requirepass', options.password] : []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`redis-server did not start: ${output}`)),
      10_000,
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code}): ${output}`));
    });
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
