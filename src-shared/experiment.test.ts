import { describe, expect, it } from 'vitest';
import { zodError } from './errors';
import {
  ExperimentConfigSchema,
  curveOf,
  estimateRemainingMs,
  finalAnswersOf,
  summarizeAnswers,
  type AnswerRecord,
} from './experiment';

function answer(partial: Partial<AnswerRecord>): AnswerRecord {
  return {
    sampleId: 's1',
    testIndex: 0,
    questionIndex: 0,
    category: 4,
    question: 'q',
    gold: 'g',
    prediction: 'p',
    retrieved: [],
    officialF1: 0,
    evidenceRecall: null,
    retrieveMs: 0,
    answerMs: 0,
    error: null,
    ...partial,
  };
}

describe('ExperimentConfigSchema', () => {
  it('fills every default from just a dataset path', () => {
    expect(ExperimentConfigSchema.parse({ datasetPath: 'x.json' })).toEqual({
      datasetPath: 'x.json',
      memory: { preset: 'hybrid', config: {} },
      answerer: { kind: 'extractive' },
      retrieval: { topK: 10 },
      seed: 42,
      timeouts: { insertMs: 30000, answerMs: 60000 },
      includeNoEvidence: false,
      parallel: 1,
    });
  });

  it('names the bad field in the error', () => {
    const result = ExperimentConfigSchema.safeParse({ datasetPath: 'x', retrieval: { topK: 0 } });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(zodError(result.error, 'config').message).toMatch(/^config: retrieval\.topK: /);
  });

  it('refuses unknown keys and unknown answerer kinds', () => {
    expect(ExperimentConfigSchema.safeParse({ datasetPath: 'x', topK: 5 }).success).toBe(false);
    expect(
      ExperimentConfigSchema.safeParse({ datasetPath: 'x', answerer: { kind: 'oracle' } }).success,
    ).toBe(false);
  });
});

describe('aggregation', () => {
  const answers = [
    answer({ questionIndex: 0, testIndex: 0, category: 1, officialF1: 0, evidenceRecall: 0 }),
    answer({ questionIndex: 0, testIndex: 1, category: 1, officialF1: 1, evidenceRecall: 1 }),
    answer({ questionIndex: 1, testIndex: 1, category: 5, officialF1: 1, evidenceRecall: null }),
    answer({
      questionIndex: 2,
      testIndex: 1,
      category: 4,
      officialF1: 0,
      evidenceRecall: 0.5,
      error: 'answer: TIMEOUT',
    }),
    answer({
      sampleId: 's0',
      questionIndex: 0,
      testIndex: 0,
      category: 2,
      officialF1: 0.5,
      evidenceRecall: 1,
    }),
  ];

  it('keeps each question at its last test, sorted by sample then question', () => {
    const final = finalAnswersOf(answers);
    expect(final.map((a) => [a.sampleId, a.questionIndex, a.testIndex])).toEqual([
      ['s0', 0, 0],
      ['s1', 0, 1],
      ['s1', 1, 1],
      ['s1', 2, 1],
    ]);
  });

  it('summarises per category and overall both ways; recall skips questions without evidence', () => {
    const s = summarizeAnswers(finalAnswersOf(answers));
    expect(s.byCategory[1]).toEqual({
      officialF1: { mean: 1, n: 1 },
      evidenceRecall: { mean: 1, n: 1 },
    });
    expect(s.byCategory[3]).toEqual({
      officialF1: { mean: null, n: 0 },
      evidenceRecall: { mean: null, n: 0 },
    });
    expect(s.overall.all.officialF1).toEqual({ mean: 2.5 / 4, n: 4 });
    expect(s.overall.all.evidenceRecall).toEqual({ mean: 2.5 / 3, n: 3 });
    expect(s.overall.categories1to4.officialF1).toEqual({ mean: 1.5 / 3, n: 3 });
    expect(s.errors).toBe(1);
    expect(s.questions).toBe(4);
  });

  it('draws one curve point per test', () => {
    const points = curveOf([
      {
        sampleId: 's1',
        testIndex: 1,
        packetIdx: 9,
        dialogsInserted: 20,
        visibleCount: 3,
        answers: answers.slice(1, 4),
      },
      {
        sampleId: 's1',
        testIndex: 0,
        packetIdx: 4,
        dialogsInserted: 10,
        visibleCount: 1,
        answers: answers.slice(0, 1),
      },
    ]);
    expect(points).toEqual([
      {
        sampleId: 's1',
        testIndex: 0,
        dialogsInserted: 10,
        visibleCount: 1,
        meanF1: 0,
        meanRecall: 0,
      },
      {
        sampleId: 's1',
        testIndex: 1,
        dialogsInserted: 20,
        visibleCount: 3,
        meanF1: 2 / 3,
        meanRecall: 0.75,
      },
    ]);
  });

  it('estimates remaining time from the share done', () => {
    expect(estimateRemainingMs(1000, 0, 10)).toBeNull();
    expect(estimateRemainingMs(1000, 5, 10)).toBe(1000);
    expect(estimateRemainingMs(1000, 10, 10)).toBe(0);
  });
});
