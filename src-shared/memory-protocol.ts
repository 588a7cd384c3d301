import { z } from 'zod';

/**
 * The memory service protocol (`memory-workbench/1`): what any process, in any language, answers so
 * the workbench can run it like a built-in preset. These schemas are the single source: the
 * workbench validates every request it sends and every response it reads with them, and
 * docs/memory-protocol.schema.json is generated from them (`memoryProtocolJsonSchema`).
 *
 * Wire names are snake_case so services in Python read naturally. Two transports carry the same
 * messages (docs/memory-protocol.md): HTTP (`POST <base>/<method>`, the params as the body, the
 * result or `{ "error": … }` back) and stdio JSON lines (`{ "id", "method", "params" }` in,
 * `{ "id", "result" }` or `{ "id", "error" }` out).
 */

export const MEMORY_PROTOCOL = 'memory-workbench/1';

export const MEMORY_METHODS = [
  'hello',
  'open',
  'insert',
  'retrieve',
  'answer',
  'reset',
  'close',
] as const;
export type MemoryMethod = (typeof MEMORY_METHODS)[number];

/** Error codes a service may return; anything else is reported as SERVICE_ERROR. */
export const MEMORY_SERVICE_ERROR_CODES = [
  'INVALID_REQUEST',
  'UNKNOWN_SESSION',
  'UNSUPPORTED',
  'SERVICE_ERROR',
] as const;

export const ServiceErrorSchema = z
  .object({
    code: z.string().min(1).max(100),
    message: z.string().max(10_000),
  })
  .loose();
export type ServiceError = z.output<typeof ServiceErrorSchema>;

/**
 * What one reply of a memory service may hold, in one place: the schemas below and the external
 * preset enforce them, docs/memory-protocol.md states them. A service is network input (DESIGN
 * §7): without caps, ten 1.5 MB "dia_ids" per reply were stored with every answer (390 MB after
 * 13 questions). Ids that are not turns of the sample are dropped by the workbench (and counted),
 * so what an answer stores from a service is bounded by `answerChars` plus top_k of the
 * sample's own turn ids.
 */
export const MEMORY_REPLY_LIMITS = {
  /** One `dia_ids` entry: a turn id is `D<session>:<n>`, a few characters. */
  diaIdChars: 64,
  /** Entries in one item's `dia_ids`: a memory built from a whole long session cites a few dozen. */
  diaIdsPerItem: 256,
  /** An item's text, and a service's answer. */
  textChars: 100_000,
  /** An item's speaker name. */
  speakerChars: 200,
} as const;

/** A zone-less ISO date-time (`2023-05-08T13:56:00`), as LoCoMo session times are stored. */
const dateTime = z
  .string()
  .regex(
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/,
    "must be a zone-less ISO date-time (YYYY-MM-DDTHH:MM[:SS], no Z or UTC offset: the session's own clock)",
  );

// ---- hello -------------------------------------------------------------------------------------

/** The most JSON a `hello` may take, extra fields included. */
export const MAX_HELLO_CHARS = 64 * 1024;

export const HelloParamsSchema = z.object({ protocol: z.literal(MEMORY_PROTOCOL) }).strict();

export const HelloResultSchema = z
  .object({
    protocol: z.literal(MEMORY_PROTOCOL),
    name: z.string().min(1).max(200),
    version: z.string().min(1).max(100),
    description: z.string().max(2000).optional(),
    capabilities: z
      .object({
        /** `retrieve` returns memories the workbench's answerer reads. */
        retrieve: z.boolean(),
        /** `answer` answers a question itself (with its own LLM, say). */
        answer: z.boolean(),
        /** `reset` empties a session without closing it. */
        reset: z.boolean().default(false),
        /** Reserved: saving and restoring a session's state (not called by protocol 1). */
        snapshot: z.boolean().default(false),
      })
      .loose()
      .refine((c) => c.retrieve || c.answer, 'a service must retrieve or answer (or both)'),
  })
  .loose()
  // Extra fields are the service's own provenance and are stored with every run: bounded, so a
  // service cannot write megabytes into each manifest.
  .refine((hello) => JSON.stringify(hello).length <= MAX_HELLO_CHARS, {
    message: `hello is larger than ${MAX_HELLO_CHARS} characters of JSON (it is kept in every run's manifest)`,
  });
