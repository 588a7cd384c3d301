import { WorkbenchError } from '../../../src-shared/errors';
import type {
  CustomJudgeProtocol,
  JudgeProtocolChoice,
  JudgeProtocolName,
} from '../../../src-shared/experiment';
import type { PromptRecord } from '../../../src-shared/runs';
import { PY_WHITESPACE, pyStrip } from '../../../src-shared/scoring/pytext';
import { beamJudgeRecord, type BeamJudgeProtocolName } from './beam-judge';
import type { ChatMessage } from './llm-client';
import { JUDGE_TEMPLATE, fill, promptRecordOf } from './prompts';
import type { ReferenceRequest } from './referenceRequest';

/**
 * Judge protocols: the prompt bytes, the request options and how a reply becomes a label.
 *
 * - `mem0`: mem0ai/mem0 `evaluation/metrics/llm_judge.py` (at 9315e3036^): `ACCURACY_PROMPT` byte
 *   for byte (typographic quotes, trailing spaces, leading and final newline), filled with
 *   `str.format`, one user message, `response_format` json_object, temperature 0; the reply goes
 *   through `extract_json` (mem0/memory/utils.py) and `json.loads(...)["label"]`, and only a label
 *   equal to "CORRECT" counts. A reply that still cannot be read after the retries is WRONG, as
 *   it is in Mem0's denominator, and counted in the score's `unparseable`.
 * - `strict`: same shape, but credits the same fact rather than the same topic.
 * - `workbench-v1`: the workbench's earlier prompt and lenient reader, unchanged.
 * - custom: a user's template with `{{question}}`, `{{gold}}`, `{{answer}}`, lenient reader.
 *
 * Outside `mem0`, an unreadable reply leaves the answer without a verdict (the score's `error`).
 */

/** mem0 evaluation/metrics/llm_judge.py ACCURACY_PROMPT, exactly (golden-tested). */
export const MEM0_ACCURACY_PROMPT = [
  '',
  'Your task is to label an answer to a question as \u2019CORRECT\u2019 or \u2019WRONG\u2019. You will be given the following data:',
  '    (1) a question (posed by one user to another user), ',
  '    (2) a \u2019gold\u2019 (ground truth) answer, ',
  '    (3) a generated answer',
  'which you will score as CORRECT/WRONG.',
  '',
  'The point of the question is to ask about something one user should know about the other user based on their prior conversations.',
  'The gold answer will usually be a concise and short answer that includes the referenced topic, for example:',
  'Question: Do you remember what I got the last time I went to Hawaii?',
  'Gold answer: A shell necklace',
  'The generated answer might be much longer, but you should be generous with your grading - as long as it touches on the same topic as the gold answer, it should be counted as CORRECT. ',
  '',
  'For time related questions, the gold answer will be a specific date, month, year, etc. The generated answer might be much longer or use relative time references (like "last Tuesday" or "next month"), but you should be generous with your grading - as long as it refers to the same date or time period as the gold answer, it should be counted as CORRECT. Even if the format differs (e.g., "May 7th" vs "7 May"), consider it CORRECT if it\'s the same date.',
  '',
  "Now it's time for the real question:",
  'Question: {question}',
  'Gold answer: {gold_answer}',
  'Generated answer: {generated_answer}',
  '',
  'First, provide a short (one sentence) explanation of your reasoning, then finish with CORRECT or WRONG. ',
  'Do NOT include both CORRECT and WRONG in your response, or it will break the evaluation script.',
  '',
  'Just return the label CORRECT or WRONG in a json format with the key as "label".',
  '',
].join('\n');

/** The workbench's own stricter judge: same fact, not same topic; JSON out. */
export const STRICT_JUDGE_TEMPLATE = [
  "Your task is to label an answer to a question as 'CORRECT' or 'WRONG'. You will be given a question (posed by one user to another user), a gold (ground truth) answer and a generated answer.",
  '',
  'Label the generated answer CORRECT only if it states the same fact as the gold answer: the same entity, the same number, the same date or time period. An answer that merely touches on the same topic, hedges between several options, adds a contradicting claim, or says the information is not available is WRONG. Wording, length and date format may differ (e.g., "May 7th" vs "7 May" is the same date). Relative time references count only when they pin down the gold date or period exactly.',
  '',
  'Question: {{question}}',
  'Gold answer: {{gold}}',
  'Generated answer: {{answer}}',
  '',
  'Reply with a JSON object only, with two keys: "label", which is "CORRECT" or "WRONG", and "reason", a one-sentence explanation.',
].join('\n');

export type JudgeLabel = 'CORRECT' | 'WRONG';

