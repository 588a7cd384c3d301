import {
  answerProtocolOf,
  type AnswererConfig,
  type AnswerProtocolName,
  type AdversarialReplyMapping,
} from '../../../src-shared/experiment';
import { WorkbenchError } from '../../../src-shared/errors';
import { pyStrip } from '../../../src-shared/scoring/pytext';
import {
  ANSWER_TEMPLATES,
  WORKBENCH_MEMORY_ORDER,
  buildAnswerPrompt,
  category5Options,
  fill,
  formatPositional,
  formatSessionDateTime,
  interpretAnswer,
  promptRecordOf,
  pyJsonDumpsStrings,
  type BuiltPrompt,
} from './prompts';
import {
  LONGMEMEVAL_CON_TOKENS,
  LONGMEMEVAL_DIRECT_TOKENS,
  LONGMEMEVAL_NOTE_PROMPT,
  LONGMEMEVAL_NOTE_TOKENS,
  LONGMEMEVAL_READER_CON,
  LONGMEMEVAL_READER_DIRECT,
  LONGMEMEVAL_READER_SESSION,
  buildLongMemEvalFullContextPrompt,
  buildLongMemEvalNotesPrompt,
  buildLongMemEvalPrompt,
  longMemEvalNotePrompts,
  longMemEvalRecord,
} from './longmemeval-reader';
import { BEAM_ANSWER_PROTOCOL } from './beam-reader';
import { referenceTemperatureIssue, type ReferenceRequest } from './referenceRequest';
import {
  askedQuestion,
  isAdversarialRequest,
  wantsDateHintRequest,
  type AnswerRequest,
  type ConversationSession,
  type MemoryHit,
} from './types';

/**
 * Named answer protocols: the bytes sent for a question, the request settings a protocol fixes,
 * and the templates recorded (with their sha256) in the run manifest.
 *
 * - `locomo-full-context`: snap-research/locomo `task_eval/evaluate_gpts.py` (branch `code`),
 *   batch size 1: CONV_START_PROMPT (with its typo "wriiten"), the conversation built by
 *   `get_input_context` (sessions newest first, turns prepended from the end until the context
 *   budget is spent, `DATE: …\nCONVERSATION:\n` per session, `Speaker said, "text"`,
 *   `[shares caption]` after a turn with an image), then `\n\n` and QA_PROMPT (QA_PROMPT_CAT_5 for
 *   category 5); one user message (the reference's GPT-4 path), 32 answer tokens. The released
 *   locomo10.json names `clean_text` as `text` and carries `blip_caption` without `img_file`:
 *   a turn with a caption is a turn that shared an image. Token counts come from a `TokenCounter`;
 *   the default is an estimate, so a cut is the reference's only with its tokenizer (tiktoken).
 * - `mem0`: mem0ai/mem0 `evaluation/src/memzero/search.py` with `evaluation/prompts.py`
 *   ANSWER_PROMPT (at 9315e3036^): the whole prompt rendered as jinja renders it, as one system
 *   message; each speaker's memories as `json.dumps([f"{timestamp}: {memory}", …], indent=4)`.
 *   Mem0 searches once per speaker (top_k 30); the workbench's memory services search once, so
 *   the retrieved memories are split by speaker (a memory of neither speaker goes to both lists).
 * - `workbench-locomo`, `workbench-mem0`: the workbench's earlier prompts (prompts.ts).
 */

/** task_eval/evaluate_gpts.py CONV_START_PROMPT, `{}` slots filled in order. */
export const LOCOMO_CONV_START_PROMPT =
  'Below is a conversation between two people: {} and {}. The conversation takes place over multiple days and the date of each conversation is wriiten at the beginning of the conversation.\n\n';
export const LOCOMO_QA_PROMPT =
  '\nBased on the above context, write an answer in the form of a short phrase for the following question. Answer with exact words from the context whenever possible.\n\nQuestion: {} Short answer:\n';
export const LOCOMO_QA_PROMPT_CAT_5 =
  '\nBased on the above context, answer the following question.\n\nQuestion: {} Short answer:\n';
