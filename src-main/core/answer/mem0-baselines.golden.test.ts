import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import golden from '../../../tests/fixtures/golden/prompts.json';
import type { Sample } from '../../../src-shared/dataset';
import { loadDatasetFile } from '../dataset/load';
import { chunkDocument, mem0HistoryLine } from '../memory/presets/mem0-rag';
import {
  answerProtocol,
  buildMem0FullContextPrompt,
  buildMem0RagPrompt,
  mem0ChatHistory,
} from './protocols';
import type { AnswerRequest, ConversationSession, MemoryHit } from './types';

/**
 * Mem0's chunked-RAG and full-context baselines against tests/fixtures/golden/prompts.json
 * (`mem0Baselines`), which scripts/golden/generate-prompts.py writes by running mem0's own
 * evaluation/src/rag.py (RAGManager with a recording OpenAI stub and, for want of tiktoken, one
 * token per character; full context is its chunk_size -1 path, `make run-full-context`).
 */
// The real dataset sits in ../shared beside the clone (never committed); absent, its test is skipped.
const DATASET = fileURLToPath(
  new URL('../../../../shared/datasets/locomo10.json', import.meta.url),
);
const chars = (text: string): string[] => [...text];

type MadeUpTurn = { speaker: string; text: string };

function sessionsOf(conv: Record<string, unknown>): ConversationSession[] {
  const sessions: ConversationSession[] = [];
  for (let i = 1; Array.isArray(conv[`session_${i}`]); i++) {
    sessions.push({
      dateTimeText: conv[`session_${i}_date_time`] as string,
      turns: (conv[`session_${i}`] as MadeUpTurn[]).map((t) => ({
        speaker: t.speaker,
        text: t.text,
      })),
    });
  }
  return sessions;
}

function request(question: string, extra: Partial<AnswerRequest>): AnswerRequest {
  return {
    sampleId: 's',
    benchmark: 'locomo',
    questionIndex: 0,
    question,
    category: 4,
    speakers: ['Ann', 'Bob'],
    memories: [],
    seed: 42,
    ...extra,
  };
}

const chunkHit = (text: string, i: number): MemoryHit => ({
  id: `C${i}`,
  diaId: null,
  text,
  speaker: null,
  score: 1,
  sessionDateTime: null,
});

describe('golden: Mem0 RAG and full-context baselines', () => {
  const made = golden.mem0Baselines.madeUp;
  const sessions = sessionsOf(made.conversation as unknown as Record<string, unknown>);

  it('chunks the chat history as create_chunks does and sends rag.py bytes for the top k', () => {
    const history = mem0ChatHistory(sessions);
    expect(made.rag.length).toBe(2);
    for (const { chunkSize, k, cases } of made.rag) {
      for (const c of cases) {
        expect(chunkDocument(history, chunkSize, chars)).toEqual(c.chunks);
        const picked = (c.picked ?? []).map((p) => chunkHit(c.chunks[p] as string, p));
        expect(picked).toHaveLength(k);
        const built = buildMem0RagPrompt(request(c.question, { memories: picked }));
        expect(built.messages, `${chunkSize}/${k}: ${c.question}`).toEqual(c.messages);
        expect(c.temperature).toBe(0);
        expect(c.maxTokens).toBeNull();
        expect(answerProtocol('mem0-rag').maxTokens).toBeNull();
      }
    }
  });

  it('sends the whole history so far for full context (chunk_size -1)', () => {
    for (const c of made.fullContext) {
      const built = buildMem0FullContextPrompt(request(c.question, { conversation: sessions }));
      expect(built.messages).toEqual(c.messages);
    }
    expect(answerProtocol('mem0-full-context').needsConversation).toBe(true);
  });

  it('writes history lines as clean_chat_history does', () => {
    expect(mem0HistoryLine('1:56 pm on 8 May, 2023', 'Ann', 'Hi')).toBe(
      '1:56 pm on 8 May, 2023 | Ann: Hi\n',
    );
  });

  it.skipIf(golden.mem0Baselines.fullContextReal === null || !existsSync(DATASET))(
    "matches full-context bytes on Mem0's own locomo10_rag.json (from locomo10.json here)",
    async () => {
      const real = golden.mem0Baselines.fullContextReal;
      if (real === null) throw new Error('the golden file has no real-dataset entries');
      const { samples } = await loadDatasetFile(DATASET);
      expect(real).toHaveLength(10);
      for (const entry of real) {
        const sample = samples[entry.conversation] as Sample;
        const conversation = sample.sessions.map((s) => ({
          dateTimeText: s.dateTimeText ?? '',
          turns: s.turns.map((t) => ({ speaker: t.speaker, text: t.rawText })),
        }));
        const content = buildMem0FullContextPrompt(request(entry.question, { conversation }))
          .messages[1]?.content as string;
        // Python counts code points.
        expect([...content].length, sample.sampleId).toBe(entry.chars);
        expect(createHash('sha256').update(content).digest('hex')).toBe(entry.sha256);
      }
    },
  );
});