export interface JudgeVerdict {
  label: JudgeLabel;
  reason: string;
}

export interface JudgeItem {
  question: string;
  gold: string;
  answer: string;
  /** The question's task, for protocols with a prompt per task (LongMemEval's question type). */
  task?: string;
  /** An abstention question (LongMemEval `_abs`): the gold explains why it is unanswerable. */
  abstention?: boolean;
}

export interface JudgeProtocol {
  /** `mem0`, `strict`, `workbench-v1` or `custom:<name>`. */
  readonly name: string;
  /** Stored in the manifest; its sha256 keys the judge cache. */
  readonly record: PromptRecord;
  /** Sent as `response_format: {type: "json_object"}`. */
  readonly jsonMode: boolean;
  /** An unreadable reply (after retries) is a WRONG label rather than a missing verdict. */
  readonly unparseableIsWrong: boolean;
  /** Sent as `max_tokens` instead of the endpoint's, when the protocol fixes it. */
  readonly maxTokens?: number;
  /** Has a prompt per task: the judge pass fills the item's `task` and `abstention`. */
  readonly readsTask?: boolean;
  /**
   * The request parameters of the reference this protocol mirrors, with its citation: its first
   * repeat sends exactly these, no seed (a later repeat adds its number as the seed, which is what
   * makes it another sample). Absent: the workbench's own judge, which sends the endpoint's
   * max_tokens and the repeat as its seed.
   */
  readonly reference?: ReferenceRequest;
  /**
   * BEAM's rubric judge: an answer is scored against its question's rubric, one call per item
   * (scoreBeamQuestion), not labelled against a gold; `messages` and `parse` are never used.
   */
  readonly rubric?: BeamJudgeProtocolName;
  messages(item: JudgeItem): ChatMessage[];
  /** The verdict in a reply; throws UNPARSEABLE_JUDGE_REPLY when there is none to read. */
  parse(content: string): JudgeVerdict;
}

const EXCERPT = 120;

function shortened(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > EXCERPT ? `${flat.slice(0, EXCERPT)}...` : flat;
}

/** A reply the judge reader could not turn into a label. */
export class UnparseableJudgeReply extends WorkbenchError {
  constructor(why: string, content: string) {
    super('UPSTREAM', `judge: ${why}: "${shortened(content)}"`);
  }
}

/**
 * mem0/memory/utils.py `extract_json`: the text of the first ```json fence (or ``` fence), else
 * from the first `{` to the last `}`, else the stripped text. Python's `\s` and `str.strip()`
 * are Python's Unicode whitespace, not JS's (PY_WHITESPACE).
 */
const FENCE = new RegExp(`\`\`\`(?:json)?[${PY_WHITESPACE}]*([^]*?)[${PY_WHITESPACE}]*\`\`\``, 'u');
export function extractJson(text: string): string {
  const stripped = pyStrip(text);
  const fenced = FENCE.exec(stripped);
  if (fenced) return fenced[1] as string;
  const start = stripped.indexOf('{');
  const end = stripped.lastIndexOf('}');
  if (start !== -1 && end !== -1 && end > start) return stripped.slice(start, end + 1);
  return stripped;
}

/**
 * Mem0's reader: `json.loads(extract_json(reply))["label"]`, and the label is CORRECT only when
 * it is exactly the string "CORRECT" (no trimming, no case folding). A label of any other value
 * is WRONG; no JSON, no object or no "label" key is unparseable (Mem0's script would crash).
 */
export function parseMem0Verdict(content: string): JudgeVerdict {
  let json: unknown;
  try {
    json = JSON.parse(extractJson(content));
  } catch {
    throw new UnparseableJudgeReply('reply is not valid JSON', content);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json) || !('label' in json)) {
    throw new UnparseableJudgeReply('reply has no "label" key', content);
  }
  const { label, reason } = json as { label: unknown; reason?: unknown };
  return {
    label: label === 'CORRECT' ? 'CORRECT' : 'WRONG',
    reason: typeof reason === 'string' ? reason.replace(/\s+/g, ' ').trim() : '',
  };
}

/**
 * The workbench's lenient reader: a JSON object anywhere in the reply, label in any case and
 * padding, but it must say CORRECT or WRONG.
 */
