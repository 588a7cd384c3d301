import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Sample } from '../../../src-shared/dataset';
import { readLongMemEvalQuestion } from '../dataset/longmemeval';
import { answerProtocol } from './protocols';
import type { AnswerRequest, ConversationSession, MemoryHit } from './types';

/**
 * tests/fixtures/golden/longmemeval.json `readerPrompts` is written by
 * scripts/golden/generate-longmemeval.py, which calls LongMemEval's own prepare_prompt
 * (src/generation/run_generation.py) on the hand-made tests/fixtures/longmemeval/reader.json.
 */
interface ReaderCase {
  questionId: string;
  protocol: 'longmemeval' | 'longmemeval-direct' | 'longmemeval-full-context';
  ranked: string[];
  prompt: string;
}
const fixture = (path: string): unknown =>
  JSON.parse(readFileSync(fileURLToPath(new URL(`../../../${path}`, import.meta.url)), 'utf8'));
interface ConSeparateCase {
  questionId: string;
  ranked: string[];
  notes: Array<{ prompt: string; maxTokens: number; temperature: number; reply: string }>;
  prompt: string;
}
const golden = fixture('tests/fixtures/golden/longmemeval.json') as {
  readerPrompts: ReaderCase[];
  conSeparate: ConSeparateCase[];
};
const samples = new Map<string, Sample>(
  (fixture('tests/fixtures/longmemeval/reader.json') as unknown[]).map((raw, i) => {
    const { sample } = readLongMemEvalQuestion(raw, i, { source: 'reader.json' });
    if (!sample) throw new Error(`reader.json question ${i} does not load`);
    return [sample.sampleId, sample];
  }),
);

/** The reference's corpus id (`answer_r1_a_3`, or `noans_…`) as the loaded sample's turn. */
function hitOf(sample: Sample, corpusId: string): MemoryHit {
  const cut = corpusId.lastIndexOf('_');
  const sessionId = corpusId.slice(0, cut).replace('noans_', 'answer_');
  const session = sample.sessions.find((s) => s.sessionId === sessionId);
  const turn = session?.turns[Number(corpusId.slice(cut + 1)) - 1];
  if (!session || !turn) throw new Error(`no turn for ${corpusId}`);
  return {
    id: corpusId,
    diaId: turn.diaId,
    text: `${turn.speaker}: ${turn.text}`,
    speaker: turn.speaker,
    score: 1,
    sessionDateTime: session.dateTime,
  };
}

function requestOf(sample: Sample, memories: MemoryHit[]): AnswerRequest {
  const qa = sample.qa[0]!;
  const conversation: ConversationSession[] = sample.sessions.map((s) => ({
    dateTimeText: s.dateTimeText ?? '',
    turns: s.turns.map((t) => ({ speaker: t.speaker, text: t.rawText })),
  }));
  return {
    sampleId: sample.sampleId,
    questionIndex: 0,
    question: qa.question,
    category: qa.category,
    speakers: sample.speakers,
    memories,
    seed: 1,
    questionDateText: qa.questionDateText ?? '',
    benchmark: 'longmemeval',
    conversation,
  };
}

describe('LongMemEval reader protocols', () => {
  it('build prepare_prompt byte for byte: con, direct and the full history', () => {
    expect(golden.readerPrompts.length).toBe(21);
    for (const c of golden.readerPrompts) {
      const sample = samples.get(c.questionId)!;
      const request = requestOf(
        sample,
        c.ranked.map((id) => hitOf(sample, id)),
      );
      const built = answerProtocol(c.protocol).build(request, { contextTokens: 1_000_000 });
      expect(built.messages, `${c.protocol} ${c.questionId}`).toEqual([
        { role: 'user', content: c.prompt },
      ]);
    }
  });

  it('con-separate: the note requests, then the answer over the stripped notes, byte for byte', () => {
    const protocol = answerProtocol('longmemeval-con-separate');
    expect(golden.conSeparate.length).toBe(7);
    for (const c of golden.conSeparate) {
      const sample = samples.get(c.questionId)!;
      const request = requestOf(
        sample,
        c.ranked.map((id) => hitOf(sample, id)),
      );
      expect(protocol.notes?.prompts(request), c.questionId).toEqual(c.notes.map((n) => n.prompt));
      for (const n of c.notes) expect(protocol.notes?.maxTokens).toBe(n.maxTokens);
      const built = protocol.notes?.build(
        request,
        c.notes.map((n) => n.reply),
      );
      expect(built?.messages, c.questionId).toEqual([{ role: 'user', content: c.prompt }]);
    }
  });

  it('ask for as many tokens as run_generation.py does', () => {
    expect(answerProtocol('longmemeval').maxTokens).toBe(800);
    expect(answerProtocol('longmemeval-direct').maxTokens).toBe(500);
    expect(answerProtocol('longmemeval-full-context').maxTokens).toBe(800);
    expect(answerProtocol('longmemeval-con-separate').maxTokens).toBe(800);
  });
});
