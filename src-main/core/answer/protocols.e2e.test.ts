import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import golden from '../../../tests/fixtures/golden/prompts.json';
import {
  JudgeConfigSchema,
  LlmAnswererConfigSchema,
  type JudgeConfigInput,
} from '../../../src-shared/experiment';
import {
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from '../../../tests/support/fake-openai-server';
import { LlmJudge } from './judge';
import { STRICT_JUDGE_TEMPLATE } from './judge-protocols';
import { LlmAnswerer } from './llm-answerer';
import { JUDGE_TEMPLATE } from './prompts';
import type { AnswerRequest } from './types';

/**
 * Every judge and answer protocol end to end against the fake OpenAI-compatible server: the
 * exact request body it received (message bytes, response_format, temperature, max_tokens), and
 * what becomes of scripted replies, unreadable ones included.
 */

let server: FakeOpenAIServer;
let replies: string[] = [];
beforeAll(async () => {
  server = await startFakeOpenAIServer({ chat: () => replies.shift() ?? '{"label": "CORRECT"}' });
});
afterAll(() => server.close());
afterEach(() => {
  replies = [];
  server.requests.length = 0;
});

const bodies = (): Array<Record<string, unknown>> =>
  server.requests.map((r) => r.body as Record<string, unknown>);

function judgeConfig(extra: Partial<JudgeConfigInput> = {}) {
  return JudgeConfigSchema.parse({
    baseUrl: server.url,
    model: 'judge-1',
    baseDelayMs: 1,
    ...extra,
  });
}

const [goldenItem] = golden.mem0Judge.filled;
const item = {
  question: goldenItem?.question ?? '',
  gold: goldenItem?.gold ?? '',
  answer: goldenItem?.answer ?? '',
};

describe('judge protocols against the fake server', () => {
  it('mem0 (the default): ACCURACY_PROMPT as one user message, json_object, temperature 0', async () => {
    replies = ['{"label": "CORRECT"}'];
    const judge = new LlmJudge(judgeConfig());
    expect(await judge.judge(item)).toEqual({
      mean: 1,
      std: 0,
      labels: [1],
      error: null,
      protocol: 'mem0',
      unparseable: 0,
    });
    expect(bodies()).toEqual([
      {
        model: 'judge-1',
        messages: [{ role: 'user', content: goldenItem?.content }],
        // llm_judge.py sends these two and nothing else: no max_tokens, no seed.
        temperature: 0,
        response_format: { type: 'json_object' },
      },
    ]);
    expect(judge.prompt.style).toBe('mem0');
    expect(judge.prompt.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('mem0 compares the label exactly: "correct" is WRONG, and is not asked again', async () => {
    replies = ['{"label": "correct"}'];
    const score = await new LlmJudge(judgeConfig()).judge(item);
    expect(score.labels).toEqual([0]);
    expect(score.unparseable).toBe(0);
    expect(server.requests).toHaveLength(1);
  });

  it('mem0 asks an unreadable reply again, then counts it WRONG and reports it', async () => {
    replies = ['I cannot decide', '{"label": CORRECT}', '{"reason": "no label"}'];
    const judge = new LlmJudge(judgeConfig({ repeats: 2 }));
    // Repeat 0: three unreadable replies (1 + 2 retries) -> WRONG; repeat 1: the default CORRECT.
    const score = await judge.judge(item);
    expect(score).toMatchObject({ labels: [0, 1], mean: 0.5, error: null, unparseable: 1 });
    // The reference's repeat sends no seed; the second repeat is another sample by its seed.
    expect(bodies().map((b) => b['seed'])).toEqual([undefined, undefined, undefined, 1]);
    expect(judge.stats).toMatchObject({ calls: 4, unparseableReplies: 3, errors: 0 });
  });

  it('mem0 keeps a reply that becomes readable on a retry', async () => {
    replies = ['no json here', '```json\n{"label": "CORRECT"}\n```'];
    const score = await new LlmJudge(judgeConfig()).judge(item);
    expect(score).toMatchObject({ labels: [1], unparseable: 0 });
    expect(server.requests).toHaveLength(2);
  });

  it('strict: its own prompt in JSON mode; an unreadable reply is the error, not WRONG', async () => {
    replies = ['{"label": " wrong "}'];
    const judge = new LlmJudge(judgeConfig({ protocol: 'strict', parseRetries: 0 }));
    expect((await judge.judge(item)).labels).toEqual([0]);
    expect(bodies()[0]).toMatchObject({
      messages: [
        {
          role: 'user',
          content: STRICT_JUDGE_TEMPLATE.replace('{{question}}', item.question)
            .replace('{{gold}}', item.gold)
            .replace('{{answer}}', item.answer),
        },
      ],
      response_format: { type: 'json_object' },
      temperature: 0,
    });
    replies = ['maybe'];
    const failed = await judge.judge({ ...item, answer: 'other' });
    expect(failed).toMatchObject({ mean: null, labels: [], protocol: 'strict', unparseable: 0 });
    expect(failed.error).toBe('judge: UPSTREAM: judge: reply holds no JSON object: "maybe"');
  });

  it('workbench-v1: the earlier prompt, sent as before (no response_format), same hash', async () => {
    const judge = new LlmJudge(judgeConfig({ protocol: 'workbench-v1' }));
    await judge.judge(item);
    const body = bodies()[0] as Record<string, unknown>;
    expect(body).not.toHaveProperty('response_format');
    expect((body['messages'] as Array<{ content: string }>)[0]?.content).toBe(
      JUDGE_TEMPLATE.replace('{{question}}', item.question)
        .replace('{{gold}}', item.gold)
        .replace('{{answer}}', item.answer),
    );
    // The hash older runs recorded for this prompt (style "mem0-judge" then): unchanged.
    expect(judge.prompt.sha256).toBe(
      '3f74bba74813dc7ca0897fa0ce753d9112a891abec9d1326f2a125a367aecba7',
    );
  });

  it('custom: a user template from a file, filled and hashed under its name', async () => {
    const template =
      'Q: {{question}}\nGold: {{gold}}\nGot: {{answer}}\nReply in JSON {"label": ...}';
    const judge = new LlmJudge(judgeConfig({ protocol: { name: 'mine', template } }));
    await judge.judge(item);
    expect(judge.prompt.style).toBe('custom:mine');
    expect(bodies()[0]).toMatchObject({
      messages: [
        {
          role: 'user',
          content: `Q: ${item.question}\nGold: ${item.gold}\nGot: ${item.answer}\nReply in JSON {"label": ...}`,
        },
      ],
      response_format: { type: 'json_object' },
    });
  });

  it('refuses a mem0 judge off temperature 0 and a custom template without its slots', () => {
    const bad = JudgeConfigSchema.safeParse({ baseUrl: server.url, model: 'j', temperature: 0.7 });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]).toMatchObject({
      path: ['temperature'],
      message: 'the mem0 judge protocol is defined at temperature 0',
    });
    const slots = JudgeConfigSchema.safeParse({
      baseUrl: server.url,
      model: 'j',
      protocol: { name: 'x', template: 'Q: {{question}}' },
    });
    expect(slots.error?.issues[0]?.message).toBe(
      'must contain each of {{question}}, {{gold}}, {{answer}}',
    );
    const unknown = JudgeConfigSchema.safeParse({ baseUrl: server.url, model: 'j', protocol: 'x' });
    expect(unknown.success).toBe(false);
  });
});

function answerer(extra: Record<string, unknown>): LlmAnswerer {
  return new LlmAnswerer(
    LlmAnswererConfigSchema.parse({
      kind: 'llm',
      baseUrl: server.url,
      model: 'chat-1',
      baseDelayMs: 1,
      ...extra,
    }),
  );
}

describe('answer protocols against the fake server', () => {
  it('locomo-full-context: the reference query as one user message, 32 answer tokens', async () => {
    const c = golden.locomo.madeUp.cases[0] as (typeof golden.locomo.madeUp.cases)[number];
    const conv = golden.locomo.madeUp.conversation;
    const request: AnswerRequest = {
      sampleId: 's',
      benchmark: 'locomo',
      questionIndex: 0,
      question: golden.locomo.madeUp.qa[0]?.question ?? '',
      category: 4,
      speakers: c.speakers as [string, string],
      memories: [],
      seed: 1,
      conversation: [
        {
          dateTimeText: conv.session_1_date_time,
          turns: conv.session_1.map((t) => ({
            speaker: t.speaker,
            text: t.text,
            ...('blip_caption' in t ? { blipCaption: t.blip_caption } : {}),
          })),
        },
        { dateTimeText: conv.session_2_date_time, turns: conv.session_2 },
      ],
    };
    replies = ['  Paris \n'];
    const a = answerer({ answerProtocol: 'locomo-full-context', maxTokens: 64 });
    expect(a.needsConversation).toBe(true);
    expect(a.name).toBe('llm:chat-1:locomo-full-context');
    expect((await a.answer(request)).answer).toBe('Paris');
    expect(bodies()).toEqual([
      {
        model: 'chat-1',
        messages: [{ role: 'user', content: c.queries[0]?.query }],
        // run_chatgpt's GPT-4 branch: temperature, max_tokens and n; no seed.
        temperature: 0,
        max_tokens: 32,
        n: 1,
      },
    ]);
  });

  it('mem0: ANSWER_PROMPT as one system message with the memories split by speaker', async () => {
    const c = golden.mem0Answer.cases[0] as (typeof golden.mem0Answer.cases)[number];
    const memories = Object.entries(c.memories).flatMap(([speaker, list]) =>
      list.map((m, i) => ({
        id: `${speaker}${i}`,
        diaId: null,
        text: m.memory,
        speaker,
        score: m.score,
        sessionDateTime: m.iso,
      })),
    );
    replies = ['May 2022'];
    const a = answerer({ answerProtocol: 'mem0' });
    expect(a.needsConversation).toBe(false);
    const result = await a.answer({
      sampleId: 's',
      benchmark: 'locomo',
      questionIndex: 0,
      question: c.question,
      category: 2,
      speakers: c.speakers as [string, string],
      memories,
      seed: 3,
    });
    expect(result.answer).toBe('May 2022');
    expect(bodies()).toEqual([
      // search.py sends temperature 0.0 only: no max_tokens, no seed.
      { model: 'chat-1', messages: c.messages, temperature: 0 },
    ]);
  });

  it('the workbench prompts keep their names and hashes; promptStyle still selects them', () => {
    const legacy = answerer({ promptStyle: 'mem0' });
    expect(legacy.name).toBe('llm:chat-1:workbench-mem0');
    expect(legacy.prompts.sha256).toBe(
      answerer({ answerProtocol: 'workbench-mem0' }).prompts.sha256,
    );
    expect(answerer({}).protocol.name).toBe('workbench-locomo');
  });

  it('maps a category-5 reply with get_cat_5_answer, or leniently when asked', async () => {
    const request: AnswerRequest = {
      sampleId: 's',
      benchmark: 'locomo',
      questionIndex: 7,
      question: 'What did Ann adopt?',
      category: 5,
      speakers: ['Ann', 'Bob'],
      memories: [],
      seed: 42,
      adversarialAnswer: 'a dog',
      conversation: [],
    };
    replies = ['Yes', 'Yes'];
    const official = await answerer({ answerProtocol: 'locomo-full-context' }).answer(request);
    const lenient = await answerer({
      answerProtocol: 'locomo-full-context',
      adversarialReplyMapping: 'lenient',
    }).answer(request);
    // LoCoMo maps any three-character reply other than "(a)" to option (b).
    expect(['a dog', 'Not mentioned in the conversation']).toContain(official.answer);
    expect(lenient.answer).toBe('Yes');
  });
});
