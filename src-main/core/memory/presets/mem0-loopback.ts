/**
 * The loopback endpoint a `mem0` service's library talks to. mem0ai 3.3.1's OpenAI LLM and
 * embedder build their own `openai` SDK client from a base URL and take no client or fetch of
 * ours, so the service points that base URL here: an HTTP server on 127.0.0.1 (port 0) that the
 * service owns for its sample. Each request the library sends is checked (zod) and handed to the
 * workbench's own clients: chat completions to the run's memory LLM (`LlmClient`: rate limits,
 * call ledger, response cache, reply cap, retries), embeddings to the run's embedder (cache,
 * ledger). The library's messages pass through untouched.
 *
 * Failures answer 400: the SDK retries 408/409/429/5xx on its own, and retries are the workbench
 * client's to make and count, so a failure must not be retried twice.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ChatMessage } from '../../answer/llm-client';
import type { Embedder } from '../../embed';
import type { MemoryLlm } from '../types';

/** Requests bigger than this are refused: the library's prompts are a few kilobytes. */
const MAX_REQUEST_BYTES = 8 * 1024 * 1024;

/** What the SDK must send as its key: the loopback needs none, the SDK refuses to start without. */
export const LOOPBACK_API_KEY = 'memory-workbench-loopback';

const chatRequestSchema = z.object({
  model: z.string(),
  messages: z
    .array(
      z.object({
        role: z.enum(['system', 'user', 'assistant']),
        content: z.string(),
      }),
    )
    .min(1),
  response_format: z.object({ type: z.literal('json_object') }).optional(),
  // The graph path (tools) is not part of the non-graph Mem0 the preset runs.
  tools: z
    .undefined({ error: 'tools are not served by the loopback (Mem0 graph is off)' })
    .optional(),
});

const embeddingsRequestSchema = z.object({
  model: z.string(),
  input: z.union([z.string(), z.array(z.string()).min(1)]),
  encoding_format: z.literal('float').optional(),
});

export interface LoopbackCounts {
  chatRequests: number;
  embeddingRequests: number;
  refused: number;
}

export interface LoopbackTargets {
  llm: MemoryLlm;
  embedder: Embedder;
  seed: number;
  /** The signal of the insert under way: a deadline stops its LLM call. */
  signal: () => AbortSignal | undefined;
}

export class Mem0Loopback {
  readonly counts: LoopbackCounts = { chatRequests: 0, embeddingRequests: 0, refused: 0 };
  /** sha256 of each distinct system prompt the library sent (its extraction prompt). */
  readonly systemPrompts = new Set<string>();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(targets: LoopbackTargets): Promise<Mem0Loopback> {
    let loopback: Mem0Loopback | null = null;
    const server = http.createServer((req, res) => {
      if (loopback) void loopback.handle(req, res, targets);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    loopback = new Mem0Loopback(server, `http://127.0.0.1:${port}/v1`);
    return loopback;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    targets: LoopbackTargets,
  ): Promise<void> {
    const reply = (status: number, body: unknown): void => {
      const text = JSON.stringify(body);
      res.writeHead(status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
      });
      res.end(text);
    };
    const refuse = (message: string): void => {
      this.counts.refused++;
      reply(400, {
        error: { message: `mem0 loopback: ${message}`, type: 'invalid_request_error' },
      });
    };
    try {
      const path = (req.url ?? '').split('?')[0];
      if (req.method !== 'POST') return refuse(`${req.method ?? '?'} ${path} is not served`);
      const raw = await readBody(req);
      if (raw === null) return refuse(`request body over ${MAX_REQUEST_BYTES} bytes`);
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        return refuse(`${path}: body is not JSON`);
      }
      if (path === '/v1/chat/completions') {
        const parsed = chatRequestSchema.safeParse(json);
        if (!parsed.success) return refuse(`${path}: ${describeIssue(parsed.error)}`);
        this.counts.chatRequests++;
        const messages: ChatMessage[] = parsed.data.messages;
        for (const m of messages)
          if (m.role === 'system') this.systemPrompts.add(sha256(m.content));
        const signal = targets.signal();
        const completion = await targets.llm.complete(messages, {
          seed: targets.seed,
          ...(parsed.data.response_format ? { responseFormat: parsed.data.response_format } : {}),
          ...(signal ? { signal } : {}),
        });
        return reply(200, {
          id: 'chatcmpl-loopback',
          object: 'chat.completion',
          created: 0,
          model: completion.model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: completion.content },
              // The endpoint's own: a reply cut off at max_tokens says so to the library too.
              finish_reason: completion.finishReason ?? 'stop',
            },
          ],
          usage: {
            prompt_tokens: completion.usage?.promptTokens ?? 0,
            completion_tokens: completion.usage?.completionTokens ?? 0,
            total_tokens:
              (completion.usage?.promptTokens ?? 0) + (completion.usage?.completionTokens ?? 0),
          },
        });
      }
      if (path === '/v1/embeddings') {
        const parsed = embeddingsRequestSchema.safeParse(json);
        if (!parsed.success) return refuse(`${path}: ${describeIssue(parsed.error)}`);
        this.counts.embeddingRequests++;
        const input = parsed.data.input;
        const texts = typeof input === 'string' ? [input] : input;
        const signal = targets.signal();
        const vectors = await targets.embedder.embed(texts, signal ? { signal } : {});
        return reply(200, {
          object: 'list',
          model: targets.embedder.name,
          data: vectors.map((v, index) => ({
            object: 'embedding',
            index,
            embedding: Array.from(v),
          })),
          usage: { prompt_tokens: 0, total_tokens: 0 },
        });
      }
      return refuse(`POST ${path} is not served`);
    } catch (error) {
      refuse(error instanceof Error ? error.message : String(error));
    }
  }
}

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return `${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function readBody(req: http.IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_REQUEST_BYTES) over = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(over ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
