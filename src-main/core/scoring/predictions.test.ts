import { describe, expect, it } from 'vitest';
import { LOCOMO_PROFILE } from '../../../src-shared/benchmarks';
import type { QA, Sample } from '../../../src-shared/dataset';
import { parsePredictions, scorePredictions, summarizeScores } from './predictions';

function qa(index: number, question: string, answer: string | null, category: number): QA {
  return {
    index,
    question,
    answer,
    adversarialAnswer: null,
    category,
    evidenceRaw: [],
    evidence: [],
    evidenceProblems: [],
  };
}

/** One LoCoMo-shaped sample: two single-hop questions, a temporal one and an adversarial one. */
const SAMPLE: Sample = {
  sampleId: 's1',
  speakers: ['Ann', 'Bob'],
  sessions: [],
  qa: [
    qa(0, 'Where did Ann move?', 'Paris', 4),
    qa(1, 'When did Ann buy it?', '2022', 2),
    qa(2, 'Where does Ann live?', 'Paris', 4),
    qa(3, "Is the dog Ann's?", null, 5),
  ],
  aux: { eventSummary: null, observation: null, sessionSummary: null },
};

describe('parsePredictions', () => {
  it('names every bad entry by its index, not only the first', () => {
    const bad = [
      { sampleId: 's1', questionIndex: 'zero', prediction: 'x' },
      { sampleId: 'nope', questionIndex: 0, prediction: 'x' },
      { sampleId: 's1', questionIndex: 9, prediction: 'x' },
      { sampleId: 's1', questionIndex: 0, prediction: 'Paris' },
      { sampleId: 's1', questionIndex: 0, prediction: 'Lyon' },
    ];
    expect(() => parsePredictions(bad, [SAMPLE])).toThrow(
      expect.objectContaining({
        code: 'INVALID_INPUT',
        message: expect.stringMatching(
          /^4 bad predictions:\npredictions: \[0\]\.questionIndex: .*\npredictions: \[1\]\.sampleId: no sample "nope"\npredictions: \[2\]\.questionIndex: sample s1 has no question 9\npredictions: \[4\]: s1 question 0 is already predicted at \[3\]$/,
        ),
      }),
    );
    expect(() => parsePredictions({}, [SAMPLE])).toThrow(/must be a JSON array/);
  });
});

describe('scorePredictions and summarizeScores', () => {
  it('score each prediction as the pipeline does and average per category and overall', () => {
    const predictions = parsePredictions(
      [
        { sampleId: 's1', questionIndex: 0, prediction: 'Paris' },
        { sampleId: 's1', questionIndex: 2, prediction: 'London' },
        { sampleId: 's1', questionIndex: 1, prediction: '2022' },
        { sampleId: 's1', questionIndex: 3, prediction: 'Not mentioned in the conversation' },
      ],
      [SAMPLE],
    );
    const items = scorePredictions([SAMPLE], predictions, LOCOMO_PROFILE);
    // In the order given, with the question and gold a judge would read.
    expect(items.map((i) => [i.questionIndex, i.gold, i.scores['officialF1']])).toEqual([
      [0, 'Paris', 1],
      [2, 'Paris', 0],
      [1, '2022', 1],
      [3, null, 1],
    ]);
    // No judge ran: no judge column.
    expect(items.every((i) => !('judge' in i.scores))).toBe(true);
    const summary = summarizeScores(items, false, LOCOMO_PROFILE);
    expect(summary.byCategory[4]).toMatchObject({ n: 2, officialF1: { mean: 0.5 } });
    expect(summary.byCategory[5]).toMatchObject({ n: 1, officialF1: { mean: 1 } });
    expect(summary.overall.all).toMatchObject({ n: 4, officialF1: { mean: 0.75 } });
    // Mem0's convention leaves the adversarial category out.
    expect(summary.overall.answerable).toMatchObject({ n: 3, officialF1: { mean: 2 / 3 } });
  });
});
