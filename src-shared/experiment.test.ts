import { describe, expect, it } from 'vitest';
import { LOCOMO_PROFILE } from './benchmarks';
import { zodError } from './errors';
import { metricsOf, type MetricMean } from './metrics';
import {
  ExperimentConfigSchema,
  MAX_TIMEOUT_MS,
  curveOf,
  estimateRemainingMs,
  finalAnswersOf,
  finishedStatus,
  answerScores,
  judgeScoreOf,
  summarizeAnswers,
  type AnswerRecord,
} from './experiment';

/** Test rows name the built-in metrics' values flat; `scores.judge` follows `judge.mean`. */
type FlatAnswer = Partial<AnswerRecord> & {
  officialF1?: number;
  evidenceRecall?: number | null;
  setF1?: number | null;
  bleu1?: number | null;
};

function answer({
  officialF1 = 0,
  evidenceRecall = null,
  setF1 = null,
  bleu1 = null,
  ...partial
}: FlatAnswer): AnswerRecord {
  const judge = partial.judge ?? null;
  return {
    sampleId: 's1',
    testIndex: 0,
    questionIndex: 0,
    category: 4,
    question: 'q',
    gold: 'g',
    prediction: 'p',
    retrieved: [],
    retrieveMs: 0,
    answerMs: 0,
    error: null,
    usage: null,
    ...partial,
    judge,
    scores: {
      officialF1,
      evidenceRecall,
      setF1,
      bleu1,
      ...partial.scores,
      judge: judge?.mean ?? null,
    },
  };
}

