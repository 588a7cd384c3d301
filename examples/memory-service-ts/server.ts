/**
 * A reference memory service for Memory Workbench in TypeScript (protocol memory-workbench/1),
 * with nothing but Node: BM25 over turns (bm25.ts), served as JSON lines on stdio (default) or
 * over HTTP on 127.0.0.1 (`--http [--port N]`, prints "listening on http://127.0.0.1:N") or on a
 * unix socket (`--http --socket /path`, prints "listening on unix:/path").
 *
 *   npx tsx examples/memory-service-ts/server.ts            # stdio, for --memory-command
 *   npx tsx examples/memory-service-ts/server.ts --http     # HTTP, for --memory-url
 *
 * The wire types come from the workbench's own schemas (type-only imports, erased at run time).
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import type {
  HelloResult,
  InsertParams,
  OpenParams,
  RetrieveParams,
  RetrieveResult,
} from '../../src-shared/memory-protocol';
import { Bm25Memory } from './bm25';

const PROTOCOL = 'memory-workbench/1';

class ProtocolError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Params = Record<string, unknown>;

class Service {
  private readonly sessions = new Map<string, Bm25Memory>();

  private session(params: Params): Bm25Memory {
    const memory = this.sessions.get(String(params['session']));
    if (!memory)
      throw new ProtocolError('UNKNOWN_SESSION', `no open session ${String(params['session'])}`);
    return memory;
  }

  // Node runs one handler at a time, so concurrent requests need no lock.
  handle(method: string, params: Params): unknown {
    switch (method) {
      case 'hello': {
        if (params['protocol'] !== PROTOCOL)
          throw new ProtocolError('UNSUPPORTED', `this service speaks ${PROTOCOL}`);
        const hello: HelloResult = {
          protocol: PROTOCOL,
          name: 'bm25-ts',
          version: '1.0.0',
          description: 'BM25 over turns (TypeScript reference service)',
          capabilities: { retrieve: true, answer: false, reset: true, snapshot: false },
        };
        return hello;
      }
      case 'open': {
        const { sample_id } = params as unknown as OpenParams;
        if (typeof sample_id !== 'string')
          throw new ProtocolError('INVALID_REQUEST', 'open needs sample_id');
        const session = randomUUID();
        this.sessions.set(session, new Bm25Memory());
        return { session };
      }
      case 'insert': {
        const { packet } = params as unknown as InsertParams;
        if (!packet || !Array.isArray(packet.turns))
          throw new ProtocolError('INVALID_REQUEST', 'insert needs packet.turns');
        this.session(params).insert(packet.turns, packet.date_time ?? null);
        return {};
      }
      case 'retrieve': {
        const { question, top_k } = params as unknown as RetrieveParams;
        const result: RetrieveResult = {
          items: this.session(params).retrieve(String(question), Number(top_k)),
        };
        return result;
      }
      case 'reset':
        this.session(params);
        this.sessions.set(String(params['session']), new Bm25Memory());
        return {};
      case 'close':
        this.sessions.delete(String(params['session']));
        return {};
      default:
        throw new ProtocolError('UNSUPPORTED', `no method ${method}`);
    }
  }

  respond(
    method: string,
    params: unknown,
  ): { result: unknown } | { error: { code: string; message: string } } {
    try {
      if (params === null || typeof params !== 'object')
        throw new ProtocolError('INVALID_REQUEST', 'params must be an object');
      return { result: this.handle(method, params as Params) };
    } catch (error) {
      const code = error instanceof ProtocolError ? error.code : 'SERVICE_ERROR';
      return { error: { code, message: error instanceof Error ? error.message : String(error) } };
    }
  }
}

function serveStdio(service: Service): void {
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (line.trim() === '') return;
    let id: number | null = null;
    let reply: object;
    try {
      const request = JSON.parse(line) as { id: number; method: string; params: unknown };
      id = request.id;
      reply = { id, ...service.respond(request.method, request.params ?? {}) };
    } catch (error) {
      reply = { id, error: { code: 'INVALID_REQUEST', message: String(error) } };
    }
    // stdout carries responses only; logs go to stderr.
    process.stdout.write(`${JSON.stringify(reply)}\n`);
  });
}

function serveHttp(service: Service, listenOn: number | string): void {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const method = (req.url ?? '').split('/').filter(Boolean).pop() ?? '';
      let status = 200;
      let body: unknown;
      try {
        const outcome = service.respond(
          method,
          JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'),
        );
        if ('error' in outcome) {
          status =
            outcome.error.code === 'UNKNOWN_SESSION' || outcome.error.code === 'UNSUPPORTED'
              ? 404
              : 400;
          body = outcome;
        } else body = outcome.result;
      } catch (error) {
        status = 400;
        body = { error: { code: 'INVALID_REQUEST', message: String(error) } };
      }
      const data = JSON.stringify(body);
      res.writeHead(status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(data),
      });
      res.end(data);
    });
  });
  const announce = (): void => {
    const address = server.address();
    process.stdout.write(
      typeof address === 'string'
        ? `listening on unix:${address}\n`
        : `listening on http://127.0.0.1:${address?.port ?? listenOn}\n`,
    );
  };
  // A unix socket path, or a TCP port on loopback only.
  if (typeof listenOn === 'string') server.listen(listenOn, announce);
  else server.listen(listenOn, '127.0.0.1', announce);
}

const args = process.argv.slice(2);
const service = new Service();
const option = (name: string): string | undefined => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
if (args.includes('--http')) {
  const socket = option('--socket');
  serveHttp(service, socket ?? Number(option('--port') ?? 0));
} else serveStdio(service);
