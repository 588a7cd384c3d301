import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { request } from 'node:http';
import { WorkbenchError } from '../../../../src-shared/errors';
import {
  HttpErrorBodySchema,
  StdioResponseSchema,
  type MemoryMethod,
  type ServiceError,
} from '../../../../src-shared/memory-protocol';
import { isLoopbackHostname } from '../../keys';
import { killProcessGroup, spawnServiceChild } from './children';
import { NOT_QUOTED } from '../../trust';

/**
 * The two ways the workbench reaches a memory service (docs/memory-protocol.md): HTTP on a
 * loopback address, or JSON lines on the stdio of a child process it starts. Both move raw JSON;
 * the client (client.ts) validates what they carry. Both cap what they read: a service that
 * streams without end fails its call instead of filling the workbench's memory.
 */
export interface MemoryTransport {
  /** The URL or the command, for messages. */
  readonly where: string;
  /** Whether error messages may quote the service's replies (HttpTransport's `quoteReplies`). */
  readonly quoteReplies: boolean;
  /** The method's raw result; rejects with a coded WorkbenchError. */
  call(method: MemoryMethod, params: unknown, signal?: AbortSignal): Promise<unknown>;
  close(): Promise<void>;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

function serviceFailure(
  where: string,
  method: string,
  error: ServiceError,
  quoteReplies = true,
): WorkbenchError {
  const said = quoteReplies ? `: ${error.code}: ${error.message.slice(0, 500)}` : '';
  return new WorkbenchError('UPSTREAM', `memory service ${where}: ${method} failed${said}`, {
    where,
    path: [method],
  });
}

/**
 * Where a reply is not quoted: says so, so nobody mistakes the silence for an empty reply (one
 * sentence, core/trust.ts, for memory services and LLM endpoints alike).
 */
export { NOT_QUOTED };

function cancelled(where: string, method: string, signal: AbortSignal): WorkbenchError {
  if (signal.reason instanceof WorkbenchError) return signal.reason;
  return new WorkbenchError('CANCELLED', `memory service ${where}: ${method} was cancelled`, {
    where,
  });
}

/** Refuses a URL that is not http on a loopback host, unless the caller allows remote hosts. */
export function checkServiceUrl(raw: string, allowRemote: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WorkbenchError('INVALID_INPUT', `memory service url "${raw}" is not a URL`, {
      path: ['memory', 'config', 'url'],
    });
  }
  if (url.protocol !== 'http:') {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `memory service url ${raw}: only http:// is supported (the service runs on this machine)`,
      { path: ['memory', 'config', 'url'] },
    );
  }
  if (!allowRemote && !isLoopbackHostname(url.hostname)) {
    throw new WorkbenchError(
      'FORBIDDEN',
      `memory service url ${raw}: ${url.hostname} is not a loopback address (127.0.0.0/8, ::1, localhost); conversations would leave this machine unencrypted. Set memory.config.allowRemote (CLI: --memory-allow-remote) to allow it`,
      { path: ['memory', 'config', 'url'] },
    );
  }
  return url;
}

/** `unix:/path/to/socket`: HTTP over a unix domain socket, local by construction. */
export const UNIX_SOCKET_PREFIX = 'unix:';

/** Where an HTTP service listens: a loopback URL, or a unix socket (then `POST /<method>`). */
export type HttpTarget = { url: URL } | { socketPath: string };

/** `POST <base>/<method>` with the params as the JSON body. */
export class HttpTransport implements MemoryTransport {
  readonly where: string;
  private readonly base: URL;
  private readonly socketPath: string | undefined;

  constructor(
    target: HttpTarget,
    private readonly maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES,
    /** Sent with every request (a bearer token); never part of a message. */
    private readonly headers: Readonly<Record<string, string>> = {},
    /**
     * Error messages may quote what the service replied (core/trust.ts `isLocalUser`). A config
     * from the network may not: its URL could name any local service, whose reply is not its own.
     */
    readonly quoteReplies = true,
  ) {
    if ('socketPath' in target) {
      this.socketPath = target.socketPath;
      this.base = new URL('http://localhost/');
      this.where = `${UNIX_SOCKET_PREFIX}${target.socketPath}`;
    } else {
      const { url } = target;
      this.base = new URL(url.href.endsWith('/') ? url.href : `${url.href}/`);
      this.where = url.href;
    }
  }