describe('ExperimentConfigSchema', () => {
  it('fills every default from just a dataset path', () => {
    expect(ExperimentConfigSchema.parse({ datasetPath: 'x.json' })).toEqual({
      datasetPath: 'x.json',
      memory: { preset: 'hybrid-context', config: {} },
      answerer: { kind: 'extractive' },
      retrieval: { topK: 10 },
      seed: 42,
      timeouts: { insertMs: 30000, answerMs: 60000 },
      // Asked at the last packet by default, so n is the dataset's question count (issue 11).
      includeNoEvidence: true,
      parallel: 1,
    });
  });

  it('says how a finished run ends from its final answers: completed, degraded or failed', () => {
    expect(finishedStatus({ questions: 10, errors: 1 }, 0.1)).toEqual({
      status: 'completed',
      message: null,
    });
    expect(finishedStatus({ questions: 10, errors: 2 }, 0.1)).toEqual({
      status: 'degraded',
      message: '2 of 10 final answers are errors (20%, more than maxErrorShare 10%)',
    });
    expect(finishedStatus({ questions: 3, errors: 3 }, 1)).toEqual({
      status: 'failed',
      message: 'every final answer is an error (3 of 3)',
    });
    expect(finishedStatus({ questions: 0, errors: 0 }, 0)).toEqual({
      status: 'completed',
      message: null,
    });
  });

  it('names the bad field in the error', () => {
    const result = ExperimentConfigSchema.safeParse({ datasetPath: 'x', retrieval: { topK: 0 } });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(zodError(result.error, 'config').message).toMatch(/^config: retrieval\.topK: /);
  });

  it("takes a batch of questions to a prompt for LoCoMo's full context only", () => {
    const llm = { kind: 'llm', baseUrl: 'http://127.0.0.1:1/v1', model: 'm' } as const;
    const parsed = ExperimentConfigSchema.parse({
      datasetPath: 'x.json',
      answerer: { ...llm, answerProtocol: 'locomo-full-context', batchSize: 10 },
    });
    expect(parsed.answerer).toMatchObject({ batchSize: 10 });
    // Absent stays absent, so configs without it hash as before.
    const plain = ExperimentConfigSchema.parse({ datasetPath: 'x.json', answerer: llm });
    expect('batchSize' in plain.answerer).toBe(false);
    const refused = ExperimentConfigSchema.safeParse({
      datasetPath: 'x.json',
      answerer: { ...llm, answerProtocol: 'mem0', batchSize: 10 },
    });
    expect(refused.success).toBe(false);
    expect(zodError(refused.error!, 'config').message).toMatch(
      /answerer\.batchSize: a batch of questions to a prompt is LoCoMo full context only/,
    );
  });

  it("bounds every deadline by what Node's timers hold (2^31-1 ms), naming the field", () => {
    const llm = { kind: 'llm', baseUrl: 'http://127.0.0.1:1/v1', model: 'm' } as const;
    const message = (input: unknown): string => {
      const result = ExperimentConfigSchema.safeParse(input);
      return result.success ? 'accepted' : zodError(result.error, 'config').message;
    };
    // 3e9 ms would overflow to a 1 ms timer: every call would time out at once.
    expect(message({ datasetPath: 'x', timeouts: { answerMs: 3e9 } })).toMatch(
      /^config: timeouts\.answerMs: .*2147483647/,
    );
    expect(message({ datasetPath: 'x', timeouts: { insertMs: 3e9 } })).toMatch(
      /^config: timeouts\.insertMs: /,
    );
    expect(message({ datasetPath: 'x', answerer: { ...llm, timeoutMs: 3e9 } })).toMatch(
      /^config: answerer\.timeoutMs: /,
    );
    expect(message({ datasetPath: 'x', timeouts: { answerMs: MAX_TIMEOUT_MS } })).toBe('accepted');
  });

  it('refuses a sample listed twice, naming it', () => {
    const result = ExperimentConfigSchema.safeParse({
      datasetPath: 'x',
      samples: ['conv-26', 'conv-30', 'conv-26'],
    });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(zodError(result.error, 'config').message).toBe(
      'config: samples[2]: sample "conv-26" is listed twice',
    );
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
    const s = summarizeAnswers(finalAnswersOf(answers), LOCOMO_PROFILE);
    // These answers carry only official F1 and recall: every other metric's mean is empty, not
    // zero (whichever metrics are registered), and J's has no spread either.
    const onlyF1AndRecall = (means: Record<string, MetricMean> | undefined) => {
      expect(Object.keys(means ?? {}).sort()).toEqual(
        metricsOf(LOCOMO_PROFILE)
          .map((m) => m.id)
          .sort(),
      );
      for (const [id, mean] of Object.entries(means ?? {})) {
        if (id !== 'officialF1' && id !== 'evidenceRecall')
          expect(mean, id).toMatchObject({ mean: null, n: 0 });
      }
      expect(means?.['judge']).toMatchObject({ std: null, repeats: 0 });
    };
    onlyF1AndRecall(s.byCategory[1]);
    expect(s.byCategory[1]).toMatchObject({
      officialF1: { mean: 1, n: 1 },
      evidenceRecall: { mean: 1, n: 1 },
    });
    onlyF1AndRecall(s.byCategory[3]);
    expect(s.byCategory[3]).toMatchObject({
      officialF1: { mean: null, n: 0 },
      evidenceRecall: { mean: null, n: 0 },
    });
    expect(s.overall.all.officialF1).toEqual({ mean: 2.5 / 4, n: 4 });
    expect(s.overall.all.evidenceRecall).toEqual({ mean: 2.5 / 3, n: 3 });
    expect(s.overall.answerable!.officialF1).toEqual({ mean: 1.5 / 3, n: 3 });
    expect(s.errors).toBe(1);
    expect(s.questions).toBe(4);
  });

  it('draws one curve point per test', () => {
    const points = curveOf(
      [
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
      ],
      LOCOMO_PROFILE,
    );
    // Only official F1 and recall have values; every other registered metric's mean is null.
    const others = (means: Record<string, number | null>) =>
      Object.entries(means).filter(([id]) => id !== 'officialF1' && id !== 'evidenceRecall');
    expect(points.map(({ means: _means, ...point }) => point)).toEqual([
      { sampleId: 's1', testIndex: 0, dialogsInserted: 10, visibleCount: 1 },
      { sampleId: 's1', testIndex: 1, dialogsInserted: 20, visibleCount: 3 },
    ]);
    expect(points.map((p) => [p.means['officialF1'], p.means['evidenceRecall']])).toEqual([
      [0, 0],
      [2 / 3, 0.75],
    ]);
    for (const point of points) {
      expect(Object.keys(point.means).sort()).toEqual(
        metricsOf(LOCOMO_PROFILE)
          .map((m) => m.id)
          .sort(),
      );
      for (const [id, mean] of others(point.means)) expect(mean, id).toBeNull();
    }
  });

  it('averages set F1 and BLEU-1 over categories 1-4, and J with its std over repeats', () => {
    const judged = (labels: number[]) => judgeScoreOf(labels);
    const s = summarizeAnswers(
      [
        answer({
          category: 1,
          scores: answerScores({ prediction: 'Paris', gold: 'Paris', category: 1 }, LOCOMO_PROFILE),
          judge: judged([1, 1, 0]),
        }),
        answer({
          category: 4,
          scores: answerScores({ prediction: 'Lyon', gold: 'Paris', category: 4 }, LOCOMO_PROFILE),
          judge: judged([0, 1, 0]),
        }),
        answer({
          category: 5,
          scores: answerScores(
            { prediction: 'Not mentioned', gold: null, category: 5 },
            LOCOMO_PROFILE,
          ),
          judge: null,
        }),
        answer({
          category: 2,
          scores: answerScores(
            { prediction: '[ERROR]', gold: 'error', category: 2, errored: true },
            LOCOMO_PROFILE,
          ),
          error: 'answer: TIMEOUT',
          judge: { mean: null, std: null, labels: [], error: 'judge: UPSTREAM: bad' },
        }),
      ],
      LOCOMO_PROFILE,
    );
    // Category 5 has no set F1 / BLEU-1: "all" counts categories 1-4 for them (n 3, not 4).
    expect(s.overall.all.setF1).toEqual({ mean: 1 / 3, n: 3 });
    expect(s.overall.answerable!.bleu1).toEqual({ mean: 1 / 3, n: 3 });
    expect(s.overall.all.officialF1).toEqual({ mean: 2 / 4, n: 4 });
    // J: per answer 2/3 and 1/3; per repeat accuracies 0.5, 1, 0 -> mean 0.5, sample std 0.5.
    expect(s.overall.answerable!.judge).toEqual({ mean: 0.5, n: 2, std: 0.5, repeats: 3 });
    expect(s.byCategory[2]?.judge.n).toBe(0);
  });

  it('estimates remaining time from the share done', () => {
    expect(estimateRemainingMs(1000, 0, 10)).toBeNull();
    expect(estimateRemainingMs(1000, 5, 10)).toBe(1000);
    expect(estimateRemainingMs(1000, 10, 10)).toBe(0);
  });
});