/** Only counted, never sent, at batch size 1: the reference counts it into the question's tokens. */
export const LOCOMO_QA_PROMPT_BATCH =
  '\nBased on the above conversations, write short answers for each of the following questions in a few words. \nWrite the answers in the form of a json dictionary where each entry contains the question number as "key" and the short answer as "value". \nUse single-quote characters for named entities and double-quote characters for enclosing json elements. Answer with exact words from the conversations whenever possible.\n\n';
export const LOCOMO_DATE_HINT = ' Use DATE of CONVERSATION to answer with an approximate date.';
export const LOCOMO_OPTIONS = ' Select the correct answer: (a) {} (b) {}. ';
/** Tokens the reference keeps free per question for the answer (PER_QA_TOKEN_BUDGET). */
export const LOCOMO_PER_QA_TOKEN_BUDGET = 50;
export const LOCOMO_ANSWER_TOKENS = 32;

/**
 * What each mirrored reference sends besides the model and messages (`ReferenceRequest`), read
 * from its code; the protocols' entries below point at these, and the requests are built from
 * them. None sends a seed.
 */
const LOCOMO_REFERENCE_CODE = 'snap-research/locomo@9228632';
const MEM0_REFERENCE_CODE = 'mem0ai/mem0@b3ede5b7c';
const LONGMEMEVAL_REFERENCE_CODE = 'xiaowu0162/LongMemEval@9e0b455';

/**
 * LoCoMo at batch size 1 (full context and `--use-rag` alike): `run_chatgpt(query, num_gen=1,
 * num_tokens_request=32, temperature=0)`, whose GPT-4 branch sends temperature, max_tokens and n.
 */
export const LOCOMO_ANSWER_REFERENCE: ReferenceRequest = {
  citation: `${LOCOMO_REFERENCE_CODE}:task_eval/evaluate_gpts.py:436-439, global_methods.py:119-128`,
  params: { temperature: 0, max_tokens: LOCOMO_ANSWER_TOKENS, n: 1 },
};

/** LoCoMo with `--batch-size` > 1: the same call with `batch_size * PER_QA_TOKEN_BUDGET` tokens. */
export function locomoBatchReference(batchSize: number): ReferenceRequest {
  return {
    citation: `${LOCOMO_REFERENCE_CODE}:task_eval/evaluate_gpts.py:463-466, global_methods.py:119-128`,
    params: { temperature: 0, max_tokens: LOCOMO_PER_QA_TOKEN_BUDGET * batchSize, n: 1 },
  };
}

/** Mem0's answer: `chat.completions.create(model, messages, temperature=0.0)`, nothing more. */
export const MEM0_ANSWER_REFERENCE: ReferenceRequest = {
  citation: `${MEM0_REFERENCE_CODE}:evaluation/src/memzero/search.py:113-115`,
  params: { temperature: 0 },
};

/** Mem0's RAG and full-context baselines (rag.py `generate_response`): temperature 0 only. */
export const MEM0_RAG_REFERENCE: ReferenceRequest = {
  citation: `${MEM0_REFERENCE_CODE}:evaluation/src/rag.py:44-59`,
  params: { temperature: 0 },
};

/** LongMemEval's reader: n 1, temperature 0, `gen_length` (800 with chain-of-note, else 500). */
function longMemEvalReaderReference(maxTokens: number): ReferenceRequest {
  return {
    citation: `${LONGMEMEVAL_REFERENCE_CODE}:src/generation/run_generation.py:340-342, 361-368`,
    params: { temperature: 0, max_tokens: maxTokens, n: 1 },
  };
}

/** LongMemEval's reading note per retrieved session: n 1, temperature 0, max_tokens 500. */
export const LONGMEMEVAL_NOTE_REFERENCE: ReferenceRequest = {
  citation: `${LONGMEMEVAL_REFERENCE_CODE}:src/generation/run_generation.py:204-212`,
  params: { temperature: 0, max_tokens: LONGMEMEVAL_NOTE_TOKENS, n: 1 },
};

