import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ApiEvent, ApiHandlers } from '../../src-shared/api';
import { HTTP_ROUTES } from '../../src-shared/channels';
import type { Result } from '../../src-shared/errors';
import { dispatchJson, type SerializedHandlers } from '../core/dispatch';

/** Progress events broadcast within this window share one WebSocket frame (a JSON array). */
export const PROGRESS_BATCH_MS = 50;

export interface ServerOptions {
  handlers: ApiHandlers;
  /** Methods answered with JSON bytes serialised off the main thread (Service.serialized). */
  serialized?: SerializedHandlers;
  /** Folder of the built renderer (index.html + assets). */
  staticDir: string;
  port?: number;
  /** Fixed token for tests; a fresh random one per launch otherwise. */
  token?: string;
  maxBodyBytes?: number;
}

export interface RunningServer {
  url: string;
  port: number;
  token: string;
  broadcast(event: ApiEvent): void;
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

const DEFAULT_MAX_BODY = 300 * 1024 * 1024;
const COOKIE_PREFIX = 'mw_token_';

/**
 * The browser-mode transport: the same API as Electron IPC, over HTTP + WebSocket, bound to
 * 127.0.0.1 only and guarded by a per-launch token (a bearer header, or an HttpOnly cookie set
 * from the printed URL on the first load), a Host check against DNS rebinding, an Origin check
 * against other pages in the same browser, and headers that forbid framing.
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const token = options.token ?? randomBytes(24).toString('hex');
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const staticRoot = resolve(options.staticDir);
  let port = 0;
  let cookieName = COOKIE_PREFIX;

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      sendJson(res, 500, {
        ok: false,
        error: {
          code: 'INTERNAL',
          message: error instanceof Error ? error.message : String(error),
        },
      });
    });
  });

  // Node closes a kept-alive socket when its idle timer fires. After a callback held the event loop
  // past that timer (the main thread at load 18), timers run before the loop reads a call the
  // client already sent on the socket, and closing a socket with unread bytes resets it: the
  // client's poll failed with `read ECONNRESET` (nodejs/node#43456). So a timed-out socket is
  // closed a turn later, after the loop has read what waits on it, and only if nothing came.
  // A 'timeout' listener makes the server the owner of that close; it sets no other socket timer.
  server.on('timeout', (socket: Socket) => {
    const bytesRead = socket.bytesRead;
    setImmediate(() => {
      if (socket.bytesRead === bytesRead) socket.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const host = allowedHost(req.headers.host, port);
    setSecurityHeaders(res, host);
    if (host === null) {
      sendJson(res, 403, { ok: false, error: { code: 'FORBIDDEN', message: 'Forbidden host' } });
      return;
    }
    const url = new URL(req.url ?? '/', `http://${host}`);
    const pathname = decodePath(url.pathname);
    if (pathname === null) {
      sendJson(res, 400, {
        ok: false,
        error: { code: 'INVALID_INPUT', message: 'Malformed percent-encoding in the request path' },
      });
      return;
    }
    if (pathname.startsWith(HTTP_ROUTES.apiPrefix)) {
      if (!originAllowed(req.headers.origin, host)) {
        sendJson(res, 403, {
          ok: false,
          error: { code: 'FORBIDDEN', message: 'Forbidden origin' },
        });
        return;
      }
      if (!tokenMatches(requestToken(req, cookieName), token)) {
        sendJson(res, 401, {
          ok: false,
          error: { code: 'UNAUTHORIZED', message: 'Missing or wrong API token' },
        });
        return;
      }
      if (req.method !== 'POST') {
        sendJson(res, 405, { ok: false, error: { code: 'INVALID_INPUT', message: 'Use POST' } });
        return;
      }
      const name = pathname.slice(HTTP_ROUTES.apiPrefix.length);
      const body = await readBody(req, maxBody);
      if (!body.ok) {
        sendJson(res, 413, body);
        return;
      }
      let input: unknown;
      try {
        input = body.data.length === 0 ? {} : JSON.parse(body.data);
      } catch {
        sendJson(res, 400, {
          ok: false,
          error: { code: 'INVALID_INPUT', message: `API ${name}: request body is not JSON` },
        });
        return;
      }
      const reply = await dispatchJson(options.handlers, options.serialized ?? {}, name, input);
      sendBody(res, reply.result.ok ? 200 : statusFor(reply.result.error.code), reply.body);
      return;
    }
    const urlToken = url.searchParams.get('token');
    if (urlToken !== null) {
      if (!tokenMatches(urlToken, token)) {
        sendUnauthorizedPage(res);
        return;
      }
      // First load: trade the token in the URL for a cookie, so it leaves the address bar,
      // the history and any Referer; the fragment (#/runs) survives the redirect.
      url.searchParams.delete('token');
      res.writeHead(303, {
        'set-cookie': `${cookieName}=${token}; HttpOnly; SameSite=Strict; Path=/`,
        location: `${url.pathname}${url.search}`,
      });
      res.end();
      return;
    }
    if (!tokenMatches(requestToken(req, cookieName), token)) {
      sendUnauthorizedPage(res);
      return;
    }
    serveStatic(pathname, res);
  }

  function serveStatic(pathname: string, res: ServerResponse): void {
    const relative = normalize(pathname).replace(/^([/\\])+/, '');
    let file = join(staticRoot, relative);
    if (!file.startsWith(staticRoot + sep) && file !== staticRoot) {
      res.writeHead(404).end();
      return;
    }
    // A single-page app: unknown paths fall back to index.html.
    if (!existsSync(file) || statSync(file).isDirectory()) file = join(staticRoot, 'index.html');
    if (!existsSync(file)) {
      res
        .writeHead(503, { 'content-type': 'text/plain' })
        .end('The renderer is not built. Run `npm run build` first.');
      return;
    }
    res.writeHead(200, {
      'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-store',
    });
    createReadStream(file).pipe(res);
  }

  const sockets = new Set<WebSocket>();
  const wss = new WebSocketServer({ noServer: true });
  // Progress events go out as one JSON array per PROGRESS_BATCH_MS: a LoCoMo run sends ~15,000,
  // and a frame each kept the page's renderer busy on the cores the run needs.
  let progressBatch: string[] = [];
  let progressTimer: ReturnType<typeof setTimeout> | undefined;
  const flushProgress = (): void => {
    clearTimeout(progressTimer);
    progressTimer = undefined;
    if (progressBatch.length === 0) return;
    const frame = `[${progressBatch.join(',')}]`;
    progressBatch = [];
    for (const ws of sockets) ws.send(frame);
  };
  server.on('upgrade', (req, socket, head) => {
    const host = allowedHost(req.headers.host, port);
    const refuse = (status: string): void => {
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    // A page on another origin (another local server, a DNS-rebound name) must not listen in.
    if (host === null || !originAllowed(req.headers.origin, host)) {
      refuse('403 Forbidden');
      return;
    }
    const url = new URL(req.url ?? '/', `http://${host}`);
    if (url.pathname !== HTTP_ROUTES.events) {
      refuse('404 Not Found');
      return;
    }
    if (!tokenMatches(requestToken(req, cookieName), token)) {
      refuse('401 Unauthorized');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws);
      ws.on('close', () => sockets.delete(ws));
    });
  });

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolveListen());
  });
  port = (server.address() as AddressInfo).port;
  // Cookies are not scoped by port: the port in the name keeps two servers from overwriting
  // each other's token.
  cookieName = `${COOKIE_PREFIX}${port}`;

  return {
    port,
    token,
    url: `http://127.0.0.1:${port}/?token=${token}`,
    broadcast(event) {
      const message = JSON.stringify(event);
      if (event.type === 'progress') {
        progressBatch.push(message);
        progressTimer ??= setTimeout(flushProgress, PROGRESS_BATCH_MS);
        return;
      }
      flushProgress();
      for (const ws of sockets) ws.send(message);
    },
    close: () =>
      new Promise<void>((resolveClose) => {
        flushProgress();
        for (const ws of sockets) ws.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}

/** The request's Host when it names this server (a check against DNS rebinding), else null. */
function allowedHost(host: string | undefined, port: number): string | null {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}` ? host : null;
}

/**
 * Browsers send Origin on cross-origin requests and on every WebSocket handshake; it must be the
 * page this server served. Clients that send none (the CLI, scripts) are not browsers and still
 * need the token.
 */
function originAllowed(origin: string | undefined, host: string): boolean {
  return origin === undefined || origin === `http://${host}`;
}

