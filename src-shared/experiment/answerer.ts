import { z } from 'zod';
import type { ProtocolFace } from './protocolFace';
import { llmEndpointShape } from './llm';

/**
 * The answerer a run uses: the offline extractive one or an OpenAI-compatible chat model, with the
 * named answer protocols it stands in for or speaks.
 */

/** The workbench's own prompts before answer protocols had names; kept as a config alias. */
export const PROMPT_STYLES = ['locomo', 'mem0'] as const;
export type PromptStyle = (typeof PROMPT_STYLES)[number];

/**
 * Named answer protocols, one entry each (core/answer/protocols.ts has the bytes, typed by these
 * names). `locomo-full-context`, `mem0` and the `longmemeval` readers copy the papers'
 * evaluation code byte for byte; the `workbench-*` ones are the workbench's earlier prompts, kept
 * under their own names so older runs stay interpretable.
 */
export const ANSWER_PROTOCOL_FACES = {
  'workbench-locomo': {
    label: 'Workbench, LoCoMo-style (retrieved memories)',
    help: "the workbench's LoCoMo-style prompt over the retrieved memories",
  },
  'workbench-mem0': {
    label: 'Workbench, Mem0-style (retrieved memories)',
    help: "the workbench's Mem0-style prompt over the retrieved memories",
  },
  'locomo-full-context': {
    label: 'LoCoMo full context (paper, byte-exact)',
    help: "LoCoMo's full-conversation prompt, cut to --context-tokens",
  },
  'locomo-rag': {
    label: 'LoCoMo RAG (paper, byte-exact; locomo-rag-* presets)',
    help: "LoCoMo's RAG prompt over retrieved turns, observations or summaries",
  },
  mem0: {
    label: 'Mem0 (paper, byte-exact)',
    help: "Mem0's answer prompt over both speakers' memories",
  },
  'mem0-rag': {
    label: "Mem0's RAG baseline (paper, byte-exact; mem0-rag-chunks preset)",
    help: "Mem0's RAG baseline prompt over retrieved chunks",
  },
  'mem0-full-context': {
    label: "Mem0's full-context baseline (paper, byte-exact)",
    help: "Mem0's full-context baseline prompt over the whole chat history",
  },
  longmemeval: {
    label: 'LongMemEval reader, chain-of-note (paper, byte-exact)',
    help: "LongMemEval's chain-of-note reader over the retrieved history",
  },
  'longmemeval-direct': {
    label: 'LongMemEval reader, direct (paper, byte-exact)',
    help: "LongMemEval's direct reader over the retrieved history",
  },
  'longmemeval-con-separate': {
    label: 'LongMemEval reading notes per retrieved round, then chain-of-note (paper, byte-exact)',
    help: "LongMemEval's separate reading notes per round, then its chain-of-note reader",
  },
  'longmemeval-full-context': {
    label: 'LongMemEval full history, chain-of-note (paper, byte-exact)',
    help: "LongMemEval's chain-of-note reader over the whole history",
  },
  beam: {
    label: 'BEAM RAG reader over retrieved messages (paper, byte-exact prompt)',
    help: "BEAM's answer_generation_for_rag prompt over the retrieved messages",
  },
} as const satisfies Readonly<Record<string, ProtocolFace>>;
export type AnswerProtocolName = keyof typeof ANSWER_PROTOCOL_FACES;
/** The names, in the order selects and help list them. */
export const ANSWER_PROTOCOLS = Object.keys(ANSWER_PROTOCOL_FACES) as [
  AnswerProtocolName,
  ...AnswerProtocolName[],
];
const LEGACY_PROMPT_STYLE: Record<PromptStyle, AnswerProtocolName> = {
  locomo: 'workbench-locomo',
  mem0: 'workbench-mem0',
};

/**
 * The offline answerer. `answerProtocol` names the protocol the run stands in for (a paper's
 * setting run offline): recorded in the manifest with its hash, never sent anywhere.
 */
export const ExtractiveAnswererConfigSchema = z
  .object({
    kind: z.literal('extractive'),
    answerProtocol: z
      .enum(ANSWER_PROTOCOLS, { error: `must be one of ${ANSWER_PROTOCOLS.join(', ')}` })
      .optional(),
  })
  .strict();

/**
 * How a reply to a two-option adversarial question (a profile's `adversarialQuestions`: LoCoMo
 * asks its category 5 so) becomes the scored answer: `locomo` is LoCoMo's `get_cat_5_answer`
 * exactly (lowercases, any 1- or 3-character reply picks an option); `lenient` is the workbench's
 * earlier mapping (bare `a`/`(a)`, or a reply that starts `(a)`).
 */
export const ADVERSARIAL_REPLY_MAPPINGS = ['locomo', 'lenient'] as const;
export type AdversarialReplyMapping = (typeof ADVERSARIAL_REPLY_MAPPINGS)[number];

/**
 * The field's name before it took the profiles' words. Configs stored under it (runs DB
 * manifests, sweep specs, saved config files) still read (`withCurrentAnswererNames`), and config
 * hashes are computed under it (`hashedConfig`), so a run's config hash, its repeat group and its
 * sweep id stay what they were before the rename.
 */
export const STORED_ADVERSARIAL_REPLY_MAPPING_KEY = 'category5Mapping';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * An answerer config as stored, under today's names: `category5Mapping` reads as
 * `adversarialReplyMapping` (both given and different: left as is, so the strict schema names it).
 */
