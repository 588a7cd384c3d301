import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenAI-compatible server for tests, running inside the test process on 127.0.0.1 (port 0).
 *
 * - Routes are a table keyed by `METHOD /path`; `/v1/embeddings` and `/v1/chat/completions` are
 *   built in, and `route()` adds or replaces one. Handlers return plain data, never touch the
 *   socket, so faults can be layered on any route.
 * - Every request is logged (`requests`) with lowercased headers and the parsed body, faulted or
 *   not, so tests can assert batching, retries and headers.
 * - Faults are queued with `setFault(fault, {times, path})` and consumed one per matching request,
 *   in order: a 429 with Retry-After, any status, a hang past the client's timeout, malformed JSON,
 *   a wrong number of embeddings, a dropped connection, a delay, or any transform of the response.
 *
 * Embeddings are deterministic: `fakeEmbedding(text, dim)` seeds a PRNG with a hash of the text, so
 * a test can compute the vector the server will return.
 *
 * Chat completions are deterministic too: `options.chat` scripts the reply, and without it
 * `defaultChatReply` answers like a very literal model (see there). Usage counts whitespace words.
 */

export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  /** Lowercased header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** Parsed JSON, or the raw text when the body is not JSON. */
  body: unknown;
  rawBody: string;
  /** Milliseconds since the server started. */
  at: number;
}

export interface RouteResponse {
  status?: number;
  headers?: Record<string, string>;
  /** Sent as JSON unless `text` is given. */
  json?: unknown;
  text?: string;
}

export type RouteHandler = (request: RecordedRequest) => RouteResponse | Promise<RouteResponse>;

export type Fault =
  /** Any status with an optional body (a function sees the request: e.g. echo its headers). */
  | {
      kind: 'status';
      status: number;
      body?: string | ((request: RecordedRequest) => string);
      headers?: Record<string, string>;
    }
  /** 429 with `Retry-After` (seconds, or an HTTP date string) unless `retryAfter` is null. */
  | { kind: 'rateLimit'; retryAfter?: number | string | null }
  /** Accept the request and never answer (until `close()`). */
  | { kind: 'hang' }
  /** Destroy the socket without a response. */
  | { kind: 'drop' }
  /** Answer normally after `ms`. */
  | { kind: 'delay'; ms: number }
  /** 200 with a body that is not JSON. */
  | { kind: 'malformedJson' }
  /** The route's answer with its `data` array one item short (or `delta` items off). */
  | { kind: 'wrongCount'; delta?: number }
  /** A chat completion whose `choices` array is empty. */
  | { kind: 'emptyChoices' }
  /**
   * 200 with a JSON-looking body of `bytes` bytes, streamed in `chunkBytes` pieces with backpressure
   * (never allocated whole), chunked unless `contentLength` declares the size up front. How much
   * was written before the client hung up is logged in `streams`.
   */
  | { kind: 'hugeBody'; bytes: number; chunkBytes?: number; contentLength?: boolean }
  /** Any change to the route's answer. */
  | { kind: 'transform'; fn: (response: RouteResponse, request: RecordedRequest) => RouteResponse };

export interface FaultOptions {
  /** How many matching requests this fault applies to (default 1; Infinity for all). */
  times?: number;
  /** Only requests to this path (e.g. `/v1/embeddings`); default any path. */
  path?: string;
}

export interface FakeOpenAIServerOptions {
  /** Embedding size when the request does not ask for `dimensions`. Default 8. */
  dim?: number;
  /** When set, requests must carry `Authorization: Bearer <apiKey>` or get 401. */
  apiKey?: string;
  /** Extra or replacement routes, keyed `METHOD /path`. */
  routes?: Record<string, RouteHandler>;
  /** Scripts chat replies: the assistant's content (or a whole response). Default `defaultChatReply`. */
  chat?: ChatScript;
}

export interface FakeChatMessage {
  role: string;
  content: string;
}

export interface FakeChatRequest {
  model: string;
  messages: FakeChatMessage[];
  seed?: number;
  temperature?: number;
  max_tokens?: number;
}

export type ChatScript = (
  chat: FakeChatRequest,
  request: RecordedRequest,
) => string | RouteResponse | Promise<string | RouteResponse>;

const NOT_MENTIONED = 'Not mentioned in the conversation';

