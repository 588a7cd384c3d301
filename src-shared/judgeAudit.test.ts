import { describe, expect, it } from 'vitest';
import {
  acceptanceTable,
  buildAuditItems,
  judgeErrorPhrase,
  judgeIdentityOf,
  sampleAuditQuestions,
  withWrongDate,
  type AuditItem,
  type AuditQuestion,
} from './judgeAudit';
import { wilsonInterval } from './scoring/judgeError';
import { mulberry32 } from './scoring/stats';

const q = (sampleId: string, questionIndex: number, category: number, gold: string) =>
  ({ sampleId, questionIndex, category, question: `q${questionIndex}?`, gold }) as AuditQuestion;

const conversation: AuditQuestion[] = [
  q('a', 0, 4, 'Paris'),
  q('a', 1, 2, '7 May 2023'),
  q('a', 2, 1, 'a red bicycle'),
  q('a', 3, 3, 'Paris, France'),
  q('a', 4, 4, 'pottery'),
  q('b', 0, 4, 'Five'),
];

describe('withWrongDate', () => {
  it('moves the year by one or two and keeps the rest', () => {
    const moved = withWrongDate('The week before 9 June 2023', mulberry32(1));
    expect(moved).toMatch(/^The week before 9 June (2021|2022|2024|2025)$/);
  });
  it('moves a month name when there is no year', () => {
    const moved = withWrongDate('in May', mulberry32(2));
    expect(moved).toMatch(/^in [A-Z][a-z]+$/);
    expect(moved).not.toBe('in May');
  });
  it('has nothing to move in a gold without a date', () => {
    expect(withWrongDate('Paris', mulberry32(3))).toBeNull();
  });
});

describe('buildAuditItems', () => {
  const items = buildAuditItems(conversation, conversation, 11);
  const of = (sampleId: string, questionIndex: number): AuditItem[] =>
    items.filter((i) => i.sampleId === sampleId && i.questionIndex === questionIndex);

  it('gives every question its gold, and only the gold is expected correct', () => {
    for (const question of conversation) {
      const gold = of(question.sampleId, question.questionIndex).find(
        (i) => i.answerClass === 'gold',
      );
      expect(gold?.answer).toBe(question.gold);
    }
    for (const item of items) {
      expect(item.expected).toBe(item.answerClass === 'gold' ? 'correct' : 'wrong');
    }
  });

  it("takes other golds from the same conversation, never one that equals or contains this gold's", () => {
    const paris = of('a', 0).find((i) => i.answerClass === 'other-gold');
    expect(['7 May 2023', 'a red bicycle', 'pottery']).toContain(paris?.answer);
    // "Paris, France" contains "Paris": never offered as a wrong answer to "Paris".
    expect(of('a', 0).some((i) => i.answer.includes('France'))).toBe(false);
  });

  it('builds a hedge and a verbose answer that contain the gold, a vague one that does not', () => {
    for (const question of conversation.filter((c) => c.sampleId === 'a')) {
      const mine = of('a', question.questionIndex);
      const text = (cls: string) => mine.find((i) => i.answerClass === cls)?.answer ?? '';
      expect(text('hedge')).toContain(question.gold);
      expect(text('verbose')).toContain(question.gold);
      expect(text('vague').toLowerCase()).not.toContain(question.gold.toLowerCase());
    }
  });

  it('changes the date only where the gold has one', () => {
    expect(of('a', 1).find((i) => i.answerClass === 'wrong-date')?.answer).toMatch(
      /^7 May (2021|2022|2024|2025)$/,
    );
    expect(items.filter((i) => i.answerClass === 'wrong-date')).toHaveLength(1);
  });

  it('leaves out what cannot be built: a lone question has no other gold, hedge or verbose', () => {
    expect(of('b', 0).map((i) => i.answerClass)).toEqual(['gold', 'vague']);
  });

  it('is the same for a seed and differs for another', () => {
    expect(buildAuditItems(conversation, conversation, 11)).toEqual(items);
    expect(buildAuditItems(conversation, conversation, 12)).not.toEqual(items);
  });
});

describe('sampleAuditQuestions', () => {
  it('draws at most n per category, seeded, in dataset order', () => {
    const many = Array.from({ length: 40 }, (_, i) => q('a', i, (i % 2) + 1, `g${i}`));
    const drawn = sampleAuditQuestions(many, 5, 3);
    expect(drawn.filter((d) => d.category === 1)).toHaveLength(5);
    expect(drawn.filter((d) => d.category === 2)).toHaveLength(5);
    expect(drawn.map((d) => d.questionIndex)).toEqual(
      [...drawn.map((d) => d.questionIndex)].sort((x, y) => x - y),
    );
    expect(sampleAuditQuestions(many, 5, 3)).toEqual(drawn);
    expect(sampleAuditQuestions(many, 5, 4)).not.toEqual(drawn);
  });
});

describe('acceptanceTable', () => {
  const item = (answerClass: AuditItem['answerClass'], category: number): AuditItem => ({
    sampleId: 'a',
    questionIndex: 0,
    category,
    answerClass,
    question: 'q',
    gold: 'g',
    answer: 'x',
    expected: answerClass === 'gold' ? 'correct' : 'wrong',
  });
  const items = [
    item('gold', 1),
    item('gold', 2),
    item('vague', 1),
    item('vague', 2),
    item('hedge', 1),
    item('hedge', 2),
  ];

  it('counts acceptances per class, per class and category, and over the known-wrong classes', () => {
    const table = acceptanceTable(items, [
      { itemIndex: 0, accepted: true },
      { itemIndex: 1, accepted: true },
      { itemIndex: 2, accepted: false },
      { itemIndex: 3, accepted: true },
      { itemIndex: 4, accepted: true },
      { itemIndex: 5, accepted: null },
    ]);
    expect(table.byClass.map((c) => [c.answerClass, c.successes, c.n])).toEqual([
      ['gold', 2, 2],
      ['vague', 1, 2],
      ['hedge', 1, 1],
    ]);
    expect(table.byClassAndCategory.map((c) => [c.answerClass, c.category, c.successes])).toEqual([
      ['gold', 1, 1],
      ['gold', 2, 1],
      ['vague', 1, 0],
      ['vague', 2, 1],
      ['hedge', 1, 1],
    ]);
    expect(table.falseAcceptance).toEqual(wilsonInterval(2, 3));
    expect(table.trueAcceptance).toEqual(wilsonInterval(2, 2));
    expect(table.missing).toBe(1);
  });
});

describe('judgeIdentityOf', () => {
  it("keeps the endpoint's origin: scheme, host and port, not the path", () => {
    expect(
      judgeIdentityOf({ protocol: 'mem0', model: 'm', baseUrl: 'HTTP://Example.org:8080/v1/' }),
    ).toEqual({ protocol: 'mem0', model: 'm', origin: 'http://example.org:8080' });
  });
});

describe('judgeErrorPhrase', () => {
  it('names the false-acceptance rate with its interval and n, or nothing without one', () => {
    expect(judgeErrorPhrase(wilsonInterval(75, 940))).toBe(
      'judge accepts 8% [6%, 10%] of known-wrong answers (audit, n = 940)',
    );
    expect(judgeErrorPhrase(wilsonInterval(0, 0))).toBeNull();
  });
});