export type HelloResult = z.output<typeof HelloResultSchema>;

// ---- open --------------------------------------------------------------------------------------

export const OpenParamsSchema = z
  .object({
    sample_id: z.string().min(1),
    speakers: z.tuple([z.string(), z.string()]),
    /** `memory.config.service` from the experiment config, passed through untouched. */
    config: z.record(z.string(), z.unknown()),
  })
  .strict();
export type OpenParams = z.output<typeof OpenParamsSchema>;

/** `session` names the opened conversation in every later call; one service may hold several. */
export const OpenResultSchema = z.object({ session: z.string().min(1).max(200) }).loose();

// ---- insert ------------------------------------------------------------------------------------

export const WireTurnSchema = z
  .object({
    /** `D<session>:<n>`, unique within the sample; retrieve returns these as sources. */
    dia_id: z.string().min(1),
    speaker: z.string(),
    /** Image turns carry their caption inline: `[Image: <caption>] <text>`. */
    text: z.string(),
  })
  .strict();

export const WirePacketSchema = z
  .object({
    /** The LoCoMo session number (`session_<n>`). */
    session_index: z.number().int().nonnegative(),
    /** When the session took place (the conversation's clock, not the wall clock); null: unknown. */
    date_time: dateTime.nullable(),
    /** The session's time as the dataset wrote it, e.g. `1:56 pm on 8 May, 2023`. */
    date_time_text: z.string().nullable(),
    /** 0-based over the sample; packets arrive in order. */
    packet_idx: z.number().int().nonnegative(),
    total_packets: z.number().int().positive(),
    turns: z.array(WireTurnSchema).min(1),
  })
  .strict();
export type WirePacket = z.output<typeof WirePacketSchema>;

export const InsertParamsSchema = z
  .object({ session: z.string().min(1), packet: WirePacketSchema })
  .strict();
export type InsertParams = z.output<typeof InsertParamsSchema>;

export const InsertResultSchema = z.object({}).loose();

// ---- retrieve ----------------------------------------------------------------------------------

export const RetrieveParamsSchema = z
  .object({
    session: z.string().min(1),
    question: z.string(),
    /** Return at most this many items. */
    top_k: z.number().int().positive(),
    /** The conversation's "now": the date-time of the last inserted session (null: unknown). */
    question_date: dateTime.nullable(),
  })
  .strict();
export type RetrieveParams = z.output<typeof RetrieveParamsSchema>;

export const MemoryItemSchema = z
  .object({
    text: z.string().max(MEMORY_REPLY_LIMITS.textChars),
    score: z.number(),
    /**
     * The turns the item was made from (evidence recall is counted on these); may be empty. Ids
     * that are not turns of the sample are dropped by the workbench and counted in the run.
     */
    dia_ids: z
      .array(z.string().max(MEMORY_REPLY_LIMITS.diaIdChars))
      .max(MEMORY_REPLY_LIMITS.diaIdsPerItem),
    speaker: z.string().max(MEMORY_REPLY_LIMITS.speakerChars).nullable().optional(),
    /** When what the item says happened (session date-time), so relative dates resolve. */
    date_time: dateTime.nullable().optional(),
  })
  .loose();
export type MemoryItem = z.output<typeof MemoryItemSchema>;

export const RetrieveResultSchema = z.object({ items: z.array(MemoryItemSchema) }).loose();
export type RetrieveResult = z.output<typeof RetrieveResultSchema>;

// ---- answer ------------------------------------------------------------------------------------

