import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LONGMEMEVAL_PROFILE } from '../../../src-shared/benchmarks';
import { JudgeConfigSchema } from '../../../src-shared/experiment';
import {
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from '../../../tests/support/fake-openai-server';
import { LlmJudge, judgeAnswer } from './judge';
import { longMemEvalPrompt, parseLongMemEvalVerdict } from './judge-protocols';

/**
 * tests/fixtures/golden/longmemeval.json is written by scripts/golden/generate-longmemeval.py,
 * which calls LongMemEval's own `get_anscheck_prompt` (src/evaluation/evaluate_qa.py).
 */
interface PromptCase {
  task: string;
  abstention: boolean;
  question: string;
  gold: string;
  answer: string;
  prompt: string;
}
const golden = JSON.parse(
  readFileSync(
    fileURLToPath(new URL('../../../tests/fixtures/golden/longmemeval.json', import.meta.url)),
    'utf8',
  ),
) as { judgePrompts: PromptCase[] };

describe('longmemeval judge protocol', () => {
  it('builds every get_anscheck_prompt variant byte for byte', () => {
    expect(golden.judgePrompts.length).toBe(24);
    for (const c of golden.judgePrompts) {
      expect(longMemEvalPrompt(c), `${c.task} abstention=${c.abstention}`).toBe(c.prompt);
    }
  });

  it("reads a reply as the reference does: 'yes' anywhere in the lowercased reply", () => {
    expect(parseLongMemEvalVerdict(' Yes.\n').label).toBe('CORRECT');
    expect(parseLongMemEvalVerdict('no').label).toBe('WRONG');
    // The reference's substring test, quirks included.
    expect(parseLongMemEvalVerdict('No, not yesterday').label).toBe('CORRECT');
  });

  it('refuses a question type the reference has no prompt for', () => {
    expect(() =>
      longMemEvalPrompt({ question: 'q', gold: 'g', answer: 'a', task: 'multi-hop' }),
    ).toThrow('judge longmemeval: no prompt for question type "multi-hop"');
  });
});

describe('longmemeval judge over HTTP', () => {
  let server: FakeOpenAIServer;
  beforeAll(async () => {
    server = await startFakeOpenAIServer({ chat: () => 'Yes' });
  });
  afterAll(() => server.close());

  it('sends the abstention prompt for an abstention category at temperature 0, max_tokens 10', async () => {
    const config = JudgeConfigSchema.parse({
      baseUrl: server.url,
      model: 'gpt-4o-2024-08-06',
      protocol: 'longmemeval',
      baseDelayMs: 1,
    });
    const judge = new LlmJudge(config);
    const score = await judgeAnswer(
      judge,
      {
        // Category 10: abstention (multi-session).
        category: 10,
        question: 'How many pieces of jewelry did I buy?',
        gold: 'You did not mention buying jewelry.',
        prediction: 'You never told me about jewelry.',
        error: null,
      },
      LONGMEMEVAL_PROFILE,
    );
    expect(score?.mean).toBe(1);
    const body = server.requests[0]?.body as {
      temperature: number;
      max_tokens: number;
      messages: Array<{ role: string; content: string }>;
      response_format?: unknown;
    };
    expect(body.temperature).toBe(0);
    expect(body.max_tokens).toBe(10);
    expect(body.response_format).toBeUndefined();
    expect(body.messages).toHaveLength(1);
    expect(body.messages[0]?.content).toBe(
      longMemEvalPrompt({
        question: 'How many pieces of jewelry did I buy?',
        gold: 'You did not mention buying jewelry.',
        answer: 'You never told me about jewelry.',
        task: 'multi-session',
        abstention: true,
      }),
    );
    expect(body.messages[0]?.content).toContain(
      'Does the model correctly identify the question as unanswerable?',
    );
  });

  it('refuses another temperature, as the mem0 protocol does', () => {
    const parsed = JudgeConfigSchema.safeParse({
      baseUrl: server.url,
      model: 'm',
      protocol: 'longmemeval',
      temperature: 0.7,
    });
    expect(parsed.success).toBe(false);
  });
});