  call(method: MemoryMethod, params: unknown, signal?: AbortSignal): Promise<unknown> {
    const where = this.where;
    const quoteReplies = this.quoteReplies;
    const target = new URL(method, this.base);
    const socket = this.socketPath === undefined ? {} : { socketPath: this.socketPath };
    const body = Buffer.from(JSON.stringify(params));
    return new Promise<unknown>((resolve, reject) => {
      if (signal?.aborted) {
        reject(cancelled(where, method, signal));
        return;
      }
      let done = false;
      const finish = (fn: () => void): void => {
        if (done) return;
        done = true;
        signal?.removeEventListener('abort', onAbort);
        fn();
      };
      const req = request(target, {
        ...socket,
        method: 'POST',
        headers: {
          ...this.headers,
          'content-type': 'application/json',
          'content-length': body.length,
        },
      });
      function onAbort(): void {
        req.destroy();
        finish(() => reject(cancelled(where, method, signal as AbortSignal)));
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      req.on('error', (error: NodeJS.ErrnoException) =>
        finish(() =>
          reject(
            new WorkbenchError(
              'UPSTREAM',
              `memory service ${where}: ${method}: cannot reach the service (${error.code ?? error.message})`,
              { where, path: [method] },
            ),
          ),
        ),
      );
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > this.maxResponseBytes) {
            res.destroy();
            req.destroy();
            finish(() =>
              reject(
                new WorkbenchError(
                  'UPSTREAM',
                  `memory service ${where}: ${method}: response larger than ${this.maxResponseBytes} bytes`,
                  { where, path: [method] },
                ),
              ),
            );
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', () => undefined);
        res.on('end', () =>
          finish(() => {
            const text = Buffer.concat(chunks).toString('utf8');
            let value: unknown;
            try {
              value = JSON.parse(text);
            } catch {
              reject(
                new WorkbenchError(
                  'UPSTREAM',
                  `memory service ${where}: ${method}: HTTP ${res.statusCode}, body is not JSON${quoteReplies ? `: ${JSON.stringify(text.slice(0, 200))}` : ` ${NOT_QUOTED}`}`,
                  { where, path: [method] },
                ),
              );
              return;
            }
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) {
              resolve(value);
              return;
            }
            const coded = HttpErrorBodySchema.safeParse(value);
            reject(
              coded.success
                ? serviceFailure(where, method, coded.data.error, quoteReplies)
                : new WorkbenchError(
                    'UPSTREAM',
                    `memory service ${where}: ${method}: HTTP ${status} without an {"error": {code, message}} body`,
                    { where, path: [method] },
                  ),
            );
          }),
        );
      });
      req.end(body);
    });
  }

  async close(): Promise<void> {
    // Nothing held: each call is its own request.
  }
}

/**
 * Splits a command line into argv without a shell (no globbing, no variables, no `;`): quotes
 * group words, a backslash escapes the next character.
 */
export function splitCommand(command: string): string[] {
  const out: string[] = [];
  let current = '';
  let quote: '"' | "'" | null = null;
  let started = false;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i] as string;
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === '\\' && quote === '"' && i + 1 < command.length) current += command[++i];
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      started = true;
    } else if (ch === '\\' && i + 1 < command.length) {
      current += command[++i];
      started = true;
    } else if (/\s/.test(ch)) {
      if (started) out.push(current);
      current = '';
      started = false;
    } else {
      current += ch;
      started = true;
    }
  }
  if (quote) {
    throw new WorkbenchError('INVALID_INPUT', `memory service command has an unclosed ${quote}`, {
      path: ['memory', 'config', 'command'],
    });
  }
  if (started) out.push(current);
  if (out.length === 0) {
    throw new WorkbenchError('INVALID_INPUT', 'memory service command is empty', {
      path: ['memory', 'config', 'command'],
    });
  }
  return out;
}

interface Pending {
  method: string;
  resolve(value: unknown): void;
  reject(error: WorkbenchError): void;
}

/** Bytes of the child's stderr kept for error messages. */
const STDERR_TAIL = 2000;

/**
 * A child process speaking JSON lines: one request per line on its stdin, one response per line
 * on its stdout (anything it logs goes to stderr). Requests carry ids, so a late answer to a
 * timed-out call is recognised and dropped.
 */