/** A protocol entry's reference and the answer length it fixes (none: the reference sends none). */
function mirrors(reference: ReferenceRequest): Pick<AnswerProtocol, 'reference' | 'maxTokens'> {
  return { reference, maxTokens: reference.params.max_tokens ?? null };
}

/** mem0 evaluation/prompts.py ANSWER_PROMPT, exactly (golden-tested), jinja `{{ }}` slots. */
export const MEM0_ANSWER_PROMPT = [
  '',
  '    You are an intelligent memory assistant tasked with retrieving accurate information from conversation memories.',
  '',
  '    # CONTEXT:',
  '    You have access to memories from two speakers in a conversation. These memories contain ',
  '    timestamped information that may be relevant to answering the question.',
  '',
  '    # INSTRUCTIONS:',
  '    1. Carefully analyze all provided memories from both speakers',
  '    2. Pay special attention to the timestamps to determine the answer',
  '    3. If the question asks about a specific event or fact, look for direct evidence in the memories',
  '    4. If the memories contain contradictory information, prioritize the most recent memory',
  '    5. If there is a question about time references (like "last year", "two months ago", etc.), ',
  '       calculate the actual date based on the memory timestamp. For example, if a memory from ',
  '       4 May 2022 mentions "went to India last year," then the trip occurred in 2021.',
  '    6. Always convert relative time references to specific dates, months, or years. For example, ',
  '       convert "last year" to "2022" or "two months ago" to "March 2023" based on the memory ',
  '       timestamp. Ignore the reference while answering the question.',
  '    7. Focus only on the content of the memories from both speakers. Do not confuse character ',
  '       names mentioned in memories with the actual users who created those memories.',
  '    8. The answer should be less than 5-6 words.',
  '',
  '    # APPROACH (Think step by step):',
  '    1. First, examine all memories that contain information related to the question',
  '    2. Examine the timestamps and content of these memories carefully',
  '    3. Look for explicit mentions of dates, times, locations, or events that answer the question',
  '    4. If the answer requires calculation (e.g., converting relative time references), show your work',
  '    5. Formulate a precise, concise answer based solely on the evidence in the memories',
  '    6. Double-check that your answer directly addresses the question asked',
  '    7. Ensure your final answer is specific and avoids vague time references',
  '',
  '    Memories for user {{speaker_1_user_id}}:',
  '',
  '    {{speaker_1_memories}}',
  '',
  '    Memories for user {{speaker_2_user_id}}:',
  '',
  '    {{speaker_2_memories}}',
  '',
  '    Question: {{question}}',
  '',
  '    Answer:',
  '    ',
].join('\n');

/** mem0 evaluation/src/rag.py PROMPT (jinja; rendering drops its final newline). */
export const MEM0_RAG_PROMPT =
  '\n# Question: \n{{QUESTION}}\n\n# Context: \n{{CONTEXT}}\n\n# Short answer:\n';
/** mem0 evaluation/src/rag.py generate_response's system message (its sentences run together). */
export const MEM0_RAG_SYSTEM =
  'You are a helpful assistant that can answer questions based on the provided context.' +
  'If the question involves timing, use the conversation date for reference.' +
  'Provide the shortest possible answer.' +
  'Use words directly from the conversation when possible.' +
  'Avoid using subjects in your answer.';
/** rag.py `search`: the top-k chunks joined by this. */
export const MEM0_RAG_CHUNK_SEPARATOR = '\n<->\n';

export {
  ESTIMATE_TOKEN_PATTERN,
  estimateTokens,
  memoryTokensOf,
  memoryTokensOfLines,
  type TokenCounter,
} from './tokenEstimate';
import { estimateTokens, type TokenCounter } from './tokenEstimate';

function locomoTurn(turn: ConversationSession['turns'][number]): string {
  let line = `${turn.speaker} said, "${turn.text}"\n`;
  if (turn.blipCaption !== undefined) line += `[shares ${turn.blipCaption}]\n`;
  return line;
}