function setSecurityHeaders(res: ServerResponse, host: string | null): void {
  const socketSource = host === null ? '' : ` ws://${host}`;
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader(
    'content-security-policy',
    [
      "default-src 'self'",
      "script-src 'self'",
      // React and the chart library set inline style attributes.
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data: blob:",
      "font-src 'self' data:",
      `connect-src 'self'${socketSource}`,
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'self'",
      "frame-ancestors 'none'",
    ].join('; '),
  );
}

function decodePath(pathname: string): string | null {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return null;
  }
}

/** The bearer header (CLI, scripts, tests) or the cookie set on the first page load (browser). */
function requestToken(req: IncomingMessage, cookieName: string): string | null {
  const header = req.headers.authorization;
  if (header?.startsWith('Bearer ')) return header.slice('Bearer '.length);
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === cookieName) return part.slice(eq + 1).trim();
  }
  return null;
}

function tokenMatches(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function sendUnauthorizedPage(res: ServerResponse): void {
  res
    .writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
    .end(
      'Memory Workbench: this page needs the access token. Open the URL that `serve` printed ' +
        '(http://127.0.0.1:<port>/?token=…) in this browser.\n',
    );
}

function readBody(req: IncomingMessage, limit: number): Promise<Result<string>> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        tooLarge = true;
        chunks.length = 0;
        return;
      }
      if (!tooLarge) chunks.push(chunk);
    });
    req.on('end', () => {
      if (tooLarge) {
        resolveBody({
          ok: false,
          error: {
            code: 'INVALID_INPUT',
            message: `Request body is larger than ${Math.round(limit / 1024 / 1024)} MB`,
          },
        });
      } else {
        resolveBody({ ok: true, data: Buffer.concat(chunks).toString('utf8') });
      }
    });
    req.on('error', reject);
  });
}

function statusFor(code: string): number {
  switch (code) {
    case 'INVALID_INPUT':
    case 'DATASET_INVALID':
    case 'DATASET_TOO_LARGE':
      return 400;
    case 'UNAUTHORIZED':
      return 401;
    case 'FORBIDDEN':
      return 403;
    case 'NOT_FOUND':
      return 404;
    case 'CONFLICT':
      return 409;
    case 'BUSY':
      return 503;
    default:
      return 500;
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  sendBody(res, status, [JSON.stringify(body)]);
}

/** A JSON body written piece by piece: a large pre-serialised result is never copied again. */
function sendBody(res: ServerResponse, status: number, body: Array<string | Uint8Array>): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
  });
  for (const chunk of body) res.write(chunk);
  res.end();
}
