import { describe, expect, it } from 'vitest';
import { fairnessWarnings, trimToWordBudget, type FairnessRun } from './fairness';

const answer = (questionIndex: number, retrieved: number, promptTokens: number | null = null) => ({
  sampleId: 's1',
  questionIndex,
  retrieved: Array.from({ length: retrieved }, (_, i) => ({ id: `${i}`, diaId: null, score: 1 })),
  usage: promptTokens === null ? null : { promptTokens, completionTokens: 5 },
  error: null,
});

const run = (label: string, topK: number, answers: FairnessRun['answers']): FairnessRun => ({
  label,
  topK,
  answers,
});

describe('fairnessWarnings', () => {
  it('says nothing about runs compared on equal terms', () => {
    const a = run('hybrid', 10, [answer(0, 10), answer(1, 10)]);
    const b = run('external', 10, [answer(0, 10), answer(1, 10)]);
    expect(fairnessWarnings([a, b], 0)).toEqual([]);
  });

  it('flags a different top_k, fewer memories retrieved, more prompt tokens and other questions', () => {
    const base = run('hybrid', 10, [answer(0, 10, 1000), answer(1, 10, 1000)]);
    // top_k 30 but only 5 items came back, from a 3000-token prompt, on question 2 instead of 1.
    const other = run('mine', 30, [answer(0, 5, 3000), answer(2, 5, 3000)]);
    expect(fairnessWarnings([base, other], 0)).toEqual([
      {
        kind: 'top-k',
        message: 'mine vs hybrid: top_k 30 vs 10; the systems saw different numbers of memories',
      },
      {
        kind: 'context',
        message: 'mine vs hybrid: 5.0 vs 10.0 memories retrieved per question on average',
      },
      {
        kind: 'context',
        message: 'mine vs hybrid: 3000 vs 1000 answer prompt tokens per question on average',
      },
      {
        kind: 'questions',
        message:
          'mine vs hybrid: different question sets (1 only in mine, 1 only in hybrid); compared on the questions every run answered',
      },
    ]);
  });

  it('flags retrieved context of different sizes at the same top_k (a per-speaker mem0 run), offline too', () => {
    const withTokens = (questionIndex: number, memoryTokens: number | null) => ({
      ...answer(questionIndex, 10),
      memoryTokens,
    });
    const base = run('hybrid', 10, [withTokens(0, 300), withTokens(1, 300)]);
    const mem0 = run('mem0', 10, [withTokens(0, 700), withTokens(1, 700)]);
    expect(fairnessWarnings([base, mem0], 0)).toEqual([
      {
        kind: 'context',
        message:
          'mem0 vs hybrid: 700 vs 300 memory tokens (retrieved context) per question on average',
      },
    ]);
    // A run stored before memory tokens were counted says nothing either way.
    const old = run('old', 10, [withTokens(0, null), withTokens(1, null)]);
    expect(fairnessWarnings([base, old], 0)).toEqual([]);
  });

  it('tolerates small differences in context size (within 10%)', () => {
    const base = run('a', 10, [answer(0, 10, 1000)]);
    const near = run('b', 10, [answer(0, 10, 1050)]);
    expect(fairnessWarnings([base, near], 0)).toEqual([]);
  });
});

describe('trimToWordBudget', () => {
  const m = (text: string) => ({ text, id: text });

  it('keeps memories best first until the budget, cutting the one that crosses it', () => {
    const trimmed = trimToWordBudget([m('one two three'), m('four five six'), m('seven')], 5);
    expect(trimmed.map((x) => x.text)).toEqual(['one two three', 'four five']);
    // The cut memory keeps its other fields (its dia_id still counts for recall).
    expect(trimmed[1]?.id).toBe('four five six');
  });

  it('drops nothing when everything fits', () => {
    expect(trimToWordBudget([m('a b'), m('c')], 10)).toHaveLength(2);
  });

  it('a different budget between runs is a fairness warning', () => {
    const a = { ...run('a', 10, [answer(0, 10)]), contextWords: 200 };
    const b = run('b', 10, [answer(0, 10)]);
    expect(fairnessWarnings([a, b], 0)).toEqual([
      { kind: 'context', message: 'b vs a: context budget none vs 200 words' },
    ]);
  });
});
