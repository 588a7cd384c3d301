import { readFileSync } from 'node:fs';
import { WorkbenchError } from '../../../src-shared/errors';
import { errnoCode, errnoReason } from '../system-errors';

/** Only redis:// and rediss:// URLs; the host is the operator's choice (loopback in tests). */
export function parseRedisUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new WorkbenchError('INVALID_INPUT', '--redis: not a URL (expected redis://host:6379)');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `--redis: must be a redis:// or rediss:// URL (got ${parsed.protocol})`,
    );
  }
  return url;
}

/** The URL as it may be printed: any password replaced, so logs do not carry it. */
export function displayRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(invalid URL)';
  }
}

/**
 * The Redis password without putting it on the command line, where every user of the machine
 * reads it (`ps`, /proc/<pid>/cmdline): from this variable, or from a file (`--redis-password-file`).
 */
export const REDIS_PASSWORD_ENV = 'MEMORY_WORKBENCH_REDIS_PASSWORD';

/** How long the first connection and its AUTH may take before the worker gives up on the Redis. */
const FIRST_CONTACT_MS = 10_000;

export interface RedisAccess {
  /** The URL to connect with (the password from the environment or the file put in). */
  url: string;
  /** Said once at start: the password is on the command line. */
  warning: string | null;
}

/**
 * The URL with its password from the environment or a file (one line; a trailing newline is not
 * part of it). A password already in the URL on the command line still works, with a warning: it
 * is visible to every user of the machine for as long as the process runs.
 */
export function redisAccess(
  url: string,
  passwordFile: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): RedisAccess {
  const parsed = new URL(parseRedisUrl(url));
  const fromFlag = parsed.password !== '';
  let password: string | undefined;
  if (passwordFile !== undefined) {
    try {
      password = readFileSync(passwordFile, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      const code = errnoCode(error);
      throw new WorkbenchError(
        'IO',
        `--redis-password-file: cannot read ${passwordFile}: ${code ? errnoReason(code) : String(error)}`,
        { cause: error },
      );
    }
  } else if (env[REDIS_PASSWORD_ENV] !== undefined && env[REDIS_PASSWORD_ENV] !== '') {
    password = env[REDIS_PASSWORD_ENV];
  }
  if (fromFlag && password !== undefined) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `--redis ${displayRedisUrl(url)} has a password and so does ${passwordFile !== undefined ? '--redis-password-file' : `$${REDIS_PASSWORD_ENV}`}: give it once`,
    );
  }
  if (password !== undefined) parsed.password = encodeURIComponent(password);
  return {
    url: parsed.toString(),
    warning: fromFlag
      ? `the Redis password in --redis is visible to every user of this machine (ps, /proc/${process.pid}/cmdline) while this process runs; give it in $${REDIS_PASSWORD_ENV} or --redis-password-file instead`
      : null,
  };
}

/** ioredis's words for a refused AUTH: Redis 6 ACL (WRONGPASS), no AUTH given (NOAUTH), older servers. */
const REFUSED_AUTH = /WRONGPASS|NOAUTH|invalid password|invalid username-password/i;

/**
 * One connection, one PING, then hang up: a wrong password or an unreachable Redis is a coded
 * error naming the URL without its password, at once, instead of BullMQ's endless reconnects.
 */
export async function checkRedisAccess(url: string): Promise<void> {
  const where = displayRedisUrl(url);
  // Loaded here, not at the top: every CLI command imports this file through its help text.
  const { Redis } = await import('ioredis');
  const probe = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    connectTimeout: FIRST_CONTACT_MS,
    retryStrategy: () => null,
  });
  // A refused AUTH arrives here; connect() itself only says that the connection closed.
  let refusal: Error | undefined;
  probe.on('error', (error: Error) => (refusal ??= error));
  try {
    await probe.connect();
    await probe.ping();
  } catch (error) {
    const message = (refusal ?? (error instanceof Error ? error : new Error(String(error))))
      .message;
    if (REFUSED_AUTH.test(message)) {
      throw new WorkbenchError(
        'UNAUTHORIZED',
        `Redis at ${where} refused the credentials (${message.split('\n')[0]}); check the password ($${REDIS_PASSWORD_ENV}, --redis-password-file or the URL) and the user`,
      );
    }
    throw new WorkbenchError('UPSTREAM', `cannot reach Redis at ${where}: ${message}`);
  } finally {
    probe.disconnect();
  }
}
