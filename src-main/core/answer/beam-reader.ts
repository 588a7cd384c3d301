import { promptRecordOf, type BuiltPrompt } from './prompts';
import type { AnswerProtocol } from './answerProtocol';
import type { AnswerRequest, MemoryHit } from './types';

/**
 * BEAM's answer protocol `beam`: the reference's RAG path (mohammadtavakoli78/BEAM b2a3ee8,
 * `src/answer_probing_questions/long_term_memory_methods.py` `probing_question_evaluation` with
 * `evaluation_type="rag"`), which is the one that answers from retrieved memory as the workbench
 * does; its other path (`long-context`) sends the whole chat as messages and retrieves nothing.
 *
 * - Context: `handling_context` for the chunked retrievers (`turn_chunk`/`pair_chunk`): the
 *   retrieved chunks' texts concatenated in retrieval order, a chunk skipped when
 *   `len(context + text) // 3.5` would reach 29,000 (later, smaller ones may still fit). A chunk
 *   is `create_chunking`'s turn_chunk text, `ROLE: content \n\n` per message. The workbench's
 *   retrieval unit is one message, the reference's a turn (a user message and its reply): a
 *   retrieved message is its own chunk, so two consecutive hits of one turn give the
 *   reference's chunk byte for byte.
 * - Prompt: `answer_generation_for_rag` with `<context>` then `<question>` replaced (str.replace:
 *   a `<question>` inside the context is replaced too), one user message.
 * - Request: the reader `BuildLLm(..., temperature=0)`, langchain's ChatOpenAI: no seed, no
 *   max_tokens (`plainRequest`).
 */

/** `answer_generation_for_rag`, exactly (golden-tested). */
export const BEAM_RAG_ANSWER_PROMPT = [
  '',
  'You are an assistant that MUST answer questions using ONLY the information provided in the context below. ',
  '',
  'STRICT INSTRUCTIONS:',
  '1. Answer ONLY based on the provided context',
  '2. Do NOT use your internal knowledge',
  '',
  'CONTEXT:',
  '<context>',
  '',
  'QUESTION:',
  '<question>',
  '',
  'ANSWER REQUIREMENTS:',
  '- Be direct and concise',
  '- Only output the answer to the question without any explanation ',
  '',
  'RESPONSE:',
  '',
].join('\n');

/** `handling_context`'s reader budget: a context of `len // 3.5` below this many tokens. */
export const BEAM_READER_MAX_TOKENS = 29_000;

/** Python `len`: code points. */
function pyLen(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** A retrieved memory as a turn_chunk line: `ROLE: content \n\n` (the role upper-cased). */
export function beamChunkText(hit: MemoryHit): string {
  if (hit.speaker === null) return `${hit.text} \n\n`;
  const prefix = `${hit.speaker}: `;
  const content = hit.text.startsWith(prefix) ? hit.text.slice(prefix.length) : hit.text;
  return `${hit.speaker.toUpperCase()}: ${content} \n\n`;
}

/** `handling_context` (turn_chunk): chunks in order while `len(context + text) // 3.5 < 29000`. */
export function beamRagContext(texts: readonly string[]): string {
  let context = '';
  let length = 0;
  for (const text of texts) {
    const next = length + pyLen(text);
    if (Math.floor(next / 3.5) < BEAM_READER_MAX_TOKENS) {
      context += text;
      length = next;
    }
  }
  return context;
}

function pyReplace(text: string, old: string, value: string): string {
  return text.split(old).join(value);
}

export function buildBeamPrompt(request: AnswerRequest): BuiltPrompt {
  const context = beamRagContext(request.memories.map(beamChunkText));
  const content = pyReplace(
    pyReplace(BEAM_RAG_ANSWER_PROMPT, '<context>', context),
    '<question>',
    request.question,
  );
  return { messages: [{ role: 'user', content }], options: null, context };
}

export const BEAM_ANSWER_PROTOCOL: AnswerProtocol = {
  name: 'beam',
  record: promptRecordOf('beam', {
    answer: BEAM_RAG_ANSWER_PROMPT,
    chunk: '{ROLE}: {content} \n\n',
    maxContextTokens: String(BEAM_READER_MAX_TOKENS),
  }),
  maxTokens: null,
  needsConversation: false,
  plainRequest: true,
  build: buildBeamPrompt,
};
