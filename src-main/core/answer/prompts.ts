import { createHash } from 'node:crypto';
import { MONTH_NAMES } from '../../../src-shared/calendar';
import type { PromptStyle } from '../../../src-shared/experiment';
import type { PromptRecord } from '../../../src-shared/runs';
import { mulberry32 } from '../../../src-shared/scoring';
import type { ChatMessage } from './llm-client';
import {
  NOT_MENTIONED,
  askedQuestion,
  isAdversarialRequest,
  wantsDateHintRequest,
  type AnswerRequest,
  type MemoryHit,
} from './types';

/**
 * The answer and judge prompts. Templates are plain strings with `{{name}}` slots, kept whole in
 * each run's manifest with their sha256, so a number can always be traced to the exact words that
 * produced it. Changing a template changes the hash: that is the point.
 *
 * - `locomo`: the official LoCoMo answering (task_eval/gpt_utils.py): a short phrase, exact words
 *   from the context when possible; the temporal category (the profile's `dateHint`) gets the
 *   "Use DATE of CONVERSATION" hint; category 5 becomes a two-option question between "Not mentioned in the conversation" and the
 *   adversarial answer, in an order drawn from the run seed per question.
 * - `mem0`: the Mem0 paper's answering (evaluation/prompts.py ANSWER_PROMPT, condensed):
 *   timestamped memories grouped by speaker, relative dates resolved against the timestamps, an
 *   answer of a few words. Category 5 (which Mem0 does not score) is asked as the same two-option
 *   question, so official scoring of a mem0-style run still means something.
 */

export const ANSWER_TEMPLATES: Readonly<Record<PromptStyle, Readonly<Record<string, string>>>> = {
  locomo: {
    context:
      'Below is a conversation between two people: {{speaker_a}} and {{speaker_b}}. The conversation takes place over multiple days and the date of each conversation is written at the beginning of the conversation.\n\n{{memories}}',
    memory: 'DATE: {{date}}\nCONVERSATION:\n{{text}}',
    question:
      '{{context}}\n\nBased on the above context, write an answer in the form of a short phrase for the following question. Answer with exact words from the context whenever possible.\n\nQuestion: {{question}} Short answer:',
    questionCategory5:
      '{{context}}\n\nBased on the above context, answer the following question.\n\nQuestion: {{question}} Short answer:',
    dateHint: '{{question}} Use DATE of CONVERSATION to answer with an approximate date.',
    options: '{{question}} Select the correct answer: (a) {{a}} (b) {{b}}. ',
  },
  mem0: {
    system:
      'You are an intelligent memory assistant tasked with retrieving accurate information from conversation memories.',
    memory: '{{date}}: {{text}}',
    question: [
      '# CONTEXT:',
      'You have access to memories from two speakers in a conversation. These memories contain timestamped information that may be relevant to answering the question.',
      '',
      '# INSTRUCTIONS:',
      '1. Carefully analyze all provided memories from both speakers.',
      '2. Pay special attention to the timestamps to determine the answer.',
      '3. If the question asks about a specific event or fact, look for direct evidence in the memories.',
      '4. If the memories contain contradictory information, prioritize the most recent memory.',
      '5. If there is a question about time references (like "last year", "two months ago"), calculate the actual date based on the memory timestamp. For example, if a memory from 4 May 2022 mentions "went to India last year", the trip occurred in 2021.',
      '6. Always convert relative time references to specific dates, months, or years, and answer with those.',
      '7. Focus only on the content of the memories from both speakers. Do not confuse character names mentioned in memories with the speakers who created them.',
      '8. The answer should be less than 5-6 words.',
      '',
      'Memories for user {{speaker_a}}:',
      '',
      '{{memories_a}}',
      '',
      'Memories for user {{speaker_b}}:',
      '',
      '{{memories_b}}',
      '{{memories_other}}',
      'Question: {{question}}',
      '',
      'Answer:',
    ].join('\n'),
    otherMemories: '\nOther memories:\n\n{{memories}}\n',
    options: '{{question}} Select the correct answer: (a) {{a}} (b) {{b}}.',
  },
};