export const AnswerParamsSchema = z
  .object({
    session: z.string().min(1),
    question: z.string(),
    top_k: z.number().int().positive(),
    question_date: dateTime.nullable(),
    /** The dataset's category number (LoCoMo 1-5, LongMemEval 1-12); services may ignore it. */
    category: z.number().int().min(1),
  })
  .strict();
export type AnswerParams = z.output<typeof AnswerParamsSchema>;

export const AnswerResultSchema = z
  .object({
    answer: z.string().max(MEMORY_REPLY_LIMITS.textChars),
    /** What the answer was based on, for evidence recall; optional. */
    items: z.array(MemoryItemSchema).optional(),
  })
  .loose();
export type AnswerResult = z.output<typeof AnswerResultSchema>;

// ---- reset, close ------------------------------------------------------------------------------

export const SessionParamsSchema = z.object({ session: z.string().min(1) }).strict();
export const EmptyResultSchema = z.object({}).loose();

/** Every method's params and result: the workbench validates both sides of each call. */
export const MEMORY_METHOD_SCHEMAS = {
  hello: { params: HelloParamsSchema, result: HelloResultSchema },
  open: { params: OpenParamsSchema, result: OpenResultSchema },
  insert: { params: InsertParamsSchema, result: InsertResultSchema },
  retrieve: { params: RetrieveParamsSchema, result: RetrieveResultSchema },
  answer: { params: AnswerParamsSchema, result: AnswerResultSchema },
  reset: { params: SessionParamsSchema, result: EmptyResultSchema },
  close: { params: SessionParamsSchema, result: EmptyResultSchema },
} as const satisfies Record<MemoryMethod, { params: z.ZodType; result: z.ZodType }>;

export type MethodParams<M extends MemoryMethod> = z.input<
  (typeof MEMORY_METHOD_SCHEMAS)[M]['params']
>;
export type MethodResult<M extends MemoryMethod> = z.output<
  (typeof MEMORY_METHOD_SCHEMAS)[M]['result']
>;

// ---- stdio framing -----------------------------------------------------------------------------

export const StdioRequestSchema = z
  .object({
    id: z.number().int().nonnegative(),
    method: z.enum(MEMORY_METHODS),
    params: z.record(z.string(), z.unknown()),
  })
  .strict();

/** Exactly one of `result` and `error`; `id` null only for an error about an unreadable request. */
export const StdioResponseSchema = z
  .object({
    id: z.number().int().nonnegative().nullable(),
    result: z.unknown().optional(),
    error: ServiceErrorSchema.optional(),
  })
  .loose()
  .refine((m) => 'result' in m !== (m.error !== undefined), 'needs exactly one of result, error');

/** The HTTP error body (any non-2xx status). */
export const HttpErrorBodySchema = z.object({ error: ServiceErrorSchema }).loose();

/** One JSON Schema document with every message, for services in other languages. */
export function memoryProtocolJsonSchema(): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  for (const method of MEMORY_METHODS) {
    const { params, result } = MEMORY_METHOD_SCHEMAS[method];
    defs[`${method}.params`] = z.toJSONSchema(params, { io: 'input' });
    defs[`${method}.result`] = z.toJSONSchema(result, { io: 'input' });
  }
  defs['error'] = z.toJSONSchema(HttpErrorBodySchema, { io: 'input' });
  defs['stdio.request'] = z.toJSONSchema(StdioRequestSchema, { io: 'input' });
  defs['stdio.response'] = z.toJSONSchema(StdioResponseSchema, { io: 'input' });
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: `Memory Workbench memory service protocol (${MEMORY_PROTOCOL})`,
    description:
      'Generated from src-shared/memory-protocol.ts; do not edit (npm run -s cli -- memory-check --schema > docs/memory-protocol.schema.json). See docs/memory-protocol.md.',
    protocol: MEMORY_PROTOCOL,
    $defs: defs,
  };
}