export function parseLenientVerdict(content: string): JudgeVerdict {
  const start = content.indexOf('{');
  const end = content.lastIndexOf('}');
  if (start < 0 || end < start)
    throw new UnparseableJudgeReply('reply holds no JSON object', content);
  let json: unknown;
  try {
    json = JSON.parse(content.slice(start, end + 1));
  } catch {
    throw new UnparseableJudgeReply('reply is not valid JSON', content);
  }
  const record = typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : {};
  const label = typeof record['label'] === 'string' ? record['label'].trim().toUpperCase() : null;
  if (label !== 'CORRECT' && label !== 'WRONG') {
    throw new UnparseableJudgeReply('reply needs "label": "CORRECT" or "WRONG"', content);
  }
  const reason = typeof record['reason'] === 'string' ? record['reason'] : '';
  return { label, reason: reason.replace(/\s+/g, ' ').trim() };
}

/** Python `str.format` with the three named fields: one pass, values are not re-read. */
function pyFormat(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (slot, name: string) => values[name] ?? slot);
}

/** A judge entry's reference, and the JSON mode and answer length it fixes. */
function mirrors(reference: ReferenceRequest): Pick<JudgeProtocol, 'reference' | 'jsonMode'> & {
  maxTokens?: number;
} {
  const { max_tokens: maxTokens, response_format: format } = reference.params;
  return {
    reference,
    jsonMode: format?.type === 'json_object',
    ...(maxTokens !== undefined ? { maxTokens } : {}),
  };
}

const mem0Protocol: JudgeProtocol = {
  name: 'mem0',
  record: promptRecordOf('mem0', { judge: MEM0_ACCURACY_PROMPT }),
  // `evaluate_llm_judge`: response_format json_object and temperature 0.0; no max_tokens, no seed.
  ...mirrors({
    citation: 'mem0ai/mem0@b3ede5b7c:evaluation/metrics/llm_judge.py:41-53',
    params: { temperature: 0, response_format: { type: 'json_object' } },
  }),
  unparseableIsWrong: true,
  messages: (item) => [
    {
      role: 'user',
      content: pyFormat(MEM0_ACCURACY_PROMPT, {
        question: item.question,
        gold_answer: item.gold,
        generated_answer: item.answer,
      }),
    },
  ],
  parse: parseMem0Verdict,
};

function slotProtocol(name: string, template: string, jsonMode: boolean): JudgeProtocol {
  return {
    name,
    record: promptRecordOf(name, { judge: template }),
    jsonMode,
    unparseableIsWrong: false,
    messages: (item) => [
      {
        role: 'user',
        content: fill(template, { question: item.question, gold: item.gold, answer: item.answer }),
      },
    ],
    parse: parseLenientVerdict,
  };
}

/**
 * xiaowu0162/LongMemEval `src/evaluation/evaluate_qa.py` `get_anscheck_prompt`, byte for byte
 * (golden-tested): one template per question type, the abstention one for `_abs` questions.
 */
export const LONGMEMEVAL_ANSCHECK_TEMPLATES = {
  default:
    'I will give you a question, a correct answer, and a response from a model. Please answer yes if the response contains the correct answer. Otherwise, answer no. If the response is equivalent to the correct answer or contains all the intermediate steps to get the correct answer, you should also answer yes. If the response only contains a subset of the information required by the answer, answer no. \n\nQuestion: {}\n\nCorrect Answer: {}\n\nModel Response: {}\n\nIs the model response correct? Answer yes or no only.',
  'temporal-reasoning':
    "I will give you a question, a correct answer, and a response from a model. Please answer yes if the response contains the correct answer. Otherwise, answer no. If the response is equivalent to the correct answer or contains all the intermediate steps to get the correct answer, you should also answer yes. If the response only contains a subset of the information required by the answer, answer no. In addition, do not penalize off-by-one errors for the number of days. If the question asks for the number of days/weeks/months, etc., and the model makes off-by-one errors (e.g., predicting 19 days when the answer is 18), the model's response is still correct. \n\nQuestion: {}\n\nCorrect Answer: {}\n\nModel Response: {}\n\nIs the model response correct? Answer yes or no only.",
  'knowledge-update':
    'I will give you a question, a correct answer, and a response from a model. Please answer yes if the response contains the correct answer. Otherwise, answer no. If the response contains some previous information along with an updated answer, the response should be considered as correct as long as the updated answer is the required answer.\n\nQuestion: {}\n\nCorrect Answer: {}\n\nModel Response: {}\n\nIs the model response correct? Answer yes or no only.',
  'single-session-preference':
    "I will give you a question, a rubric for desired personalized response, and a response from a model. Please answer yes if the response satisfies the desired response. Otherwise, answer no. The model does not need to reflect all the points in the rubric. The response is correct as long as it recalls and utilizes the user's personal information correctly.\n\nQuestion: {}\n\nRubric: {}\n\nModel Response: {}\n\nIs the model response correct? Answer yes or no only.",
  abstention:
    'I will give you an unanswerable question, an explanation, and a response from a model. Please answer yes if the model correctly identifies the question as unanswerable. The model could say that the information is incomplete, or some other information is given but the asked information is not.\n\nQuestion: {}\n\nExplanation: {}\n\nModel Response: {}\n\nDoes the model correctly identify the question as unanswerable? Answer yes or no only.',
} as const;