export const JUDGE_TEMPLATE = [
  "Your task is to label an answer to a question as 'CORRECT' or 'WRONG'. You will be given the following data:",
  '    (1) a question (posed by one user to another user),',
  "    (2) a 'gold' (ground truth) answer,",
  '    (3) a generated answer',
  'which you will score as CORRECT/WRONG.',
  '',
  'The point of the question is to ask about something one user should know about the other user based on their prior conversations. The gold answer will usually be a concise and short answer that includes the referenced topic. The generated answer might be much longer, but you should be generous with your grading - as long as it touches on the same topic as the gold answer, it should be counted as CORRECT.',
  '',
  'For time related questions, the gold answer will be a specific date, month, year, etc. The generated answer might be much longer or use relative time references (like "last Tuesday" or "next month"), but you should be generous with your grading - as long as it refers to the same date or time period as the gold answer, it should be counted as CORRECT. Even if the format differs (e.g., "May 7th" vs "7 May"), consider it CORRECT if it is the same date.',
  '',
  'Now it is time for the real question:',
  'Question: {{question}}',
  'Gold answer: {{gold}}',
  'Generated answer: {{answer}}',
  '',
  'Reply with a JSON object only, with two keys: "label", which is "CORRECT" or "WRONG", and "reason", a one-sentence explanation. Do NOT put both CORRECT and WRONG in the label.',
].join('\n');

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A named set of templates as a manifest stores it, hashed over its sorted JSON. */
export function promptRecordOf(
  style: string,
  templates: Readonly<Record<string, string>>,
): PromptRecord {
  const sorted: Record<string, string> = {};
  for (const k of Object.keys(templates).sort()) sorted[k] = templates[k] as string;
  return { style, templates: sorted, sha256: sha256Hex(JSON.stringify(sorted)) };
}

/** The answer prompts of a style, as a run's manifest stores them. */
export function answerPromptRecord(style: PromptStyle): PromptRecord {
  return promptRecordOf(style, ANSWER_TEMPLATES[style]);
}

/** Fills `{{name}}` slots; a slot without a value is a bug in this file, so it throws. */
export function fill(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_m, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`prompts: no value for {{${name}}}`);
    return value;
  });
}

/**
 * A session's zone-less ISO date-time in LoCoMo's own words (`1:56 pm on 8 May, 2023`), so the
 * model reads dates the way the questions and gold answers write them.
 */
export function formatSessionDateTime(iso: string | null): string {
  if (iso === null) return 'unknown date';
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?/.exec(iso);
  if (!m) return iso;
  const [, y, mo, d, h, mi] = m;
  const date = `${Number(d)} ${MONTH_NAMES[Number(mo) - 1] ?? mo}, ${y}`;
  if (h === undefined || mi === undefined) return date;
  const hour = Number(h);
  const h12 = hour % 12 === 0 ? 12 : hour % 12;
  return `${h12}:${mi} ${hour < 12 ? 'am' : 'pm'} on ${date}`;
}

