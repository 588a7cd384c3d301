import { describe, expect, it } from 'vitest';
import {
  answerPromptRecord,
  buildAnswerPrompt,
  category5Options,
  formatSessionDateTime,
  interpretAnswer,
} from './prompts';
import { judgeProtocolOf } from './judge-protocols';
import { NOT_MENTIONED, type AnswerRequest } from './types';

function request(partial: Partial<AnswerRequest> = {}): AnswerRequest {
  return {
    sampleId: 'conv-1',
    benchmark: 'locomo',
    questionIndex: 3,
    question: 'Where did Ann move?',
    category: 4,
    speakers: ['Ann', 'Bob'],
    memories: [
      {
        id: '0',
        diaId: 'D1:1',
        text: 'Ann: I moved to Paris.',
        speaker: 'Ann',
        score: 1,
        sessionDateTime: '2023-05-08T13:56:00',
      },
      {
        id: '1',
        diaId: 'D1:2',
        text: 'Bob: Nice!',
        speaker: 'Bob',
        score: 0.5,
        sessionDateTime: '2023-05-08T13:56:00',
      },
    ],
    seed: 42,
    ...partial,
  };
}

describe('answer prompts', () => {
  it('renders memories with their session date-time in LoCoMo words', () => {
    expect(formatSessionDateTime('2023-05-08T13:56:00')).toBe('1:56 pm on 8 May, 2023');
    expect(formatSessionDateTime('2023-05-08T00:05:00')).toBe('12:05 am on 8 May, 2023');
    expect(formatSessionDateTime('2023-05-08')).toBe('8 May, 2023');
    expect(formatSessionDateTime(null)).toBe('unknown date');
    const [message] = buildAnswerPrompt('locomo', request()).messages;
    expect(message?.content).toContain(
      'DATE: 1:56 pm on 8 May, 2023\nCONVERSATION:\nAnn: I moved to Paris.',
    );
    expect(message?.content).toContain(
      'Answer with exact words from the context whenever possible',
    );
    expect(message?.content).toMatch(/Question: Where did Ann move\? Short answer:$/);
  });

  it('adds the date hint to category-2 questions only', () => {
    const hint = 'Use DATE of CONVERSATION to answer with an approximate date.';
    expect(buildAnswerPrompt('locomo', request({ category: 2 })).messages[0]?.content).toContain(
      `Where did Ann move? ${hint}`,
    );
    expect(buildAnswerPrompt('locomo', request()).messages[0]?.content).not.toContain(hint);
  });

  it('asks category 5 as a two-option question whose order is seeded per question', () => {
    const built = buildAnswerPrompt(
      'locomo',
      request({ category: 5, adversarialAnswer: 'Lyon', question: 'Where did Bob move?' }),
    );
    const options = category5Options(42, 'conv-1', 3, 'Lyon');
    expect(built.options).toEqual(options);
    expect(built.messages[0]?.content).toContain(
      `Where did Bob move? Select the correct answer: (a) ${options.a} (b) ${options.b}. `,
    );
    expect(built.messages[0]?.content).toContain(
      'Based on the above context, answer the following question.',
    );
    // Reproducible: the same seed and question always give the same order.
    for (let i = 0; i < 20; i++) {
      expect(category5Options(7, 's', i, 'x')).toEqual(category5Options(7, 's', i, 'x'));
    }
    // Random across questions and seeds: both orders occur, roughly half each.
    let first = 0;
    for (let i = 0; i < 400; i++)
      if (category5Options(i % 4, 's', i, 'x').a === NOT_MENTIONED) first++;
    expect(first).toBeGreaterThan(150);
    expect(first).toBeLessThan(250);
  });

  it('maps a bare option letter back to the option text', () => {
    const built = { options: { a: 'Lyon', b: NOT_MENTIONED } };
    expect(interpretAnswer('(b)', built)).toBe(NOT_MENTIONED);
    expect(interpretAnswer(' b. ', built)).toBe(NOT_MENTIONED);
    expect(interpretAnswer('a', built)).toBe('Lyon');
    expect(interpretAnswer('(a) Lyon', built)).toBe('Lyon');
    expect(interpretAnswer('Not mentioned in the conversation', built)).toBe(NOT_MENTIONED);
    expect(interpretAnswer(' Paris ', { options: null })).toBe('Paris');
  });

  it('groups Mem0-style memories per speaker with timestamps', () => {
    const built = buildAnswerPrompt('mem0', request());
    expect(built.messages.map((m) => m.role)).toEqual(['system', 'user']);
    const content = built.messages[1]?.content ?? '';
    expect(content).toContain(
      'Memories for user Ann:\n\n1:56 pm on 8 May, 2023: Ann: I moved to Paris.',
    );
    expect(content).toContain('Memories for user Bob:\n\n1:56 pm on 8 May, 2023: Bob: Nice!');
    expect(content).toContain('less than 5-6 words');
    expect(content).not.toContain('Other memories');
  });

  it('orders memories by when they happened, so a reshuffled top-k makes the same prompt', () => {
    const hit = (id: string, diaId: string | null, date: string | null, score: number) => ({
      id,
      diaId,
      text: `Ann: memory ${id}`,
      speaker: 'Ann',
      score,
      sessionDateTime: date,
    });
    const set = [
      hit('7', 'D2:10', '2023-06-01T10:00:00', 0.9),
      hit('3', 'D1:2', '2023-05-08T13:56:00', 0.8),
      hit('9', null, null, 0.7),
      hit('5', 'D2:9', '2023-06-01T10:00:00', 0.6),
      hit('4', 'D1:10', '2023-05-08T13:56:00', 0.5),
    ];
    const ranked = buildAnswerPrompt('locomo', request({ memories: set }));
    const reshuffled = buildAnswerPrompt('locomo', request({ memories: [...set].reverse() }));
    expect(reshuffled).toEqual(ranked);
    const content = ranked.messages[0]?.content ?? '';
    const order = [...content.matchAll(/memory (\d)/g)].map((m) => m[1]);
    // D1:2 before D1:10 (numeric turns), the undated memory last.
    expect(order).toEqual(['3', '4', '5', '7', '9']);
    const mem0 = buildAnswerPrompt('mem0', request({ memories: set }));
    expect(buildAnswerPrompt('mem0', request({ memories: [...set].reverse() }))).toEqual(mem0);
  });

  it('hashes the templates stably, and differently per style', () => {
    const locomo = answerPromptRecord('locomo');
    expect(locomo.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(answerPromptRecord('locomo')).toEqual(locomo);
    expect(answerPromptRecord('mem0').sha256).not.toBe(locomo.sha256);
    expect(judgeProtocolOf('workbench-v1').record.templates['judge']).toContain('"label"');
  });
});
