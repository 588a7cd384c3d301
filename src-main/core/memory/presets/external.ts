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
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  UNIX_SOCKET_PREFIX,
  checkServiceUrl,
} from '../external/transport';
import { assertKeyTransport, type ApiKeys } from '../../keys';
import type { MemoryPresetDefinition, MemoryServiceFactory } from '../registry';
import type { MemoryService, RetrieveContext } from '../types';
import { confinedTo, isLocalUser, resolveInsideFolders, type CallerTrust } from '../../trust';

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
     * read under the key policy of core/keys.ts, KEY_ENV_RULE).
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

/**
 * Each item's dia_ids reduced to turns of the sample: every valid id, in the service's order,
 * once. Other ids (a typo, another sample's turn, a megabyte of junk within the schema's caps)
 * are never stored; they are counted so the run says how many were dropped.
 */
export function citedTurns(
  items: readonly MemoryItem[],
  turnIds: ReadonlySet<string>,
): { items: MemoryItem[]; unknown: number; firstUnknown: string | null } {
  let unknown = 0;
  let firstUnknown: string | null = null;
  const kept = items.map((item) => {
    const valid = new Set<string>();
    for (const id of item.dia_ids) {
      if (turnIds.has(id)) valid.add(id);
      else {
        unknown++;
        firstUnknown ??= id;
      }
    }
    return valid.size === item.dia_ids.length ? item : { ...item, dia_ids: [...valid] };
  });
  return { items: kept, unknown, firstUnknown };
}

export function hitsOf(items: readonly MemoryItem[]): MemoryHit[] {
  return items.map((item, i) => ({
    id: item.dia_ids[0] ?? `item-${i}`,
    diaId: item.dia_ids[0] ?? null,
    // A chunk or summary citing several turns: each one counts for evidence recall.
    ...(item.dia_ids.length > 1 ? { diaIds: item.dia_ids } : {}),
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
  private readonly counts = { inserts: 0, retrieves: 0, answers: 0, overTopK: 0, unknownDiaIds: 0 };
  private firstUnknownDiaId: string | null = null;
  private readonly turnIds: ReadonlySet<string>;

  constructor(
    private readonly client: MemoryProtocolClient,
    private readonly session: string,
    private readonly hello: HelloResult,
    private readonly sample: Sample,
    private readonly controlTimeoutMs: number,
    serviceAnswers: boolean,
  ) {
    if (serviceAnswers) this.answer = (request, topK, signal) => this.ask(request, topK, signal);
    this.turnIds = new Set(sample.sessions.flatMap((s) => s.turns.map((t) => t.diaId)));
  }

  async insert(packet: Packet, signal?: AbortSignal): Promise<void> {
    const wire = wirePacket(packet, this.sample);
    await this.client.call('insert', { session: this.session, packet: wire }, signal);
    this.counts.inserts++;
    if (wire.date_time !== null) this.lastDateTime = wire.date_time;
  }

  /**
   * More items than top_k are cut: a run compares systems at the context size it asked for. Ids
   * that are not turns of the sample are dropped and counted (citedTurns).
   */
  private capped(items: readonly MemoryItem[], topK: number): MemoryItem[] {
    if (items.length > topK) this.counts.overTopK++;
    const cited = citedTurns(items.slice(0, topK), this.turnIds);
    this.counts.unknownDiaIds += cited.unknown;
    this.firstUnknownDiaId ??= cited.firstUnknown;
    return cited.items;
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
      'service.unknownDiaIds': this.counts.unknownDiaIds,
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
    if (this.counts.unknownDiaIds > 0) {
      notes.push(
        `external service cited ${this.counts.unknownDiaIds} dia_id(s) that are not turns of sample ${this.sample.sampleId} (first: ${JSON.stringify(this.firstUnknownDiaId)}); they were dropped`,
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
  const client = new MemoryProtocolClient(
    openTransport({ ...endpointOf(parsed, ctx.apiKeys), quoteReplies: ctx.quoteReplies !== false }),
  );
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

/**
 * What the caller (core/trust.ts) may point a run at: a command only if it may start processes, a
 * remote host only as the local user, a unix socket only inside the caller's folders. The refusal
 * of a socket names no reason beyond the rule, so it says nothing about what exists on the disk.
 */
function checkCaller(config: ExternalPresetConfig, caller: CallerTrust): void {
  if (config.command !== undefined && !caller.mayStartProcesses) {
    throw new WorkbenchError(
      'FORBIDDEN',
      'memory preset "external": a command runs a program on this machine, so only the command line, the desktop app or a worker started with --allow-memory-command may give one, not the browser-mode API or a queue job; start the service yourself and give its url',
      { path: ['memory', 'config', 'command'] },
    );
  }
  // Conversations leaving the machine: only on the local user's word (CLI, desktop app).
  if (config.allowRemote && !(caller.mayStartProcesses && isLocalUser(caller))) {
    throw new WorkbenchError(
      'FORBIDDEN',
      'memory preset "external": allowRemote can only be set from the command line or the desktop app',
      { path: ['memory', 'config', 'allowRemote'] },
    );
  }
  if (config.url === undefined) return;
  if (!config.url.startsWith(UNIX_SOCKET_PREFIX)) {
    checkServiceUrl(config.url, config.allowRemote);
    return;
  }
  const folders = confinedTo(caller);
  const socket = config.url.slice(UNIX_SOCKET_PREFIX.length);
  if (folders !== null && resolveInsideFolders(socket, folders) === null) {
    throw new WorkbenchError(
      'FORBIDDEN',
      `memory service url ${config.url}: a unix socket given through the browser-mode API or a queue job must be inside the folders its operator gave (serve/worker --dataset-dir); this one is not`,
      { path: ['memory', 'config', 'url'] },
    );
  }
}

export const externalPresetDefinition: MemoryPresetDefinition = {
  name: EXTERNAL_PRESET,
  create: externalPreset,
  configSchema: externalPresetConfigSchema,
  check(config, caller) {
    checkCaller(parseOrThrow(externalPresetConfigSchema, config ?? {}, WHAT), caller);
  },
  async prepare(config, caller) {
    const parsed = parseOrThrow(externalPresetConfigSchema, config ?? {}, WHAT);
    const record = await probeService(
      { ...endpointOf(parsed, caller.apiKeys), quoteReplies: isLocalUser(caller) },
      parsed.controlTimeoutMs,
    );
    usesServiceAnswers(parsed, record.hello);
    return record;
  },
};