/**
 * `get_input_context`: walks sessions from the newest, prepending turns from the end while
 * `tokens(header + turn) + tokens(so far) + questionTokens < budget - 50 * batchSize`; the first
 * turn that does not fit ends the walk, and its session still gets its header. Every session
 * up to the newest non-empty one gets `\n\n` appended before its turns, as in the reference.
 */
export function locomoConversationContext(
  sessions: readonly ConversationSession[],
  questionTokens: number,
  contextTokens: number,
  countTokens: TokenCounter,
  batchSize = 1,
): string {
  let last = -1;
  for (let i = 0; i < sessions.length; i++) if ((sessions[i]?.turns.length ?? 0) > 0) last = i;
  let conv = '';
  // Every piece ends in a newline, so a whitespace-splitting counter can keep a running total.
  const running = countTokens.splitsOnWhitespace === true;
  let convTokens = 0;
  const limit = contextTokens - LOCOMO_PER_QA_TOKEN_BUDGET * batchSize;
  for (let i = last; i >= 0; i--) {
    const session = sessions[i] as ConversationSession;
    const header = `DATE: ${session.dateTimeText}\nCONVERSATION:\n`;
    conv += '\n\n';
    let stop = false;
    for (let t = session.turns.length - 1; t >= 0; t--) {
      const turn = locomoTurn(session.turns[t] as ConversationSession['turns'][number]);
      const soFar = running ? convTokens : countTokens(conv);
      if (countTokens(header + turn) + soFar + questionTokens < limit) {
        conv = turn + conv;
        if (running) convTokens += countTokens(turn);
      } else {
        stop = true;
        break;
      }
    }
    conv = header + conv;
    if (running) convTokens += countTokens(header);
    if (stop) break;
  }
  return conv;
}

/** The question as the LoCoMo reference asks it (date hint for temporal, two options for 5). */
export function locomoQuestion(
  request: AnswerRequest,
  options: { a: string; b: string } | null,
): string {
  const question = askedQuestion(request);
  if (wantsDateHintRequest(request)) return question + LOCOMO_DATE_HINT;
  if (options) return question + formatPositional(LOCOMO_OPTIONS, options.a, options.b);
  return question;
}

/** A category-5 question's two options, in the run-seeded order. */
export function locomoOptionsOf(request: AnswerRequest): { a: string; b: string } | null {
  if (!isAdversarialRequest(request) || !request.adversarialAnswer) return null;
  return category5Options(
    request.seed,
    request.sampleId,
    request.questionIndex,
    request.adversarialAnswer,
  );
}

/**
 * The LoCoMo full-context prompt for one question (batch size 1). `options` defaults to the
 * run-seeded draw (the reference draws with `random.random()`); tests pass the reference's.
 */
export function buildLocomoFullContextPrompt(
  request: AnswerRequest,
  contextTokens: number,
  countTokens: TokenCounter = estimateTokens,
  options: { a: string; b: string } | null = locomoOptionsOf(request),
): BuiltPrompt {
  const question = locomoQuestion(request, options);
  const start = formatPositional(LOCOMO_CONV_START_PROMPT, ...request.speakers);
  const questionTokens =
    countTokens(`${LOCOMO_QA_PROMPT_BATCH}0: ${question}`) + countTokens(start);
  const conv = locomoConversationContext(
    request.conversation ?? [],
    questionTokens,
    contextTokens,
    countTokens,
  );
  const qa = isAdversarialRequest(request) ? LOCOMO_QA_PROMPT_CAT_5 : LOCOMO_QA_PROMPT;
  return {
    messages: [{ role: 'user', content: `${start}${conv}\n\n${formatPositional(qa, question)}` }],
    options,
    context: conv,
  };
}

/** A retrieved memory as LoCoMo's RAG context line: `date_time + ': ' + context`. */
function locomoRagLine(hit: MemoryHit): string {
  const date = hit.source?.dateTimeText ?? formatSessionDateTime(hit.sessionDateTime);
  return `${date}: ${hit.text}`;
}

