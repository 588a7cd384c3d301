/**
 * `external`: a memory service in another process, in any language, spoken to over the memory
 * protocol (docs/memory-protocol.md): a running HTTP service on a loopback address (`url`) or a
 * child process on stdio (`command`, started once per sample). The workbench still plans the
 * tests, feeds the packets, enforces the deadlines and scores; the service only stores and
 * retrieves (or answers).
 */
import { z } from 'zod';
import type { Packet, Sample } from '../../../../src-shared/dataset';
import { WorkbenchError, parseOrThrow } from '../../../../src-shared/errors';
import { timeoutMsSchema } from '../../../../src-shared/experiment';
import type { HelloResult, MemoryItem, WirePacket } from '../../../../src-shared/memory-protocol';
import type { AnswerRequest, MemoryHit } from '../request';
import { withTimeout } from '../../timeout';
import {
  DEFAULT_CONTROL_TIMEOUT_MS,
  MemoryProtocolClient,
  openTransport,
  probeService,
  type ServiceEndpoint,
} from '../external/client';
import { DEFAULT_MAX_RESPONSE_BYTES, UNIX_SOCKET_PREFIX } from '../external/transport';
import { assertKeyTransport, type ApiKeys } from '../../keys';
import { registerMemoryPreset, type MemoryServiceFactory } from '../registry';
import type { MemoryService, RetrieveContext } from '../types';

export const EXTERNAL_PRESET = 'external';

export const externalPresetConfigSchema = z
  .object({
    /** A running service: `http://127.0.0.1:<port>` (loopback only unless `allowRemote`). */
    url: z.string().min(1).optional(),
    /** A process to start per sample, speaking JSON lines on stdio: `python3 my_memory.py`. */
    command: z.string().min(1).optional(),
    allowRemote: z.boolean().default(false),
    /**
     * Who answers: `workbench` (the run's answerer reads what `retrieve` returns), `service` (the
     * service's `answer`), `auto` (the service when it has the answer capability).
     */
    answerWith: z.enum(['auto', 'workbench', 'service']).default('auto'),
    maxResponseBytes: z
      .number()
      .int()
      .min(1024)
      .max(1024 * 1024 * 1024)
      .default(DEFAULT_MAX_RESPONSE_BYTES),
    /** Deadline of hello, open and close; insert, retrieve and answer use the run's timeouts. */
    controlTimeoutMs: timeoutMsSchema.default(DEFAULT_CONTROL_TIMEOUT_MS),
    /** Passed to the service's `open` untouched: the service's own settings. */
    service: z.record(z.string(), z.unknown()).default({}),
    /**
     * The environment variable holding a token sent as `Authorization: Bearer …` (HTTP only;
     * read under the key policy of core/keys.ts: names ending in _API_KEY or _TOKEN).
     */
    tokenEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
      .optional(),
  })
  .strict()
  .refine((c) => (c.url === undefined) !== (c.command === undefined), {
    message: 'give exactly one of url (a running service) or command (a process to start)',
  })
  .refine((c) => c.tokenEnv === undefined || c.url !== undefined, {
    message: 'tokenEnv is sent over HTTP: it needs url (a child process gets no token)',
    path: ['tokenEnv'],
  });
export type ExternalPresetConfig = z.output<typeof externalPresetConfigSchema>;

const WHAT = 'memory preset "external" config';

function endpointOf(config: ExternalPresetConfig, keys: ApiKeys | undefined): ServiceEndpoint {
  let token: string | undefined;
  if (config.tokenEnv !== undefined && config.url !== undefined) {
    token = keys?.[config.tokenEnv];
    if (token === undefined) {
      throw new WorkbenchError(
        'INVALID_INPUT',
        `memory.config.tokenEnv: environment variable ${config.tokenEnv} is not set (it should hold the service's token)`,
        { path: ['memory', 'config', 'tokenEnv'] },
      );
    }
    // A token goes only to loopback http or a unix socket, never in clear over the network.
    if (!config.url.startsWith(UNIX_SOCKET_PREFIX))
      assertKeyTransport(config.url, config.tokenEnv, WHAT);
  }
  return {
    url: config.url,
    command: config.command,
    allowRemote: config.allowRemote,
    maxResponseBytes: config.maxResponseBytes,
    token,
  };
}

function usesServiceAnswers(config: ExternalPresetConfig, hello: HelloResult): boolean {
  if (config.answerWith === 'workbench') {
    if (!hello.capabilities.retrieve) {
      throw new WorkbenchError(
        'INVALID_INPUT',
        `memory service ${hello.name} cannot retrieve (capabilities.retrieve is false), so answerWith "workbench" has nothing to read`,
        { path: ['memory', 'config', 'answerWith'] },
      );
    }
    return false;
  }
  if (config.answerWith === 'service' && !hello.capabilities.answer) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `memory service ${hello.name} does not answer (capabilities.answer is false); use answerWith "workbench"`,
      { path: ['memory', 'config', 'answerWith'] },
    );
  }
  return (
    hello.capabilities.answer && (config.answerWith === 'service' || !hello.capabilities.retrieve)
  );
}

/** Packet -> wire packet: the session's own date-time, and each turn's dia_id. */
export function wirePacket(packet: Packet, sample: Pick<Sample, 'sessions'>): WirePacket {
  const session = sample.sessions.find((s) => s.index === packet.session_id);
  return {
    session_index: packet.session_id,
    date_time: session?.dateTime ?? null,
    date_time_text: session?.dateTimeText ?? null,
    packet_idx: packet.packet_idx,
    total_packets: packet.total_packets,
    turns: packet.dialogs.map((t) => ({ dia_id: t.diaId, speaker: t.speaker, text: t.text })),
  };
}

