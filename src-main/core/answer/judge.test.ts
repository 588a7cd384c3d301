import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LOCOMO_PROFILE } from '../../../src-shared/benchmarks';
import { JudgeConfigSchema } from '../../../src-shared/experiment';
import {
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from '../../../tests/support/fake-openai-server';
import { LlmJudge, MemoryJudgeCache, judgeAnswer, parseJudgeOutput } from './judge';

let server: FakeOpenAIServer;
let replies: string[] = [];
beforeAll(async () => {
  // Scripted replies first, then the fake server's literal judge.
  server = await startFakeOpenAIServer({
    chat: (chat) => {
      const next = replies.shift();
      if (next !== undefined) return next;
      const content = chat.messages[0]?.content ?? '';
      return content.includes('Generated answer: Paris')
        ? '{"label": "CORRECT", "reason": "same city"}'
        : '{"label": "WRONG", "reason": "different"}';
    },
  });
});
afterAll(() => server.close());
afterEach(() => {
  replies = [];
  server.requests.length = 0;
  server.setFault(null);
});

const config = (repeats = 1) =>
  JudgeConfigSchema.parse({ baseUrl: server.url, model: 'judge-1', repeats, baseDelayMs: 1 });
const item = { question: 'Where did Ann move?', gold: 'Paris', answer: 'Paris' };

describe('parseJudgeOutput', () => {
  it('reads JSON, fenced JSON and JSON after words; labels in any case', () => {
    expect(parseJudgeOutput('{"label":"CORRECT","reason":"ok"}')).toEqual({
      label: 'CORRECT',
      reason: 'ok',
    });
    expect(parseJudgeOutput('```json\n{"label": "wrong",\n "reason": "two\\nlines"}\n```')).toEqual(
      {
        label: 'WRONG',
        reason: 'two lines',
      },
    );
    expect(parseJudgeOutput('Reasoning first. {"label": "CORRECT"}').label).toBe('CORRECT');
  });

  it('refuses anything else with a message that quotes the reply', () => {
    expect(() => parseJudgeOutput('CORRECT')).toThrow(
      'judge: reply holds no JSON object: "CORRECT"',
    );
    expect(() => parseJudgeOutput('{"label": CORRECT}')).toThrow('judge: reply is not valid JSON');
    expect(() => parseJudgeOutput('{"label": "MAYBE"}')).toThrow(
      'judge: reply needs "label": "CORRECT" or "WRONG"',
    );
  });
});

describe('LlmJudge', () => {
  it('judges every repeat, each after the unseeded first with its own seed, and reports mean and std', async () => {
    replies = [
      '{"label":"CORRECT","reason":"a"}',
      '{"label":"WRONG","reason":"b"}',
      '{"label":"CORRECT","reason":"c"}',
    ];
    const judge = new LlmJudge(config(3));
    const score = await judge.judge(item);
    expect(score.labels).toEqual([1, 0, 1]);
    expect(score.mean).toBeCloseTo(2 / 3, 12);
    expect(score.std).toBeCloseTo(Math.sqrt(1 / 3), 12);
    expect(score.error).toBeNull();
    // Mem0's judge (the default) sends no seed, as llm_judge.py; a later repeat is seeded apart.
    expect(server.requests.map((r) => (r.body as { seed?: number }).seed)).toEqual([
      undefined,
      1,
      2,
    ]);
  });

  it('records malformed output as the score error under a non-mem0 protocol, after its retries', async () => {
    replies = ['I think it is right', 'still no JSON'];
    const score = await new LlmJudge({
      ...config(),
      protocol: 'workbench-v1',
      parseRetries: 1,
    }).judge(item);
    expect(score).toEqual({
      mean: null,
      std: null,
      labels: [],
      error: 'judge: UPSTREAM: judge: reply holds no JSON object: "still no JSON"',
      protocol: 'workbench-v1',
      unparseable: 0,
    });
    expect(server.requests).toHaveLength(2);
  });

  it('records HTTP failures too (after its retries)', async () => {
    server.setFault({ kind: 'status', status: 500 }, { times: 10 });
    const score = await new LlmJudge({ ...config(), maxRetries: 1 }).judge(item);
    expect(score.error).toContain('HTTP 500');
    expect(score.mean).toBeNull();
  });

  it('answers a repeated question from its cache without a second call', async () => {
    const cache = new MemoryJudgeCache();
    const first = await new LlmJudge(config(2), { cache }).judge(item);
    expect(server.requests).toHaveLength(2);
    const again = new LlmJudge(config(2), { cache });
    expect(await again.judge(item)).toEqual(first);
    expect(server.requests).toHaveLength(2);
    expect(again.stats).toEqual({ calls: 0, cacheHits: 2, errors: 0, unparseableReplies: 0 });
    // Another answer, or another judge model, is another key.
    await again.judge({ ...item, answer: 'Lyon' });
    await new LlmJudge({ ...config(1), model: 'judge-2' }, { cache }).judge(item);
    expect(server.requests).toHaveLength(5);
  });

  it("never answers one server's request with another server's cached verdict", async () => {
    // Two endpoints serving the same model name: a cache keyed by model alone would reply to the
    // second with the first's verdict and send it nothing.
    const other = await startFakeOpenAIServer({
      chat: () => '{"label": "WRONG", "reason": "the other server"}',
    });
    try {
      const cache = new MemoryJudgeCache();
      const here = await new LlmJudge(config(1), { cache }).judge(item);
      const there = await new LlmJudge({ ...config(1), baseUrl: other.url }, { cache }).judge(item);
      expect(here.labels).toEqual([1]);
      expect(there.labels).toEqual([0]);
      expect(other.requests).toHaveLength(1);
      // The same server again is still answered from the cache.
      const again = new LlmJudge({ ...config(1), baseUrl: `${server.url}/` }, { cache });
      expect((await again.judge(item)).labels).toEqual([1]);
      expect(again.stats.cacheHits).toBe(1);
    } finally {
      await other.close();
    }
  });

  it('does not judge category 5, and scores an errored answer WRONG without a call', async () => {
    const judge = new LlmJudge(config(2));
    const base = { question: 'q', gold: 'Paris', prediction: 'Paris', error: null };
    expect(
      await judgeAnswer(judge, { ...base, category: 5, gold: null }, LOCOMO_PROFILE),
    ).toBeNull();
    expect(
      await judgeAnswer(judge, { ...base, category: 4, error: 'answer: TIMEOUT' }, LOCOMO_PROFILE),
    ).toEqual({
      mean: 0,
      std: 0,
      labels: [0, 0],
      error: null,
      protocol: 'mem0',
    });
    expect(server.requests).toHaveLength(0);
  });
});
