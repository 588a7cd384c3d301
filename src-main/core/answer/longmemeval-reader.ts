/**
 * LongMemEval's reader protocols' prompts: `con`, `direct`, the full history and `con-separate`'s
 * reading notes, as the answer protocols (protocols.ts) build them.
 */
import type { PromptRecord } from '../../../src-shared/runs';
import { pyStrip } from '../../../src-shared/scoring/pytext';
import {
  formatPositional,
  formatSessionDateTime,
  promptRecordOf,
  pyJsonString,
  type BuiltPrompt,
} from './prompts';
import type { AnswerRequest, ConversationSession, MemoryHit } from './types';

/**
 * LongMemEval's reader (xiaowu0162/LongMemEval `src/generation/run_generation.py` prepare_prompt,
 * with run_generation.sh's defaults: json history, assistant turns kept). `con` (its recommended
 * reading method, `--cot true`) asks step by step, `direct` does not. Filled with
 * (history, question_date, question): the question as the file writes it, its date as the file
 * writes it.
 */
export const LONGMEMEVAL_READER_CON =
  'I will give you several history chats between you and a user. Please answer the question based on the relevant chat history. Answer the question step by step: first extract all the relevant information, and then reason over the information to get the answer.\n\n\nHistory Chats:\n\n{}\n\nCurrent Date: {}\nQuestion: {}\nAnswer (step by step):';
export const LONGMEMEVAL_READER_DIRECT =
  'I will give you several history chats between you and a user. Please answer the question based on the relevant chat history.\n\n\nHistory Chats:\n\n{}\n\nCurrent Date: {}\nQuestion: {}\nAnswer:';
/** One chunk of the history: (position from 1, its session's date, `\n` + its json). */
export const LONGMEMEVAL_READER_SESSION =
  '\n### Session {}:\nSession Date: {}\nSession Content:\n{}\n';
/** run_generation.py `gen_length`: 800 tokens when reading step by step, else 500. */
export const LONGMEMEVAL_CON_TOKENS = 800;
export const LONGMEMEVAL_DIRECT_TOKENS = 500;

interface LongMemEvalChunk {
  date: string;
  json: string;
}

/** Python `json.dumps` of turns as the dataset holds them once `has_answer` is popped. */
function longMemEvalTurnsJson(turns: ReadonlyArray<{ speaker: string; text: string }>): string {
  const items = turns.map(
    (t) => `{"role": ${pyJsonString(t.speaker)}, "content": ${pyJsonString(t.text)}}`,
  );
  return `[${items.join(', ')}]`;
}

/**
 * A retrieved turn as the reference's flat-turn reader shows it: the round of that turn and the
 * next one of its session, dated by the session. LongMemEval's turn ids are `D<position of the
 * session>:<turn>`. A memory that is not a turn (a note) has no round: its text goes in as a
 * json string, as the reference shows an expansion that replaces the turn.
 */
function longMemEvalRound(
  hit: MemoryHit,
  conversation: readonly ConversationSession[],
): LongMemEvalChunk {
  const at = hit.diaId === null ? null : /^D(\d+):(\d+)$/.exec(hit.diaId);
  const session = at ? conversation[Number(at[1]) - 1] : undefined;
  const turn = at ? Number(at[2]) - 1 : -1;
  if (!session || turn < 0 || turn >= session.turns.length) {
    const date = hit.source?.dateTimeText ?? formatSessionDateTime(hit.sessionDateTime);
    return { date, json: pyJsonString(hit.text) };
  }
  return {
    date: session.dateTimeText,
    json: longMemEvalTurnsJson(session.turns.slice(turn, turn + 2)),
  };
}

/** The chunks sorted by date (a stable sort of the date strings, as Python's), then numbered. */
function longMemEvalHistory(chunks: readonly LongMemEvalChunk[]): string {
  const sorted = [...chunks].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  return sorted
    .map((c, i) =>
      formatPositional(LONGMEMEVAL_READER_SESSION, String(i + 1), c.date, `\n${c.json}`),
    )
    .join('');
}

function longMemEvalPrompt(request: AnswerRequest, template: string, history: string): BuiltPrompt {
  const content = formatPositional(
    template,
    history,
    request.questionDateText ?? '',
    request.question,
  );
  // The history is the retrieved context the reader is given: its memory tokens.
  return { messages: [{ role: 'user', content }], options: null, context: history };
}

/** The flat-turn reader over the retrieved turns (`con` or `direct`). */
export function buildLongMemEvalPrompt(request: AnswerRequest, template: string): BuiltPrompt {
  const conversation = request.conversation ?? [];
  const chunks = request.memories.map((hit) => longMemEvalRound(hit, conversation));
  return longMemEvalPrompt(request, template, longMemEvalHistory(chunks));
}

/**
 * run_generation.py `prepare_prompt`'s `con` step (reading method `con-separate`): one request per
 * retrieved chunk for reading notes, before the answer is asked over the notes.
 */
export const LONGMEMEVAL_NOTE_PROMPT =
  'I will give you a chat history between you and a user, as well as a question from the user. Write reading notes to extract all the relevant user information relevant to answering the answer. If no relevant information is found, just output "empty". \n\n\nChat History:\nSession Date: {}\nSession Content:\n{}\n\nQuestion Date: {}\nQuestion: {}\nExtracted note (information relevant to answering the question):';
/** The note requests' `max_tokens` in prepare_prompt. */
export const LONGMEMEVAL_NOTE_TOKENS = 500;

/** The note requests for the retrieved rounds, in retrieval order (the reference's). */
export function longMemEvalNotePrompts(request: AnswerRequest): string[] {
  const conversation = request.conversation ?? [];
  return request.memories.map((hit) => {
    const chunk = longMemEvalRound(hit, conversation);
    return formatPositional(
      LONGMEMEVAL_NOTE_PROMPT,
      chunk.date,
      chunk.json,
      request.questionDateText ?? '',
      request.question,
    );
  });
}

/**
 * The `con` answer prompt over the model's notes: each retrieved round replaced by
 * `{"session_summary": note}` (the reply stripped, as the reference does), kept at its date.
 */
export function buildLongMemEvalNotesPrompt(
  request: AnswerRequest,
  replies: readonly string[],
): BuiltPrompt {
  const conversation = request.conversation ?? [];
  if (replies.length !== request.memories.length) {
    throw new Error(
      `longmemeval-con-separate: ${replies.length} notes for ${request.memories.length} retrieved memories`,
    );
  }
  const chunks = request.memories.map((hit, i) => ({
    date: longMemEvalRound(hit, conversation).date,
    json: `{"session_summary": ${pyJsonString(pyStrip(replies[i] as string))}}`,
  }));
  return longMemEvalPrompt(request, LONGMEMEVAL_READER_CON, longMemEvalHistory(chunks));
}

/** The long-context baseline (`full-history-session`): every session so far, whole. */
export function buildLongMemEvalFullContextPrompt(request: AnswerRequest): BuiltPrompt {
  const chunks = (request.conversation ?? []).map((session) => ({
    date: session.dateTimeText,
    json: longMemEvalTurnsJson(session.turns),
  }));
  return longMemEvalPrompt(request, LONGMEMEVAL_READER_CON, longMemEvalHistory(chunks));
}

export function longMemEvalRecord(name: string, question: string): PromptRecord {
  return promptRecordOf(name, {
    question,
    session: LONGMEMEVAL_READER_SESSION,
    turn: '{"role": {role}, "content": {content}}',
  });
}