export function hitsOf(items: readonly MemoryItem[]): MemoryHit[] {
  return items.map((item, i) => ({
    id: item.dia_ids[0] ?? `item-${i}`,
    diaId: item.dia_ids[0] ?? null,
    text: item.text,
    speaker: item.speaker ?? null,
    score: item.score,
    sessionDateTime: item.date_time ?? null,
  }));
}

class ExternalMemoryService implements MemoryService {
  readonly preset = EXTERNAL_PRESET;
  readonly embedderName = null;
  answer?: MemoryService['answer'];
  private lastDateTime: string | null = null;
  private readonly counts = { inserts: 0, retrieves: 0, answers: 0, overTopK: 0 };

  constructor(
    private readonly client: MemoryProtocolClient,
    private readonly session: string,
    private readonly hello: HelloResult,
    private readonly sample: Sample,
    private readonly controlTimeoutMs: number,
    serviceAnswers: boolean,
  ) {
    if (serviceAnswers) this.answer = (request, topK, signal) => this.ask(request, topK, signal);
  }

  async insert(packet: Packet, signal?: AbortSignal): Promise<void> {
    const wire = wirePacket(packet, this.sample);
    await this.client.call('insert', { session: this.session, packet: wire }, signal);
    this.counts.inserts++;
    if (wire.date_time !== null) this.lastDateTime = wire.date_time;
  }

  /** More items than top_k are cut: a run compares systems at the context size it asked for. */
  private capped(items: readonly MemoryItem[], topK: number): MemoryItem[] {
    if (items.length <= topK) return [...items];
    this.counts.overTopK++;
    return items.slice(0, topK);
  }

  async retrieve(question: string, topK: number, context?: RetrieveContext): Promise<MemoryHit[]> {
    if (!this.hello.capabilities.retrieve) return [];
    const result = await this.client.call('retrieve', {
      session: this.session,
      question,
      top_k: topK,
      // The dataset's own question date when it has one (LongMemEval), else the conversation's now.
      question_date: context?.questionDate ?? this.lastDateTime,
    });
    this.counts.retrieves++;
    return hitsOf(this.capped(result.items, topK));
  }

  private async ask(
    request: AnswerRequest,
    topK: number,
    signal?: AbortSignal,
  ): Promise<{ answer: string; hits: MemoryHit[] }> {
    const result = await this.client.call(
      'answer',
      {
        session: this.session,
        question: request.question,
        top_k: topK,
        question_date: request.questionDate ?? this.lastDateTime,
        category: request.category,
      },
      signal,
    );
    this.counts.answers++;
    return { answer: result.answer, hits: hitsOf(this.capped(result.items ?? [], topK)) };
  }

  stats(): Record<string, number> {
    return {
      'service.inserts': this.counts.inserts,
      'service.retrieves': this.counts.retrieves,
      'service.answers': this.counts.answers,
      'service.overTopK': this.counts.overTopK,
    };
  }

  notes(): string[] {
    const notes = [
      `external service ${this.hello.name} ${this.hello.version} (${this.client.where}), ${this.answer ? 'answering itself' : 'returning memories to the workbench answerer'}`,
    ];
    if (this.counts.overTopK > 0) {
      notes.push(
        `external service returned more than top_k items ${this.counts.overTopK} time(s); the extra items were dropped`,
      );
    }
    return notes;
  }

  async close(): Promise<void> {
    try {
      await withTimeout(`memory service ${this.client.where}: close`, this.controlTimeoutMs, (s) =>
        this.client.call('close', { session: this.session }, s),
      );
    } finally {
      await this.client.close();
    }
  }
}

export const externalPreset: MemoryServiceFactory = async (config, ctx) => {
  const parsed = parseOrThrow(externalPresetConfigSchema, config ?? {}, WHAT);
  const client = new MemoryProtocolClient(openTransport(endpointOf(parsed, ctx.apiKeys)));
  try {
    const { hello } = await client.hello(parsed.controlTimeoutMs);
    const serviceAnswers = usesServiceAnswers(parsed, hello);
    const { session } = await withTimeout(
      `memory service ${client.where}: open`,
      parsed.controlTimeoutMs,
      (signal) =>
        client.call(
          'open',
          { sample_id: ctx.sample.sampleId, speakers: ctx.sample.speakers, config: parsed.service },
          signal,
        ),
    );
    return new ExternalMemoryService(
      client,
      session,
      hello,
      ctx.sample,
      parsed.controlTimeoutMs,
      serviceAnswers,
    );
  } catch (error) {
    await client.close();
    throw error;
  }
};

registerMemoryPreset(EXTERNAL_PRESET, externalPreset, {
  configSchema: externalPresetConfigSchema,
  async prepare(config, caller) {
    const parsed = parseOrThrow(externalPresetConfigSchema, config ?? {}, WHAT);
    if (!caller.mayStartProcesses && parsed.command !== undefined) {
      throw new WorkbenchError(
        'FORBIDDEN',
        'memory preset "external": a command can only be given from the command line or the desktop app, not through the browser-mode API (it would run a program on this machine); start the service yourself and give its url',
        { path: ['memory', 'config', 'command'] },
      );
    }
    if (!caller.mayStartProcesses && parsed.allowRemote) {
      throw new WorkbenchError(
        'FORBIDDEN',
        'memory preset "external": allowRemote can only be set from the command line or the desktop app',
        { path: ['memory', 'config', 'allowRemote'] },
      );
    }
    const record = await probeService(endpointOf(parsed, caller.apiKeys), parsed.controlTimeoutMs);
    usesServiceAnswers(parsed, record.hello);
    return record;
  },
});
