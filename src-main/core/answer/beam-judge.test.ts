import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JudgeConfigSchema } from '../../../src-shared/experiment';
import {
  startFakeOpenAIServer,
  type FakeChatRequest,
  type FakeOpenAIServer,
} from '../../../tests/support/fake-openai-server';
import {
  BEAM_JUDGE_MODEL,
  BEAM_JUDGE_PROMPT,
  BeamJudgeFailure,
  beamJudgeModel,
  beamJudgeScore,
  beamJudgePrompt,
  scoreBeamQuestion,
} from './beam-judge';
import { LlmClient } from './llm-client';

/** Judge replies by rubric item: "Item full" 1.0, "Item half" 0.5 (fenced), anything else 0. */
function reply(chat: FakeChatRequest): string {
  const content = chat.messages.at(-1)?.content ?? '';
  if (chat.messages[0]?.role === 'system')
    return content.includes('Second snippet: first') ? 'YES' : 'NO';
  if (content.startsWith('\nYou are tasked with breaking')) return '1. discarded';
  if (content.includes('(what to check): Item full')) return '{"score": 1.0, "reason": "ok"}';
  if (content.includes('(what to check): Item half'))
    return '```json\n{"score": 0.5, "reason": "part"}\n```';
  return 'Verdict: {"score": 0.0, "reason": "no"}';
}

describe('BEAM rubric judge over HTTP', () => {
  let server: FakeOpenAIServer;
  beforeAll(async () => {
    server = await startFakeOpenAIServer({ chat: reply });
  });
  afterAll(() => server.close());

  const client = (): LlmClient =>
    new LlmClient(
      JudgeConfigSchema.parse({ baseUrl: server.url, model: BEAM_JUDGE_MODEL, baseDelayMs: 1 }),
    );

  it("sends the reference's requests: model, one user message, temperature 0; no seed, response_format or max_tokens", async () => {
    server.requests.length = 0;
    const result = await scoreBeamQuestion(
      'beam-rubric',
      {
        ability: 'knowledge_update',
        question: 'Where do I live now?',
        rubric: ['Item full: Berlin', 'Item half: moved in May', 'Item other'],
        response: 'You live in Berlin.',
      },
      beamJudgeModel(client()),
    );
    // int(1.0) + int(0.5) + int(0.0) over 3 items: the partial credit counts 0.
    expect(result.llm_judge_score).toBeCloseTo(1 / 3, 15);
    expect(result.calls).toBe(3);
    const bodies = server.requests.map((r) => r.body as Record<string, unknown>);
    expect(bodies).toHaveLength(3);
    for (const body of bodies) {
      expect(Object.keys(body).sort()).toEqual(['messages', 'model', 'temperature']);
      expect(body['model']).toBe('gpt-4.1-mini');
      expect(body['temperature']).toBe(0);
    }
    expect((bodies[0]?.['messages'] as unknown[])[0]).toEqual({
      role: 'user',
      content: beamJudgePrompt('beam-rubric', 'Item full: Berlin', 'You live in Berlin.', 'x'),
    });
  });

  it('event ordering: the discarded extract_facts call, the equivalence checks, then the judge; partial credit kept', async () => {
    server.requests.length = 0;
    const result = await scoreBeamQuestion(
      'beam-rubric',
      {
        ability: 'event_ordering',
        question: 'In what order?',
        rubric: ['Item full: first', 'Item half: second'],
        response: 'second\nfirst',
      },
      beamJudgeModel(client()),
    );
    // Facts, then line "second" against both items (no match), line "first" against item 1.
    expect(result.calls).toBe(1 + 3 + 2);
    expect(result.llm_judge_score).toBe(0.75);
    // Rubric [A, B], system ["second", A]: union [A, B, second], ranks [1,2,4] vs [2,4,1].
    expect(result.precision).toBe(0.5);
    expect(result.recall).toBe(0.5);
    expect(result.tau_norm).toBeCloseTo((-1 / 3 + 1) / 2, 15);
  });

  it('beam-rubric-corrected shows the question and keeps partial credit', async () => {
    server.requests.length = 0;
    const result = await scoreBeamQuestion(
      'beam-rubric-corrected',
      { ability: 'summarization', question: 'Sum up?', rubric: ['Item half'], response: 'r' },
      beamJudgeModel(client()),
    );
    expect(result.llm_judge_score).toBe(0.5);
    const sent = (server.requests[0]?.body as { messages: { content: string }[] }).messages[0];
    expect(sent?.content).toContain('- QUESTION (what the user asked): Sum up?');
    expect(BEAM_JUDGE_PROMPT).toContain('<question>');
  });
});

describe('BEAM result as a judge score', () => {
  const ok = { llm_judge_score: 0.5, llm_judge_responses: [], calls: 2 };
  it('is the report cell: the rubric mean, tau_norm for event ordering; NaN and failures are errors', () => {
    expect(beamJudgeScore('beam-rubric', 'summarization', ok)).toMatchObject({
      mean: 0.5,
      labels: [0.5],
      error: null,
      protocol: 'beam-rubric',
    });
    expect(beamJudgeScore('beam-rubric', 'event_ordering', { ...ok, tau_norm: 0.9 }).mean).toBe(
      0.9,
    );
    const nan = beamJudgeScore('beam-rubric', 'event_ordering', { ...ok, tau_norm: NaN });
    expect(nan.mean).toBeNull();
    expect(nan.error).toContain('tau_norm is NaN');
    const failure = new BeamJudgeFailure('beam judge (abstention): reply has no "score"', 1);
    expect(beamJudgeScore('beam-rubric', 'abstention', failure)).toMatchObject({
      mean: null,
      error: 'beam judge (abstention): reply has no "score"',
    });
  });
});