/**
 * The LoCoMo RAG prompt (`get_rag_context` + the batch-size-1 query of `get_gpt_answers`): the k
 * retrieved entries as `date_time: context` lines, joined by `\n` (dialog and observation
 * databases) or `\n\n` (session summaries), no start prompt, then `\n\n` and QA_PROMPT.
 */
export function buildLocomoRagPrompt(
  request: AnswerRequest,
  options: { a: string; b: string } | null = locomoOptionsOf(request),
): BuiltPrompt {
  const question = locomoQuestion(request, options);
  const summaries =
    request.memories.length > 0 && request.memories.every((m) => m.source?.kind === 'summary');
  const context = request.memories.map(locomoRagLine).join(summaries ? '\n\n' : '\n');
  const qa = isAdversarialRequest(request) ? LOCOMO_QA_PROMPT_CAT_5 : LOCOMO_QA_PROMPT;
  return {
    messages: [{ role: 'user', content: `${context}\n\n${formatPositional(qa, question)}` }],
    options,
    context,
  };
}

function mem0MemoryLine(hit: MemoryHit): string {
  return `${formatSessionDateTime(hit.sessionDateTime)}: ${hit.text}`;
}

/** The Mem0 answer prompt: two speakers' memories as JSON lists, one system message. */
export function buildMem0Prompt(request: AnswerRequest): BuiltPrompt {
  const [speakerA, speakerB] = request.speakers;
  const first: string[] = [];
  const second: string[] = [];
  for (const hit of request.memories) {
    const line = mem0MemoryLine(hit);
    if (hit.speaker !== speakerB) first.push(line);
    if (hit.speaker !== speakerA) second.push(line);
  }
  const memories = {
    // search.py: the user id is `<speaker>_<idx>`, and the prompt shows `.split("_")[0]`.
    speaker_1_user_id: speakerA.split('_')[0] as string,
    speaker_2_user_id: speakerB.split('_')[0] as string,
    speaker_1_memories: pyJsonDumpsStrings(first),
    speaker_2_memories: pyJsonDumpsStrings(second),
  };
  const content = fill(MEM0_ANSWER_PROMPT, { ...memories, question: askedQuestion(request) });
  return {
    messages: [{ role: 'system', content }],
    options: null,
    context: `${memories.speaker_1_memories}\n${memories.speaker_2_memories}`,
  };
}

/** rag.py `clean_chat_history`: one `timestamp | speaker: text` line per turn, in order. */
export function mem0ChatHistory(sessions: readonly ConversationSession[]): string {
  let out = '';
  for (const session of sessions)
    for (const turn of session.turns)
      out += `${session.dateTimeText} | ${turn.speaker}: ${turn.text}\n`;
  return out;
}

/** rag.py `generate_response`: its system message, then PROMPT rendered by jinja. */
function mem0RagMessages(question: string, context: string): BuiltPrompt['messages'] {
  // jinja's Template drops one trailing newline of the template (keep_trailing_newline=False).
  const template = MEM0_RAG_PROMPT.endsWith('\n') ? MEM0_RAG_PROMPT.slice(0, -1) : MEM0_RAG_PROMPT;
  return [
    { role: 'system', content: MEM0_RAG_SYSTEM },
    { role: 'user', content: fill(template, { CONTEXT: context, QUESTION: question }) },
  ];
}

/** Mem0's RAG baseline: the k retrieved chunks joined by `\n<->\n` (rag.py `search`). */
export function buildMem0RagPrompt(request: AnswerRequest): BuiltPrompt {
  const context = request.memories.map((m) => m.text).join(MEM0_RAG_CHUNK_SEPARATOR);
  return { messages: mem0RagMessages(askedQuestion(request), context), options: null, context };
}

/** Mem0's full-context baseline: rag.py with `chunk_size -1`, the whole chat history so far. */
export function buildMem0FullContextPrompt(request: AnswerRequest): BuiltPrompt {
  const context = mem0ChatHistory(request.conversation ?? []);
  return { messages: mem0RagMessages(askedQuestion(request), context), options: null, context };
}

/**
 * Model calls a protocol makes before its answer prompt: one per prompt, each asked for
 * `maxTokens`, whose replies `build` turns into the answer prompt (LongMemEval's reading notes).
 */
