import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_PASSWORD_ENV } from '../../src-main/core/sweeps/redisAccess';
import { CLI_ARGS, REPO } from '../support/cli';
import { startRedis, type TestRedis } from '../support/redis-server';

/**
 * `cli worker` against a real redis-server that requires a password (127.0.0.1, a free port): a
 * wrong password is a coded error naming the URL without the password, and the worker exits; the
 * right one can come from the environment or a file, so it never appears in the worker's argv.
 */

const PASSWORD = 'correct-horse-battery-staple';
const WRONG = 'wrong-guess-0451';
const mini = join(REPO, 'tests/fixtures/locomo/mini.json');
const root = mkdtempSync(join(tmpdir(), 'workbench-redis-auth-'));
let redis: TestRedis;
const started: ChildProcess[] = [];

beforeAll(async () => {
  redis = await startRedis({ password: PASSWORD });
});
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});
afterAll(async () => {
  await redis?.stop();
  rmSync(root, { recursive: true, force: true });
});

/**
 * A worker with `redisUrl` and `env`; resolves when it exits or says it is ready. A worker that
 * does neither within `waitMs` (the hang this guards against) resolves as `hung`.
 */
function worker(
  redisUrl: string,
  env: NodeJS.ProcessEnv,
  extra: string[] = [],
  waitMs = 60_000,
): Promise<{
  child: ChildProcess;
  code: number | null;
  ready: boolean;
  hung: boolean;
  err: string;
}> {
  const environment = { ...process.env, ...env };
  if (env[REDIS_PASSWORD_ENV] === undefined) delete environment[REDIS_PASSWORD_ENV];
  const child = spawn(
    process.execPath,
    [
      ...CLI_ARGS,
      'worker',
      '--redis',
      redisUrl,
      '--dataset-dir',
      dirname(mini),
      '--data-dir',
      join(root, 'data'),
      ...extra,
    ],
    { cwd: REPO, env: environment, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  started.push(child);
  let err = '';
  return new Promise((resolve) => {
    const timer = setTimeout(
      () => resolve({ child, code: null, ready: false, hung: true, err }),
      waitMs,
    );
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      if (err.includes('worker ready')) {
        clearTimeout(timer);
        resolve({ child, code: null, ready: true, hung: false, err });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ child, code, ready: false, hung: false, err });
    });
  });
}

const withPassword = (password: string): string => {
  const url = new URL(redis.url);
  url.password = password;
  return url.toString();
};

describe('cli worker and the Redis password', () => {
  it('a wrong password from the environment: UNAUTHORIZED naming the URL, and the worker exits', async () => {
    const ended = await worker(redis.url, { [REDIS_PASSWORD_ENV]: WRONG });
    expect(ended.hung, ended.err).toBe(false);
    expect(ended.code).not.toBe(0);
    expect(ended.code).not.toBeNull();
    expect(ended.err).toMatch(/error UNAUTHORIZED: Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+/);
    expect(ended.err).not.toContain('INTERNAL');
    expect(ended.err).not.toContain(WRONG);
  });

  it('a wrong password in the URL: the same error, never the password, and a warning that argv shows it', async () => {
    const ended = await worker(withPassword(WRONG), {});
    expect(ended.hung, ended.err).toBe(false);
    expect(ended.code).not.toBe(0);
    expect(ended.err).toContain('error UNAUTHORIZED');
    expect(ended.err).toContain('visible to every user of this machine');
    expect(ended.err).not.toContain(WRONG);
  });

  it('the right password from the environment: ready, and not in its argv', async () => {
    const ended = await worker(redis.url, { [REDIS_PASSWORD_ENV]: PASSWORD });
    expect(ended.ready, ended.err).toBe(true);
    const argv = readFileSync(`/proc/${ended.child.pid}/cmdline`, 'utf8');
    expect(argv).toContain('worker');
    expect(argv).not.toContain(PASSWORD);
    expect(ended.err).not.toContain(PASSWORD);
    expect(ended.err).not.toContain('visible to every user');
  });

  it('the right password from --redis-password-file (a trailing newline is not part of it)', async () => {
    const file = join(root, 'redis-password');
    writeFileSync(file, `${PASSWORD}\n`, { mode: 0o600 });
    const ended = await worker(redis.url, {}, ['--redis-password-file', file]);
    expect(ended.ready, ended.err).toBe(true);
  });
});