/**
 * A very literal model, enough to drive answerers and the judge end to end:
 * - judge prompts (the last `Gold answer:` / `Generated answer:`): `{"label":"CORRECT"}` when the generated
 *   answer contains the gold one (case-insensitive), else WRONG, with a one-line reason;
 * - two-option questions: the letter of "Not mentioned in the conversation", as `(a)` or `(b)`;
 * - LoCoMo batch prompts: a JSON dictionary answering each numbered question as above;
 * - answer prompts: the text of the first memory line (LoCoMo `CONVERSATION:` blocks, or Mem0
 *   `date: Speaker: text` lines), without its speaker; `unknown` when there are no memories.
 */
/** The opening of LoCoMo's QA_PROMPT_BATCH. */
const BATCH_MARK = 'write short answers for each of the following questions';

export function defaultChatReply(chat: FakeChatRequest): string {
  const content = chat.messages.at(-1)?.content ?? '';
  // The last ones: Mem0's judge prompt has an example "Gold answer:" line before the real one.
  const gold = [...content.matchAll(/^Gold answer: (.*)$/gm)].at(-1)?.[1];
  const generated = [...content.matchAll(/^Generated answer: (.*)$/gm)].at(-1)?.[1];
  if (gold !== undefined && generated !== undefined) {
    const correct = generated.toLowerCase().includes(gold.trim().toLowerCase());
    return JSON.stringify({
      label: correct ? 'CORRECT' : 'WRONG',
      reason: correct ? 'The answer contains the gold answer.' : 'The answer misses the gold.',
    });
  }
  const lines = content.split('\n');
  // LoCoMo's batch prompt: a JSON dictionary, each numbered question answered as if alone.
  if (content.includes(BATCH_MARK)) {
    const firstTurn = lines[lines.indexOf('CONVERSATION:') + 1] ?? '';
    const answers: Record<string, string> = {};
    for (const line of lines) {
      const numbered = /^(\d+): (.*)$/.exec(line);
      if (!numbered) continue;
      const choice = /\(a\) (.*?) \(b\) (.*?)\.\s*$/.exec(numbered[2] ?? '');
      answers[numbered[1] as string] = choice
        ? choice[1] === NOT_MENTIONED
          ? '(a)'
          : '(b)'
        : firstTurn.replace(/^[^:]+: /, '').trim() || 'unknown';
    }
    return JSON.stringify(answers);
  }
  const options = /\(a\) (.*?) \(b\) (.*?)\.\s*(?:Short answer:|$)/m.exec(content);
  if (options) return options[1] === NOT_MENTIONED ? '(a)' : '(b)';
  const block = lines.indexOf('CONVERSATION:');
  let memory = block >= 0 ? lines[block + 1] : undefined;
  if (memory === undefined) {
    const start = lines.findIndex((l) => l.startsWith('Memories for user'));
    memory = lines.slice(start + 1).find((l) => /^[^:]+ on [^:]+: /.test(l) || /^\d/.test(l));
    if (memory !== undefined) memory = memory.replace(/^.*? \d{4}: /, '');
  }
  if (memory === undefined || memory.trim() === '') return 'unknown';
  return memory.replace(/^[^:]+: /, '').trim();
}

const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;