export type { AnswerNotesStage, AnswerProtocol } from './answerProtocol';
import type { AnswerProtocol } from './answerProtocol';

const PROTOCOLS: Readonly<Record<AnswerProtocolName, AnswerProtocol>> = {
  'workbench-locomo': {
    name: 'workbench-locomo',
    record: promptRecordOf('workbench-locomo', {
      ...ANSWER_TEMPLATES.locomo,
      memoryOrder: WORKBENCH_MEMORY_ORDER,
    }),
    maxTokens: null,
    needsConversation: false,
    build: (request) => buildAnswerPrompt('locomo', request),
  },
  'workbench-mem0': {
    name: 'workbench-mem0',
    record: promptRecordOf('workbench-mem0', {
      ...ANSWER_TEMPLATES.mem0,
      memoryOrder: WORKBENCH_MEMORY_ORDER,
    }),
    maxTokens: null,
    needsConversation: false,
    build: (request) => buildAnswerPrompt('mem0', request),
  },
  'locomo-full-context': {
    name: 'locomo-full-context',
    record: promptRecordOf('locomo-full-context', {
      start: LOCOMO_CONV_START_PROMPT,
      question: LOCOMO_QA_PROMPT,
      questionCategory5: LOCOMO_QA_PROMPT_CAT_5,
      questionBatch: LOCOMO_QA_PROMPT_BATCH,
      dateHint: LOCOMO_DATE_HINT,
      options: LOCOMO_OPTIONS,
    }),
    ...mirrors(LOCOMO_ANSWER_REFERENCE),
    needsConversation: true,
    build: (request, { contextTokens }) => buildLocomoFullContextPrompt(request, contextTokens),
  },
  'locomo-rag': {
    name: 'locomo-rag',
    record: promptRecordOf('locomo-rag', {
      context: '{date_time}: {context}',
      question: LOCOMO_QA_PROMPT,
      questionCategory5: LOCOMO_QA_PROMPT_CAT_5,
      dateHint: LOCOMO_DATE_HINT,
      options: LOCOMO_OPTIONS,
    }),
    ...mirrors(LOCOMO_ANSWER_REFERENCE),
    needsConversation: false,
    build: (request) => buildLocomoRagPrompt(request),
  },
  mem0: {
    name: 'mem0',
    record: promptRecordOf('mem0', { answer: MEM0_ANSWER_PROMPT }),
    ...mirrors(MEM0_ANSWER_REFERENCE),
    needsConversation: false,
    build: buildMem0Prompt,
  },
  'mem0-rag': {
    name: 'mem0-rag',
    record: promptRecordOf('mem0-rag', {
      system: MEM0_RAG_SYSTEM,
      user: MEM0_RAG_PROMPT,
      chunkSeparator: MEM0_RAG_CHUNK_SEPARATOR,
    }),
    ...mirrors(MEM0_RAG_REFERENCE),
    needsConversation: false,
    build: buildMem0RagPrompt,
  },
  'mem0-full-context': {
    name: 'mem0-full-context',
    record: promptRecordOf('mem0-full-context', {
      system: MEM0_RAG_SYSTEM,
      user: MEM0_RAG_PROMPT,
      line: '{timestamp} | {speaker}: {text}\n',
    }),
    ...mirrors(MEM0_RAG_REFERENCE),
    needsConversation: true,
    build: buildMem0FullContextPrompt,
  },
  longmemeval: {
    name: 'longmemeval',
    record: longMemEvalRecord('longmemeval', LONGMEMEVAL_READER_CON),
    ...mirrors(longMemEvalReaderReference(LONGMEMEVAL_CON_TOKENS)),
    // The round of a retrieved turn reads the next turn of its session.
    needsConversation: true,
    build: (request) => buildLongMemEvalPrompt(request, LONGMEMEVAL_READER_CON),
  },
  'longmemeval-direct': {
    name: 'longmemeval-direct',
    record: longMemEvalRecord('longmemeval-direct', LONGMEMEVAL_READER_DIRECT),
    ...mirrors(longMemEvalReaderReference(LONGMEMEVAL_DIRECT_TOKENS)),
    needsConversation: true,
    build: (request) => buildLongMemEvalPrompt(request, LONGMEMEVAL_READER_DIRECT),
  },
  'longmemeval-con-separate': {
    name: 'longmemeval-con-separate',
    record: promptRecordOf('longmemeval-con-separate', {
      note: LONGMEMEVAL_NOTE_PROMPT,
      question: LONGMEMEVAL_READER_CON,
      session: LONGMEMEVAL_READER_SESSION,
      noteChunk: '{"session_summary": {note}}',
    }),
    ...mirrors(longMemEvalReaderReference(LONGMEMEVAL_CON_TOKENS)),
    needsConversation: true,
    build: (request) => buildLongMemEvalPrompt(request, LONGMEMEVAL_READER_CON),
    notes: {
      maxTokens: LONGMEMEVAL_NOTE_TOKENS,
      reference: LONGMEMEVAL_NOTE_REFERENCE,
      prompts: longMemEvalNotePrompts,
      build: buildLongMemEvalNotesPrompt,
    },
  },
  'longmemeval-full-context': {
    name: 'longmemeval-full-context',
    record: longMemEvalRecord('longmemeval-full-context', LONGMEMEVAL_READER_CON),
    ...mirrors(longMemEvalReaderReference(LONGMEMEVAL_CON_TOKENS)),
    needsConversation: true,
    build: buildLongMemEvalFullContextPrompt,
  },
  beam: BEAM_ANSWER_PROTOCOL,
};

