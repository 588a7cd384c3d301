import { isAbsolute } from 'node:path';
import type { z } from 'zod';
import { WorkbenchError, formatPath } from '../../../../src-shared/errors';
import {
  MEMORY_METHOD_SCHEMAS,
  MEMORY_PROTOCOL,
  type HelloResult,
  type MemoryMethod,
  type MethodParams,
  type MethodResult,
} from '../../../../src-shared/memory-protocol';
import { canonicalJson, sha256Hex } from '../../canonical-hash';
import { withTimeout } from '../../timeout';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  HttpTransport,
  NOT_QUOTED,
  StdioTransport,
  UNIX_SOCKET_PREFIX,
  checkServiceUrl,
  type MemoryTransport,
} from './transport';

/**
 * A typed memory-protocol client over either transport: every request is checked against the
 * protocol's schemas before it is sent and every result after it arrives, so a service that
 * replies garbage fails with an UPSTREAM error naming the method and the bad field.
 */

export interface ServiceEndpoint {
  url?: string | undefined;
  command?: string | undefined;
  /** Allow a non-loopback URL (only the local user may set this). */
  allowRemote?: boolean | undefined;
  maxResponseBytes?: number | undefined;
  /** Working directory of a command (default: this process's). */
  cwd?: string | undefined;
  /** Sent as `Authorization: Bearer <token>` to an HTTP service. */
  token?: string | undefined;
  /** Error messages may quote the service's replies (default true; see HttpTransport). */
  quoteReplies?: boolean | undefined;
}

/** What a run manifest records about the service: its `hello`, and a hash to compare runs by. */
export interface ServiceRecord {
  where: string;
  hello: HelloResult;
  /** sha256 of the canonical JSON of `hello`. */
  sha256: string;
}

/** Deadline for hello, open and close (insert, retrieve and answer use the run's timeouts). */
export const DEFAULT_CONTROL_TIMEOUT_MS = 30_000;

export function openTransport(endpoint: ServiceEndpoint): MemoryTransport {
  const max = endpoint.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  if ((endpoint.url === undefined) === (endpoint.command === undefined)) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      'memory preset "external": give exactly one of url (a running service) or command (a process to start)',
      { path: ['memory', 'config'] },
    );
  }
  const headers: Record<string, string> =
    endpoint.token === undefined ? {} : { authorization: `Bearer ${endpoint.token}` };
  if (endpoint.url !== undefined) {
    if (endpoint.url.startsWith(UNIX_SOCKET_PREFIX)) {
      const socketPath = endpoint.url.slice(UNIX_SOCKET_PREFIX.length);
      if (!isAbsolute(socketPath)) {
        throw new WorkbenchError(
          'INVALID_INPUT',
          `memory service url ${endpoint.url}: a unix socket needs an absolute path (unix:/run/my-memory.sock)`,
          { path: ['memory', 'config', 'url'] },
        );
      }
      return new HttpTransport({ socketPath }, max, headers, endpoint.quoteReplies !== false);
    }
    const url = checkServiceUrl(endpoint.url, endpoint.allowRemote === true);
    return new HttpTransport({ url }, max, headers, endpoint.quoteReplies !== false);
  }
  return new StdioTransport(endpoint.command as string, max, endpoint.cwd);
}

export class MemoryProtocolClient {
  constructor(readonly transport: MemoryTransport) {}

  get where(): string {
    return this.transport.where;
  }

  async call<M extends MemoryMethod>(
    method: M,
    params: MethodParams<M>,
    signal?: AbortSignal,
  ): Promise<MethodResult<M>> {
    const schemas = MEMORY_METHOD_SCHEMAS[method];
    const request = (schemas.params as z.ZodType).safeParse(params);
    if (!request.success) {
      // Our own bug, not the service's: say so.
      throw new WorkbenchError(
        'INTERNAL',
        `memory service ${this.where}: ${method} request does not match the protocol: ${issueText(request.error)}`,
      );
    }
    const raw = await this.transport.call(method, request.data, signal);
    const result = (schemas.result as z.ZodType).safeParse(raw);
    if (!result.success) {
      const quote = this.transport.quoteReplies;
      const issue = result.error.issues[0];
      // The path can hold the reply's own keys: only quoted replies show it.
      const path = quote
        ? (issue?.path ?? []).map((p) => (typeof p === 'symbol' ? String(p) : p))
        : [];
      throw new WorkbenchError(
        'UPSTREAM',
        `memory service ${this.where}: ${method} replied with an invalid result${quote ? `: ${issueText(result.error)}` : ` ${NOT_QUOTED}`}`,
        { where: this.where, path: [method, ...path] },
      );
    }
    return result.data as MethodResult<M>;
  }

  /** `hello` under a deadline, refusing another protocol version. */
  async hello(timeoutMs = DEFAULT_CONTROL_TIMEOUT_MS): Promise<ServiceRecord> {
    const hello = await withTimeout(`memory service ${this.where}: hello`, timeoutMs, (signal) =>
      this.call('hello', { protocol: MEMORY_PROTOCOL }, signal),
    );
    return { where: this.where, hello, sha256: sha256Hex(canonicalJson(hello)) };
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}

function issueText(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
  return `${formatPath(path)}: ${issue.message}`;
}

/**
 * Connects, says hello and hangs up: what a run records before it starts. `timeoutMs` is the
 * config's `controlTimeoutMs`, the same deadline the run's own hellos have.
 */
export async function probeService(
  endpoint: ServiceEndpoint,
  timeoutMs = DEFAULT_CONTROL_TIMEOUT_MS,
): Promise<ServiceRecord> {
  const client = new MemoryProtocolClient(openTransport(endpoint));
  try {
    return await client.hello(timeoutMs);
  } finally {
    await client.close();
  }
}