/** `POST /v1/chat/completions`: validates the basics, answers with the script's reply. */
function chatRoute(script: ChatScript): RouteHandler {
  return async (request) => {
    const body = request.body as Partial<FakeChatRequest> | null;
    if (body === null || typeof body !== 'object')
      return openAIError(400, 'body must be a JSON object');
    if (typeof body.model !== 'string' || body.model === '')
      return openAIError(400, "'model' is required");
    const messages = body.messages;
    if (
      !Array.isArray(messages) ||
      messages.length === 0 ||
      !messages.every((m) => typeof m?.content === 'string' && typeof m?.role === 'string')
    ) {
      return openAIError(400, "'messages' must be a non-empty array of {role, content}");
    }
    const chat = body as FakeChatRequest;
    const reply = await script(chat, request);
    if (typeof reply !== 'string') return reply;
    const promptTokens = messages.reduce((n, m) => n + words(m.content), 0);
    return {
      json: {
        id: `chatcmpl-${request.at}`,
        object: 'chat.completion',
        model: chat.model,
        choices: [
          { index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop' },
        ],
        usage: {
          prompt_tokens: promptTokens,
          completion_tokens: words(reply),
          total_tokens: promptTokens + words(reply),
        },
      },
    };
  };
}

/** One `hugeBody` reply: how far it got before the client hung up. */
export interface StreamRecord {
  path: string;
  planned: number;
  written: number;
  /** The client closed the socket before the whole body was written. */
  closedEarly: boolean;
  /** Settles when the server stops writing (done, or the client hung up). */
  ended: Promise<void>;
}

export interface FakeOpenAIServer {
  /** Base URL including `/v1`, as OpenAI clients expect: `http://127.0.0.1:PORT/v1`. */
  url: string;
  origin: string;
  requests: RecordedRequest[];
  /** Every `hugeBody` reply sent, in order. */
  streams: StreamRecord[];
  /** Queue a fault; `null` clears the queue. */
  setFault(fault: Fault | null, options?: FaultOptions): void;
  /** Add or replace a route. */
  route(method: string, path: string, handler: RouteHandler): void;
  close(): Promise<void>;
}

/** Deterministic pseudo-random vector for `text` (not normalised, values in [-1, 1)). */
export function fakeEmbedding(text: string, dim: number): number[] {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  let state = h >>> 0;
  const out: number[] = [];
  for (let i = 0; i < dim; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out.push((((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1);
  }
  return out;
}

function openAIError(
  status: number,
  message: string,
  type = 'invalid_request_error',
): RouteResponse {
  return { status, json: { error: { message, type, param: null, code: null } } };
}

/** `POST /v1/embeddings`: validates like OpenAI does (enough for clients), answers in order. */
function embeddingsRoute(defaultDim: number): RouteHandler {
  return (request) => {
    const body = request.body as { model?: unknown; input?: unknown; dimensions?: unknown } | null;
    if (body === null || typeof body !== 'object')
      return openAIError(400, 'body must be a JSON object');
    if (typeof body.model !== 'string' || body.model === '')
      return openAIError(400, "'model' is required");
    const input = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(input) || input.length === 0 || !input.every((t) => typeof t === 'string')) {
      return openAIError(400, "'input' must be a string or a non-empty array of strings");
    }
    let dim = defaultDim;
    if (body.dimensions !== undefined) {
      if (!Number.isInteger(body.dimensions) || (body.dimensions as number) <= 0) {
        return openAIError(400, "'dimensions' must be a positive integer");
      }
      dim = body.dimensions as number;
    }
    const texts = input as string[];
    const tokens = texts.reduce((n, t) => n + t.split(/\s+/).filter(Boolean).length, 0);
    return {
      json: {
        object: 'list',
        data: texts.map((text, index) => ({
          object: 'embedding',
          index,
          embedding: fakeEmbedding(text, dim),
        })),
        model: body.model,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      },
    };
  };
}

export async function startFakeOpenAIServer(
  options: FakeOpenAIServerOptions = {},
): Promise<FakeOpenAIServer> {
  const started = Date.now();
  const routes = new Map<string, RouteHandler>();
  const routeKey = (method: string, path: string): string => `${method.toUpperCase()} ${path}`;
  routes.set(routeKey('POST', '/v1/embeddings'), embeddingsRoute(options.dim ?? 8));
  routes.set(routeKey('POST', '/v1/chat/completions'), chatRoute(options.chat ?? defaultChatReply));
  for (const [key, handler] of Object.entries(options.routes ?? {})) {
    const [method = '', path = ''] = key.split(' ');
    routes.set(routeKey(method, path), handler);
  }
  const faults: Array<{ fault: Fault; remaining: number; path: string | undefined }> = [];
  const requests: RecordedRequest[] = [];
  const streams: StreamRecord[] = [];

  /** Writes filler until `bytes` are out or the socket closes, waiting for 'drain' each time. */
  const streamHuge = (
    res: http.ServerResponse,
    path: string,
    fault: Extract<Fault, { kind: 'hugeBody' }>,
  ): void => {
    const chunk = Buffer.alloc(fault.chunkBytes ?? 64 * 1024, 'x');
    const head = Buffer.from('{"choices":[{"message":{"role":"assistant","content":"');
    let finish = (): void => undefined;
    const record: StreamRecord = {
      path,
      planned: fault.bytes,
      written: 0,
      closedEarly: false,
      ended: new Promise<void>((resolve) => (finish = resolve)),
    };
    streams.push(record);
    res.writeHead(200, {
      'content-type': 'application/json',
      ...(fault.contentLength ? { 'content-length': String(fault.bytes) } : {}),
    });
    let closed = false;
    res.on('close', () => {
      closed = true;
      if (record.written < record.planned) record.closedEarly = true;
      finish();
    });
    const pump = (): void => {
      while (!closed && record.written < record.planned) {
        const piece = record.written === 0 ? head : chunk;
        const part = piece.subarray(0, Math.min(piece.length, record.planned - record.written));
        record.written += part.length;
        if (!res.write(part)) {
          res.once('drain', pump);
          return;
        }
      }
      if (!closed) res.end(() => finish());
    };
    pump();
  };

  const takeFault = (path: string): Fault | null => {
    const i = faults.findIndex((f) => f.path === undefined || f.path === path);
    if (i < 0) return null;
    const entry = faults[i] as (typeof faults)[number];
    entry.remaining--;
    if (entry.remaining <= 0) faults.splice(i, 1);
    return entry.fault;
  };

  const send = (res: http.ServerResponse, response: RouteResponse): void => {
    const headers: Record<string, string> = { ...response.headers };
    let payload: string;
    if (response.text !== undefined) {
      payload = response.text;
      headers['content-type'] ??= 'text/plain; charset=utf-8';
    } else {
      payload = JSON.stringify(response.json ?? {});
      headers['content-type'] ??= 'application/json';
    }
    res.writeHead(response.status ?? 200, headers);
    res.end(payload);
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    let body: unknown = rawBody;
    try {
      body = rawBody === '' ? null : JSON.parse(rawBody);
    } catch {
      // Keep the raw text: a test may be checking exactly that.
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined)
        headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    }
    const path = (req.url ?? '/').split('?')[0] as string;
    const request: RecordedRequest = {
      method: req.method ?? 'GET',
      path,
      headers,
      body,
      rawBody,
      at: Date.now() - started,
    };
    requests.push(request);

    const fault = takeFault(path);
    switch (fault?.kind) {
      case 'hang':
        return;
      case 'drop':
        req.socket.destroy();
        return;
      case 'status': {
        const text = typeof fault.body === 'function' ? fault.body(request) : (fault.body ?? '');
        send(res, {
          status: fault.status,
          text,
          headers: { 'content-type': 'application/json', ...fault.headers },
        });
        return;
      }
      case 'rateLimit': {
        const retryAfter = fault.retryAfter === undefined ? 1 : fault.retryAfter;
        send(res, {
          ...openAIError(429, 'Rate limit reached', 'rate_limit_exceeded'),
          ...(retryAfter === null ? {} : { headers: { 'retry-after': String(retryAfter) } }),
        });
        return;
      }
      case 'hugeBody':
        streamHuge(res, path, fault);
        return;
      case 'malformedJson':
        send(res, {
          status: 200,
          text: '{"object":"list","data":[{"embedding":[0.1,',
          headers: { 'content-type': 'application/json' },
        });
        return;
      case 'delay':
        await new Promise((resolve) => setTimeout(resolve, fault.ms));
        break;
      default:
        break;
    }

    if (options.apiKey !== undefined && headers['authorization'] !== `Bearer ${options.apiKey}`) {
      send(res, openAIError(401, 'Incorrect API key provided', 'invalid_api_key'));
      return;
    }
    const handler = routes.get(routeKey(request.method, path));
    let response = handler
      ? await handler(request)
      : openAIError(404, `no route ${request.method} ${path}`);
    if (fault?.kind === 'wrongCount') {
      const json = response.json as { data?: unknown[] } | undefined;
      if (Array.isArray(json?.data)) {
        const delta = fault.delta ?? -1;
        const data =
          delta < 0
            ? json.data.slice(0, json.data.length + delta)
            : [...json.data, ...json.data.slice(0, delta)];
        response = { ...response, json: { ...json, data } };
      }
    } else if (fault?.kind === 'emptyChoices') {
      const json = response.json as Record<string, unknown> | undefined;
      response = { ...response, json: { ...json, choices: [] } };
    } else if (fault?.kind === 'transform') {
      response = fault.fn(response, request);
    }
    send(res, response);
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        send(res, openAIError(500, `fake server: ${(error as Error).message}`, 'server_error'));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    url: `${origin}/v1`,
    origin,
    requests,
    streams,
    setFault(fault, faultOptions = {}) {
      if (fault === null) {
        faults.length = 0;
        return;
      }
      faults.push({ fault, remaining: faultOptions.times ?? 1, path: faultOptions.path });
    },
    route(method, path, handler) {
      routes.set(routeKey(method, path), handler);
    },
    close() {
      // Hanging requests and keep-alive sockets would keep `close` waiting forever.
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}
