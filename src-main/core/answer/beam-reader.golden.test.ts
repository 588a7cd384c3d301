/**
 * BEAM's `beam` answer protocol against the reference's own `create_chunking` and
 * `handling_context` (turn_chunk) and `answer_generation_for_rag` as `probing_question_evaluation`
 * fills it (tests/fixtures/golden/beam.json), and its requests against the fake server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import golden from '../../../tests/fixtures/golden/beam.json';
import { LlmAnswererConfigSchema } from '../../../src-shared/experiment';
import {
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from '../../../tests/support/fake-openai-server';
import {
  BEAM_RAG_ANSWER_PROMPT,
  BEAM_READER_MAX_TOKENS,
  beamRagContext,
  buildBeamPrompt,
} from './beam-reader';
import { LlmAnswerer } from './llm-answerer';
import type { AnswerRequest, MemoryHit } from './types';

/** One hit per message, as the workbench retrieves them (`Speaker: text`, speaker = role). */
function hits(turns: ReadonlyArray<ReadonlyArray<{ role: string; content: string }>>): MemoryHit[] {
  return turns.flat().map((m, i) => ({
    id: `m${i}`,
    diaId: String(i),
    text: `${m.role}: ${m.content}`,
    speaker: m.role,
    score: 1,
    sessionDateTime: null,
  }));
}

function request(question: string, memories: MemoryHit[]): AnswerRequest {
  return {
    sampleId: '1',
    questionIndex: 0,
    question,
    category: 1,
    speakers: ['user', 'assistant'],
    memories,
    seed: 7,
    benchmark: 'beam',
  };
}

describe('golden: BEAM answer prompt (beam)', () => {
  it('holds answer_generation_for_rag byte for byte', () => {
    expect(BEAM_RAG_ANSWER_PROMPT).toBe(golden.prompts.rag);
  });

  it("builds the reference's turn_chunk context and prompt from the retrieved messages", () => {
    expect(golden.answer.length).toBe(3);
    for (const c of golden.answer) {
      const built = buildBeamPrompt(request(c.question, hits(c.turns)));
      expect(built.context).toBe(c.context);
      expect(built.messages).toEqual([{ role: 'user', content: c.prompt }]);
    }
  });

  it('skips a chunk that would take the context to 29,000 tokens (len // 3.5) and keeps later ones', () => {
    const limit = BEAM_READER_MAX_TOKENS * 3.5;
    const big = 'x'.repeat(limit - 10);
    expect(beamRagContext([big, '12345678901', 'ab'])).toBe(`${big}ab`);
    expect(beamRagContext([big, '1234567'])).toBe(`${big}1234567`);
    // Python's len counts code points: three astral characters are 3, not 6 UTF-16 units.
    const nearly = 'x'.repeat(limit - 4);
    expect(beamRagContext([nearly, '\u{1F600}'.repeat(3)])).toBe(nearly + '\u{1F600}'.repeat(3));
  });
});

describe('beam answer protocol over HTTP', () => {
  let server: FakeOpenAIServer;
  beforeAll(async () => {
    server = await startFakeOpenAIServer({ chat: () => 'Berlin' });
  });
  afterAll(() => server.close());

  it('sends one user message at the endpoint temperature, no seed and no max_tokens', async () => {
    const answerer = new LlmAnswerer(
      LlmAnswererConfigSchema.parse({
        kind: 'llm',
        baseUrl: server.url,
        model: 'reader',
        baseDelayMs: 1,
        answerProtocol: 'beam',
      }),
    );
    const c = golden.answer[0] as (typeof golden.answer)[number];
    const result = await answerer.answer(request(c.question, hits(c.turns)));
    expect(result.answer).toBe('Berlin');
    const body = server.requests.at(-1)?.body as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['messages', 'model', 'temperature']);
    expect(body['messages']).toEqual([{ role: 'user', content: c.prompt }]);
  });
});