export function answerProtocol(name: AnswerProtocolName): AnswerProtocol {
  return PROTOCOLS[name];
}

/**
 * The max_tokens an answer request sends: a LoCoMo batch's 50 per question of the batch size, else
 * the protocol's fixed length (LoCoMo 32, LongMemEval 800/500), else the config's `maxTokens`.
 */
export function answerMaxTokensOf(
  config: { maxTokens: number; batchSize?: number | undefined },
  protocol: AnswerProtocol,
): number {
  const batchSize = config.batchSize ?? 1;
  return batchSize > 1
    ? (locomoBatchReference(batchSize).params.max_tokens as number)
    : (protocol.maxTokens ?? config.maxTokens);
}

/**
 * Refuses an LLM answerer whose endpoint temperature is not the one its protocol's reference
 * sends: the request would not be the reference's, and its manifest would say so only in passing.
 */
export function assertAnswererMirrorsReference(answerer: AnswererConfig): void {
  if (answerer.kind !== 'llm') return;
  const name = answerProtocolOf(answerer);
  const issue = referenceTemperatureIssue(
    PROTOCOLS[name].reference,
    answerer.temperature,
    `answer protocol ${name}`,
  );
  if (issue)
    throw new WorkbenchError('INVALID_INPUT', `answerer: ${issue}`, {
      path: ['answerer', 'temperature'],
    });
}

/**
 * LoCoMo `get_cat_5_answer`, exactly: the reply stripped and lowercased; one character picks (a)
 * if it is `a`, else (b); three characters pick (a) if they are `(a)`, else (b); anything else is
 * returned lowercased. Lengths are in code points, as Python counts them.
 */
export function locomoCategory5Answer(raw: string, options: { a: string; b: string }): string {
  const reply = pyStrip(raw).toLowerCase();
  const length = [...reply].length;
  if (length === 1) return reply.includes('a') ? options.a : options.b;
  if (length === 3) return reply.includes('(a)') ? options.a : options.b;
  return reply;
}

/** The answer as scored: stripped, and a two-option reply mapped back to its option. */
export function interpretReply(
  raw: string,
  built: Pick<BuiltPrompt, 'options'>,
  mapping: AdversarialReplyMapping,
): string {
  if (!built.options) return pyStrip(raw);
  return mapping === 'locomo'
    ? pyStrip(locomoCategory5Answer(raw, built.options))
    : interpretAnswer(raw, built);
}