export function withCurrentAnswererNames(input: unknown): unknown {
  if (!isRecord(input) || !(STORED_ADVERSARIAL_REPLY_MAPPING_KEY in input)) return input;
  const { [STORED_ADVERSARIAL_REPLY_MAPPING_KEY]: stored, ...rest } = input;
  const current = rest['adversarialReplyMapping'];
  if (current !== undefined && current !== stored) return input;
  return { ...rest, adversarialReplyMapping: stored };
}

/**
 * What a config hash (and a sweep or repeat group's id) is computed over: the config with
 * `adversarialReplyMapping` under its stored name, so renaming the field changed no hash.
 */
export function hashedConfig<C extends { answerer: AnswererConfig }>(config: C): unknown {
  if (config.answerer.kind !== 'llm') return config;
  const { adversarialReplyMapping, ...answerer } = config.answerer;
  return {
    ...config,
    answerer: { ...answerer, [STORED_ADVERSARIAL_REPLY_MAPPING_KEY]: adversarialReplyMapping },
  };
}

/** LoCoMo full context: the model's context size the conversation is cut to (from the end). */
export const DEFAULT_FULL_CONTEXT_TOKENS = 128_000;

export const DEFAULT_ANSWER_MAX_TOKENS = 64;
/**
 * Longest answer text a run stores. LoCoMo answers are a few words; an answerer that returns more
 * than this is broken, and its answer is recorded as an error (not truncated: a cut answer would
 * still be scored as if it were the model's).
 */
export const MAX_ANSWER_CHARS = 8 * 1024;

/** LoCoMo's scripts go up to 20; a prompt of 100 questions is past any model's answer budget. */
export const MAX_LOCOMO_BATCH_SIZE = 100;

export const LlmAnswererConfigSchema = z
  .object({
    kind: z.literal('llm'),
    ...llmEndpointShape(DEFAULT_ANSWER_MAX_TOKENS),
    /** Legacy name of the workbench prompts; `answerProtocol` wins when both are given. */
    promptStyle: z.enum(PROMPT_STYLES).optional(),
    answerProtocol: z
      .enum(ANSWER_PROTOCOLS, {
        error: `must be one of ${ANSWER_PROTOCOLS.join(', ')}`,
      })
      .optional(),
    /** Stored and hashed as `category5Mapping` (STORED_ADVERSARIAL_REPLY_MAPPING_KEY). */
    adversarialReplyMapping: z
      .enum(ADVERSARIAL_REPLY_MAPPINGS, {
        error: `must be one of ${ADVERSARIAL_REPLY_MAPPINGS.join(', ')}`,
      })
      .default('locomo'),
    /** `locomo-full-context` only: the context budget in tokens (LoCoMo's MAX_LENGTH). */
    contextTokens: z.number().int().min(256).max(10_000_000).default(DEFAULT_FULL_CONTEXT_TOKENS),
    /**
     * `locomo-full-context` only: questions to a prompt, LoCoMo's `--batch-size` (its scripts run
     * the long-context models at 10 and 20). Absent or 1: one question to a prompt; no default,
     * so configs hash as before.
     */
    batchSize: z.number().int().min(1).max(MAX_LOCOMO_BATCH_SIZE).optional(),
  })
  .strict()
  .refine(
    (c) =>
      c.batchSize === undefined ||
      c.batchSize === 1 ||
      (c.answerProtocol ?? LEGACY_PROMPT_STYLE[c.promptStyle ?? 'locomo']) ===
        'locomo-full-context',
    {
      message:
        'a batch of questions to a prompt is LoCoMo full context only (answerProtocol locomo-full-context)',
      path: ['batchSize'],
    },
  );
export type LlmAnswererConfig = z.output<typeof LlmAnswererConfigSchema>;

/**
 * The answer protocol a config asks for: `answerProtocol`, else the legacy `promptStyle`, else
 * the benchmark's own reader (`BenchmarkProfile.defaultAnswerProtocol`), else workbench-locomo.
 */
export function answerProtocolOf(
  config: Pick<LlmAnswererConfig, 'answerProtocol' | 'promptStyle'>,
  benchmarkDefault?: AnswerProtocolName,
): AnswerProtocolName {
  if (config.answerProtocol !== undefined) return config.answerProtocol;
  if (config.promptStyle !== undefined) return LEGACY_PROMPT_STYLE[config.promptStyle];
  return benchmarkDefault ?? LEGACY_PROMPT_STYLE.locomo;
}

/** Every consumer's `switch (kind)` must handle each member (answerers.ts is exhaustive). */
export const AnswererConfigSchema = z.discriminatedUnion('kind', [
  ExtractiveAnswererConfigSchema,
  LlmAnswererConfigSchema,
]);
export type AnswererConfig = z.output<typeof AnswererConfigSchema>;

/**
 * The answerer with its protocol settled for a benchmark: an LLM reader that names none gets the
 * benchmark's own (`BenchmarkProfile.defaultAnswerProtocol`), so the run records what it sends.
 */
export function answererFor(
  answerer: AnswererConfig,
  profile: { defaultAnswerProtocol?: AnswerProtocolName },
): AnswererConfig {
  const own = profile.defaultAnswerProtocol;
  if (answerer.kind !== 'llm' || own === undefined) return answerer;
  if (answerer.answerProtocol !== undefined || answerer.promptStyle !== undefined) return answerer;
  return { ...answerer, answerProtocol: own };
}

/**
 * The answerer's LLM response cache: `on` answers identical requests from it, `off` always asks the
 * endpoint, `only` never does (an offline replay of an earlier run). Not part of a run's config:
 * it changes what is paid for, not what is answered.
 */
export const RESPONSE_CACHE_MODES = ['on', 'off', 'only'] as const;
export type ResponseCacheMode = (typeof RESPONSE_CACHE_MODES)[number];