/** FNV-1a over the key: a per-question seed for the option order. */
function questionSeed(seed: number, sampleId: string, questionIndex: number): number {
  const key = `${seed}\u0000${sampleId}\u0000${questionIndex}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * The two options of a category-5 question, (a) then (b). The order is drawn per question from
 * the run seed, sample and question index: the same run config asks the same question, and the
 * draw does not depend on which other questions were asked before it.
 */
export function category5Options(
  seed: number,
  sampleId: string,
  questionIndex: number,
  adversarialAnswer: string,
): { a: string; b: string } {
  const notMentionedFirst = mulberry32(questionSeed(seed, sampleId, questionIndex))() < 0.5;
  return notMentionedFirst
    ? { a: NOT_MENTIONED, b: adversarialAnswer }
    : { a: adversarialAnswer, b: NOT_MENTIONED };
}

export interface BuiltPrompt {
  messages: ChatMessage[];
  /** Category 5 with an adversarial answer: the options, to map "(a)"/"(b)" replies back. */
  options: { a: string; b: string } | null;
  /** The retrieved context as the prompt shows it (memories or conversation): its memory tokens. */
  context: string;
}

/** How the workbench prompts order memories; stored in their prompt records, so it is hashed. */
export const WORKBENCH_MEMORY_ORDER =
  'chronological: session date-time, then turn (D<session>:<turn>), then memory id';

function turnPosition(diaId: string | null): [number, number] {
  const match = diaId === null ? null : /^D(\d+):(\d+)$/.exec(diaId);
  return match ? [Number(match[1]), Number(match[2])] : [Infinity, Infinity];
}

/**
 * The memories in the order they happened, whatever order retrieval ranked them in: the same
 * retrieved set then makes the same prompt, so a re-asked question whose top-k was only
 * reshuffled is answered from the response cache. Memories without a date go last; the id breaks
 * every remaining tie, so the order depends on the set alone.
 */
export function chronologicalMemories(memories: readonly MemoryHit[]): MemoryHit[] {
  return [...memories].sort((a, b) => {
    const dateA = a.sessionDateTime ?? '\uffff';
    const dateB = b.sessionDateTime ?? '\uffff';
    if (dateA !== dateB) return dateA < dateB ? -1 : 1;
    const [sessionA, turnA] = turnPosition(a.diaId);
    const [sessionB, turnB] = turnPosition(b.diaId);
    if (sessionA !== sessionB) return sessionA < sessionB ? -1 : 1;
    if (turnA !== turnB) return turnA < turnB ? -1 : 1;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
}

function renderMemory(template: string, hit: MemoryHit): string {
  return fill(template, { date: formatSessionDateTime(hit.sessionDateTime), text: hit.text });
}

function optionsOf(request: AnswerRequest): { a: string; b: string } | null {
  if (!isAdversarialRequest(request)) return null;
  const adversarial = request.adversarialAnswer?.trim();
  if (!adversarial) return null;
  return category5Options(request.seed, request.sampleId, request.questionIndex, adversarial);
}

function questionText(
  templates: Readonly<Record<string, string>>,
  request: AnswerRequest,
  options: { a: string; b: string } | null,
): string {
  const question = askedQuestion(request).trim();
  if (options) return fill(templates['options'] as string, { question, ...options });
  if (templates['dateHint'] !== undefined && wantsDateHintRequest(request)) {
    return fill(templates['dateHint'], { question });
  }
  return question;
}

/** The chat messages for one question in one style. */
export function buildAnswerPrompt(style: PromptStyle, request: AnswerRequest): BuiltPrompt {
  const t = ANSWER_TEMPLATES[style];
  const options = optionsOf(request);
  const question = questionText(t, request, options);
  const [speakerA, speakerB] = request.speakers;
  const ordered = chronologicalMemories(request.memories);
  if (style === 'locomo') {
    const memories = ordered.map((h) => renderMemory(t['memory'] as string, h));
    const shown = memories.length === 0 ? '(no memories)' : memories.join('\n\n');
    const context = fill(t['context'] as string, {
      speaker_a: speakerA,
      speaker_b: speakerB,
      memories: shown,
    });
    const template = isAdversarialRequest(request) ? t['questionCategory5'] : t['question'];
    return {
      messages: [{ role: 'user', content: fill(template as string, { context, question }) }],
      options,
      context: shown,
    };
  }
  const groups: [string[], string[], string[]] = [[], [], []];
  for (const hit of ordered) {
    const slot = hit.speaker === speakerA ? 0 : hit.speaker === speakerB ? 1 : 2;
    groups[slot].push(renderMemory(t['memory'] as string, hit));
  }
  const list = (lines: string[]): string => (lines.length === 0 ? '(none)' : lines.join('\n'));
  const shown = {
    memories_a: list(groups[0]),
    memories_b: list(groups[1]),
    memories_other:
      groups[2].length === 0
        ? ''
        : fill(t['otherMemories'] as string, { memories: list(groups[2]) }),
  };
  const content = fill(t['question'] as string, {
    speaker_a: speakerA,
    speaker_b: speakerB,
    ...shown,
    question,
  });
  return {
    messages: [
      { role: 'system', content: t['system'] as string },
      { role: 'user', content },
    ],
    options,
    context: [shown.memories_a, shown.memories_b, shown.memories_other].join('\n'),
  };
}

/**
 * The answer as scored: trimmed, and for two-option questions a bare `a`, `(a)`, `b` or `(b)`
 * reply mapped to the option's text (LoCoMo `get_cat_5_answer`), since official category-5
 * scoring looks for "not mentioned" in the answer.
 */
export function interpretAnswer(raw: string, built: Pick<BuiltPrompt, 'options'>): string {
  const answer = raw.trim();
  if (!built.options) return answer;
  const bare = answer
    .toLowerCase()
    .replace(/[.:\s]+$/, '')
    .trim();
  if (bare === 'a' || bare === '(a)') return built.options.a;
  if (bare === 'b' || bare === '(b)') return built.options.b;
  const prefixed = /^\(([ab])\)\s*/i.exec(answer);
  if (prefixed) {
    return prefixed[1]?.toLowerCase() === 'a' ? built.options.a : built.options.b;
  }
  return answer;
}

/** Python `str.format` with positional `{}` slots, one pass (values are not re-read). */
export function formatPositional(template: string, ...values: string[]): string {
  let i = 0;
  return template.replace(/\{\}/g, () => values[i++] ?? '');
}

/** Python `json.dumps(value)` of a string (ensure_ascii: everything outside ' '..'~' escaped). */
export function pyJsonString(value: string): string {
  return JSON.stringify(value).replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Python `json.dumps(list_of_strings, indent=4)`. */
export function pyJsonDumpsStrings(values: readonly string[]): string {
  if (values.length === 0) return '[]';
  return `[\n${values.map((v) => `    ${pyJsonString(v)}`).join(',\n')}\n]`;
}