export class StdioTransport implements MemoryTransport {
  readonly where: string;
  /** Only a caller allowed to start the process gets here: it is the operator's own program. */
  readonly quoteReplies = true;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private buffer = '';
  private stderrTail = '';
  private exited: WorkbenchError | null = null;
  private readonly exit: Promise<void>;

  constructor(
    command: string,
    private readonly maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES,
    cwd?: string,
  ) {
    const argv = splitCommand(command);
    this.where = `command "${command}"`;
    this.child = spawnServiceChild(argv, cwd);
    this.child.stdout.setEncoding('utf8');
    this.child.stderr.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => this.onData(chunk));
    this.child.stderr.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL);
    });
    // A closed stdin (the child died) surfaces through 'exit'; without a listener it would throw.
    this.child.stdin.on('error', () => undefined);
    this.exit = new Promise<void>((resolve) => {
      const onGone = (reason: string): void => {
        if (!this.exited) {
          const tail = this.stderrTail.trim();
          this.exited = new WorkbenchError(
            'UPSTREAM',
            `memory service ${this.where} ${reason}${tail ? `; its stderr ends: ${tail.slice(-500)}` : ''}`,
            { where: this.where },
          );
        }
        this.failAll(this.exited);
        resolve();
      };
      this.child.on('error', (error: NodeJS.ErrnoException) =>
        onGone(`could not be started (${error.code ?? error.message})`),
      );
      this.child.on('close', (code, sig) =>
        onGone(sig ? `was killed by ${sig}` : `exited with code ${code}`),
      );
    });
  }

  private failAll(error: WorkbenchError): void {
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
  }

  private fail(error: WorkbenchError): void {
    this.exited ??= error;
    this.failAll(error);
    this.kill();
  }

  /** The child and anything it started (its own process group). */
  private kill(): void {
    if (this.child.pid !== undefined) killProcessGroup(this.child.pid);
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    for (let nl = this.buffer.indexOf('\n'); nl >= 0; nl = this.buffer.indexOf('\n')) {
      const line = this.buffer.slice(0, nl).trim();
      this.buffer = this.buffer.slice(nl + 1);
      if (line !== '') this.onLine(line);
    }
    if (this.buffer.length > this.maxResponseBytes) {
      this.fail(
        new WorkbenchError(
          'UPSTREAM',
          `memory service ${this.where}: a response line is longer than ${this.maxResponseBytes} bytes`,
          { where: this.where },
        ),
      );
    }
  }

  private onLine(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.fail(
        new WorkbenchError(
          'UPSTREAM',
          `memory service ${this.where}: stdout line is not JSON (log to stderr instead): ${JSON.stringify(line.slice(0, 200))}`,
          { where: this.where },
        ),
      );
      return;
    }
    const parsed = StdioResponseSchema.safeParse(value);
    if (!parsed.success) {
      this.fail(
        new WorkbenchError(
          'UPSTREAM',
          `memory service ${this.where}: stdout line is neither {"id", "result"} nor {"id", "error"}: ${JSON.stringify(line.slice(0, 200))}`,
          { where: this.where },
        ),
      );
      return;
    }
    const message = parsed.data;
    if (message.id === null) {
      if (message.error) this.fail(serviceFailure(this.where, 'request', message.error));
      return;
    }
    const pending = this.pending.get(message.id);
    // A late answer to a call that timed out: its caller has moved on.
    if (!pending) return;
    this.pending.delete(message.id);
    if (message.error) pending.reject(serviceFailure(this.where, pending.method, message.error));
    else pending.resolve(message.result);
  }

  call(method: MemoryMethod, params: unknown, signal?: AbortSignal): Promise<unknown> {
    if (this.exited) return Promise.reject(this.exited);
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      if (signal?.aborted) {
        reject(cancelled(this.where, method, signal));
        return;
      }
      const onAbort = (): void => {
        this.pending.delete(id);
        reject(cancelled(this.where, method, signal as AbortSignal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        method,
        resolve: (v) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(v);
        },
        reject: (e) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      });
      this.child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
    });
  }

  /** Ends stdin (a well-behaved service exits on EOF); kills the child if it lingers. */
  async close(): Promise<void> {
    if (!this.exited) this.exited = new WorkbenchError('CANCELLED', `${this.where}: closed`);
    this.child.stdin.end();
    const timer = setTimeout(() => this.kill(), 2000);
    await this.exit;
    clearTimeout(timer);
  }
}
