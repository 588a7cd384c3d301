import type { ChatMessage } from './llm-client';
import { pyStrip } from '../../../src-shared/scoring/pytext';
import {
  LOCOMO_CONV_START_PROMPT,
  LOCOMO_PER_QA_TOKEN_BUDGET,
  LOCOMO_QA_PROMPT_BATCH,
  estimateTokens,
  locomoCategory5Answer,
  locomoConversationContext,
  locomoOptionsOf,
  locomoQuestion,
  type TokenCounter,
} from './protocols';
import { formatPositional } from './prompts';
import type { AnswerRequest } from './types';

/**
 * LoCoMo's batch prompt (`task_eval/evaluate_gpts.py` `get_gpt_answers` with `--batch-size` > 1,
 * as its scripts/evaluate_gpts.sh runs the long-context models: 10 questions to a prompt for
 * gpt-3.5-turbo, 20 for gpt-4-turbo) and its reading of the reply, ported exactly:
 *
 * - the prompt: CONV_START_PROMPT, the conversation cut to `context - 50 * batchSize` tokens
 *   less the questions', `\n`, QA_PROMPT_BATCH and the questions as `k: question` lines; the
 *   answer budget is `50 * batchSize` tokens (the batch size, not the chunk's length: the last
 *   chunk of a sample is shorter and keeps the same budget);
 * - the reply: cleaned (`\"` to `'`, `json` and backticks dropped, `\'` dropped), read as a JSON
 *   dictionary of "k": answer (single quotes swapped for double when they outnumber them); a
 *   reply that does not read is asked again, up to 5 calls in all; then each question's answer
 *   is taken by the reference's chain of fallbacks. Where the reference would crash (no answer
 *   for a question in any reading) the question is answered with an error instead.
 */

/** Calls the reference makes for one chunk while its reply does not read (`trials < 5`). */
export const LOCOMO_BATCH_TRIALS = 5;

export interface BuiltBatchPrompt {
  messages: ChatMessage[];
  /** Per question of the chunk: a category-5 question's options; null for the others. */
  options: Array<{ a: string; b: string } | null>;
  /** `PER_QA_TOKEN_BUDGET * batchSize`. */
  maxTokens: number;
  /** The conversation so far as the prompt shows it, shared by the batch's questions. */
  context: string;
}

/**
 * The prompt for one chunk of at most `batchSize` questions of one test (they share the
 * conversation so far). `options` defaults to each question's run-seeded draw.
 */
export function buildLocomoBatchPrompt(
  requests: readonly AnswerRequest[],
  batchSize: number,
  contextTokens: number,
  countTokens: TokenCounter = estimateTokens,
  options: ReadonlyArray<{ a: string; b: string } | null> = requests.map(locomoOptionsOf),
): BuiltBatchPrompt {
  const first = requests[0];
  if (!first) throw new Error('a LoCoMo batch prompt needs at least one question');
  const questions = requests.map((r, k) => locomoQuestion(r, options[k] ?? null));
  const questionPrompt = LOCOMO_QA_PROMPT_BATCH + questions.map((q, k) => `${k}: ${q}`).join('\n');
  const start = formatPositional(LOCOMO_CONV_START_PROMPT, ...first.speakers);
  const conv = locomoConversationContext(
    first.conversation ?? [],
    countTokens(questionPrompt) + countTokens(start),
    contextTokens,
    countTokens,
    batchSize,
  );
  return {
    messages: [{ role: 'user', content: `${start}${conv}\n${questionPrompt}` }],
    options: [...options],
    maxTokens: LOCOMO_PER_QA_TOKEN_BUDGET * batchSize,
    context: conv,
  };
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The reply as the reference cleans it before reading it. */
export function cleanLocomoBatchReply(raw: string): string {
  return pyStrip(raw.replaceAll('\\"', "'").replaceAll('json', '').replaceAll('`', '')).replaceAll(
    "\\'",
    '',
  );
}

/** `process_ouput`: single quotes, when they outnumber double ones, become the JSON quotes. */
function processOutput(text: string): Json {
  const single = text.split("'").length - 1;
  const double = text.split('"').length - 1;
  if (single > double) return JSON.parse(text.replaceAll('"', '').replaceAll("'", '"')) as Json;
  return JSON.parse(text) as Json;
}

/** Whether the reference's trial loop accepts the reply (else it asks again). */
export function locomoBatchReplyReads(raw: string): boolean {
  try {
    processOutput(pyStrip(cleanLocomoBatchReply(raw)));
    return true;
  } catch {
    return false;
  }
}

/** Python `repr` of a JSON value, as `str()` of a list or dict prints its items. */
function pyRepr(value: Json): string {
  if (typeof value === 'string') {
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
    const body = value
      .replaceAll('\\', '\\\\')
      .replaceAll('\n', '\\n')
      .replaceAll('\r', '\\r')
      .replaceAll('\t', '\\t');
    return quote + (quote === "'" ? body.replaceAll("'", "\\'") : body) + quote;
  }
  return pyStr(value);
}

/** Python `str()` of a JSON value (a float that is whole prints without its `.0` here). */
function pyStr(value: Json): string {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  return `{${Object.entries(value)
    .map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`)
    .join(', ')}}`;
}

const isDict = (v: Json): v is { [key: string]: Json } =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function dropOptionMarks(text: string): string {
  return text.replaceAll('(a)', '').replaceAll('(b)', '');
}

/** `answers[k]` of a value `json.loads` gave (a list, or a string's k-th character). */
function indexed(value: Json, k: number): Json {
  if (Array.isArray(value) && k < value.length) return value[k] as Json;
  if (typeof value === 'string') {
    const chars = [...value];
    if (k < chars.length) return chars[k] as string;
  }
  throw new Error(`no item ${k}`);
}

function asString(value: Json): string {
  if (typeof value !== 'string') throw new Error('not a string');
  return value;
}

/**
 * Each question's answer from the reply, by the reference's fallbacks in order: the dictionary's
 * "k" entry; the k-th item of the reply read as a JSON list; for category 5 the whole reply
 * through `get_cat_5_answer`, else the first item of the reply's k-th line read as JSON. Null
 * where every reading fails (the reference raises there).
 */
export function readLocomoBatchReply(
  raw: string,
  built: Pick<BuiltBatchPrompt, 'options'>,
): Array<string | null> {
  const answer = cleanLocomoBatchReply(raw);
  return built.options.map((options, k) => {
    try {
      const answers = processOutput(pyStrip(answer));
      if (!isDict(answers) || !(String(k) in answers)) throw new Error(`no key ${k}`);
      const value = answers[String(k)] as Json;
      if (options) return locomoCategory5Answer(asString(value), options);
      return pyStrip(dropOptionMarks(pyStr(value)));
    } catch {
      try {
        const value = indexed(JSON.parse(pyStrip(answer)) as Json, k);
        if (options) return locomoCategory5Answer(asString(value), options);
        return pyStrip(dropOptionMarks(asString(value)));
      } catch {
        if (options) return locomoCategory5Answer(pyStrip(answer), options);
        try {
          const line = dropOptionMarks(pyStrip(answer)).split('\n')[k];
          if (line === undefined) return null;
          return pyStr(indexed(JSON.parse(line) as Json, 0));
        } catch {
          return null;
        }
      }
    }
  });
}