/** The types `get_anscheck_prompt` sends to its first template; any other raises there. */
const LONGMEMEVAL_DEFAULT_TASKS = [
  'single-session-user',
  'single-session-assistant',
  'multi-session',
];

/** `get_anscheck_prompt(task, question, answer, response, abstention)`. */
export function longMemEvalPrompt(item: JudgeItem): string {
  const t = LONGMEMEVAL_ANSCHECK_TEMPLATES;
  let template: string;
  if (item.abstention === true) template = t.abstention;
  else if (item.task !== undefined && LONGMEMEVAL_DEFAULT_TASKS.includes(item.task))
    template = t.default;
  else if (
    item.task === 'temporal-reasoning' ||
    item.task === 'knowledge-update' ||
    item.task === 'single-session-preference'
  )
    template = t[item.task];
  else {
    // The reference raises NotImplementedError: judging under a task it has no prompt for would
    // be a different protocol.
    throw new WorkbenchError(
      'INVALID_INPUT',
      `judge longmemeval: no prompt for question type "${item.task ?? '(none)'}"`,
    );
  }
  // str.format with three positional fields, in one pass (a "{}" in a value is not re-read).
  const values = [item.question, item.gold, item.answer];
  let next = 0;
  return template.replace(/\{\}/g, () => values[next++] ?? '');
}

/** evaluate_qa.py: `label = 'yes' in eval_response.lower()` on the stripped reply; never unreadable. */
export function parseLongMemEvalVerdict(content: string): JudgeVerdict {
  const reply = pyStrip(content);
  return { label: reply.toLowerCase().includes('yes') ? 'CORRECT' : 'WRONG', reason: reply };
}

const longMemEvalProtocol: JudgeProtocol = {
  name: 'longmemeval',
  record: promptRecordOf('longmemeval', { ...LONGMEMEVAL_ANSCHECK_TEMPLATES }),
  // n 1, temperature 0 (the config refuses another), max_tokens 10, no seed.
  ...mirrors({
    citation: 'xiaowu0162/LongMemEval@9e0b455:src/evaluation/evaluate_qa.py:102-110',
    params: { temperature: 0, max_tokens: 10, n: 1 },
  }),
  unparseableIsWrong: true,
  readsTask: true,
  messages: (item) => [{ role: 'user', content: longMemEvalPrompt(item) }],
  parse: parseLongMemEvalVerdict,
};

function beamRubricProtocol(name: BeamJudgeProtocolName): JudgeProtocol {
  const notLabelled = (): never => {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `judge ${name}: scores rubric items (scoreBeamQuestion), not a question against a gold`,
    );
  };
  return {
    name,
    record: beamJudgeRecord(name),
    jsonMode: false,
    unparseableIsWrong: false,
    rubric: name,
    messages: notLabelled,
    parse: notLabelled,
  };
}

const BUILT_IN: Readonly<Record<JudgeProtocolName, JudgeProtocol>> = {
  mem0: mem0Protocol,
  longmemeval: longMemEvalProtocol,
  strict: slotProtocol('strict', STRICT_JUDGE_TEMPLATE, true),
  // Sent as it always was: no response_format.
  'workbench-v1': slotProtocol('workbench-v1', JUDGE_TEMPLATE, false),
  'beam-rubric': beamRubricProtocol('beam-rubric'),
  'beam-rubric-corrected': beamRubricProtocol('beam-rubric-corrected'),
};

/** The protocol a judge config names (built-in by name, or the custom template it carries). */
export function judgeProtocolOf(protocol: JudgeProtocolChoice): JudgeProtocol {
  if (typeof protocol === 'string') return BUILT_IN[protocol];
  return customProtocol(protocol);
}

/**
 * The judge config with the `max_tokens` its requests really carry (a protocol that fixes it,
 * LongMemEval's 10, overrides the endpoint's), so a run's manifest records what was sent.
 */
export function judgeConfigAsSent<C extends { protocol: JudgeProtocolChoice; maxTokens: number }>(
  config: C,
): C {
  const fixed = judgeProtocolOf(config.protocol).maxTokens;
  return fixed === undefined ? config : { ...config, maxTokens: fixed };
}

function customProtocol(custom: CustomJudgeProtocol): JudgeProtocol {
  return slotProtocol(`custom:${custom.name}`, custom.template, custom.jsonMode);
}
