import { describe, expect, it } from 'vitest';
import type { Sample } from '@shared/dataset/types';
import type { AnswerRecord, CurvePoint } from '@shared/experiment';
import {
  curveView,
  formatCost,
  formatJudge,
  runMetrics,
  filterAnswers,
  formatDuration,
  isCorrect,
  meanCurveByTest,
  parseRunsParams,
  retrievedView,
  runsParamsToRecord,
  type RunsParams,
} from './shape';

/** Test rows name official F1 flat; the other metrics are 1. */
function answer({
  officialF1 = 1,
  ...extra
}: Partial<AnswerRecord> & { officialF1?: number }): AnswerRecord {
  return {
    sampleId: 's1',
    testIndex: 3,
    questionIndex: 0,
    category: 4,
    question: 'Where did Ann move?',
    gold: 'Paris',
    prediction: 'Paris',
    retrieved: [],
    scores: { officialF1, setF1: 1, bleu1: 1, evidenceRecall: 1, judge: null },
    judge: null,
    usage: null,
    retrieveMs: 1,
    answerMs: 1,
    error: null,
    ...extra,
  };
}

const ANSWERS = [
  answer({ questionIndex: 0 }),
  // Exactly at the threshold: counted correct (F1 >= 0.5).
  answer({ questionIndex: 1, category: 1, officialF1: 0.5, question: 'Who came?' }),
  answer({ questionIndex: 2, category: 2, officialF1: 0.49, question: 'When?' }),
  answer({
    questionIndex: 3,
    category: 2,
    officialF1: 0,
    prediction: '[ERROR]',
    error: 'answer timed out after 60000 ms',
    question: 'Why?',
  }),
];

describe('filterAnswers', () => {
  const all = {
    categories: [1, 2, 3, 4, 5] as const,
    outcome: 'all' as const,
    errorsOnly: false,
    search: '',
  };
  const ids = (list: AnswerRecord[]) => list.map((a) => a.questionIndex);

  it('splits correct from incorrect at F1 0.5', () => {
    expect(isCorrect({ scores: { officialF1: 0.5 } })).toBe(true);
    expect(
      ids(filterAnswers(ANSWERS, { ...all, categories: [...all.categories], outcome: 'correct' })),
    ).toEqual([0, 1]);
    expect(
      ids(
        filterAnswers(ANSWERS, { ...all, categories: [...all.categories], outcome: 'incorrect' }),
      ),
    ).toEqual([2, 3]);
  });

  it('filters by category, errors and text (the error message included)', () => {
    expect(ids(filterAnswers(ANSWERS, { ...all, categories: [2] }))).toEqual([2, 3]);
    expect(
      ids(filterAnswers(ANSWERS, { ...all, categories: [...all.categories], errorsOnly: true })),
    ).toEqual([3]);
    expect(
      ids(filterAnswers(ANSWERS, { ...all, categories: [...all.categories], search: 'TIMED OUT' })),
    ).toEqual([3]);
    // Gold answers are searched too: every fixture's gold is Paris.
    expect(
      ids(filterAnswers(ANSWERS, { ...all, categories: [...all.categories], search: 'paris' })),
    ).toEqual([0, 1, 2, 3]);
  });

  it('filters by sample', () => {
    const two = [...ANSWERS, answer({ sampleId: 's2', questionIndex: 9 })];
    const every = { ...all, categories: [...all.categories] };
    expect(ids(filterAnswers(two, { ...every, sample: 's2' }))).toEqual([9]);
    expect(ids(filterAnswers(two, { ...every, sample: null }))).toEqual([0, 1, 2, 3, 9]);
  });
});

describe('runs URL params', () => {
  it('round-trips and leaves defaults out', () => {
    const state: RunsParams = {
      run: 'r1',
      metric: 'evidenceRecall',
      scheme: 'mem0',
      curve: { kind: 'sample', sampleId: 'conv-26' },
      categories: [1, 3],
      outcome: 'incorrect',
      errorsOnly: true,
      search: 'dog',
      question: 'conv-26#4',
      sample: 'conv-26',
      sort: 'officialF1.desc',
      runSort: 'createdAt.asc',
      runSearch: 'hybrid',
      runGroupBySet: true,
      labelling: true,
    };
    const record = runsParamsToRecord(state);
    expect(parseRunsParams(new URLSearchParams(record))).toEqual(state);
    expect(runsParamsToRecord(parseRunsParams(new URLSearchParams('run=r1')))).toEqual({
      run: 'r1',
    });
  });
  it('ignores values it does not know', () => {
    const p = parseRunsParams(new URLSearchParams('metric=bleu&scheme=x&outcome=maybe&cats=99'));
    expect(p).toMatchObject({
      metric: 'officialF1',
      scheme: 'official',
      outcome: 'all',
      categories: [],
    });
  });
});

function point(
  sampleId: string,
  testIndex: number,
  dialogs: number,
  f1: number | null,
  recall: number | null,
  judge: number | null = null,
): CurvePoint {
  return {
    sampleId,
    testIndex,
    dialogsInserted: dialogs,
    visibleCount: testIndex + 1,
    means: {
      officialF1: f1,
      evidenceRecall: recall,
      setF1: f1 === null ? null : f1 / 2,
      bleu1: null,
      judge,
    },
  };
}

describe('curve', () => {
  const curve = [
    point('a', 0, 4, 1, 1),
    point('a', 1, 8, 0.5, 0.5),
    point('b', 0, 10, 0, null),
    point('b', 1, 20, 0.5, 1),
    point('b', 2, 30, 0.25, 0.5),
  ];

  it('averages samples per test index, skipping missing means, with n samples', () => {
    const rows = meanCurveByTest(curve);
    expect(rows).toMatchObject([
      { x: 0, officialF1: 0.5, evidenceRecall: 1, setF1: 0.25, n: 2 },
      { x: 1, officialF1: 0.5, evidenceRecall: 0.75, setF1: 0.25, n: 2 },
      { x: 2, officialF1: 0.25, evidenceRecall: 0.5, setF1: 0.125, n: 1 },
    ]);
    // Every other metric the points carry has no mean anywhere: null, never 0.
    const given = new Set(['x', 'n', 'officialF1', 'evidenceRecall', 'setF1']);
    for (const row of rows) {
      for (const [key, value] of Object.entries(row))
        if (!given.has(key)) expect(value, key).toBeNull();
    }
  });

  it('draws one sample by dialogs inserted: official F1 with recall as the reference', () => {
    const view = curveView(curve, { kind: 'sample', sampleId: 'b' });
    expect(view.x).toBe('dialogs');
    expect(view.metrics).toEqual(['officialF1', 'evidenceRecall']);
    expect(view.lines[0]!.points.map((p) => p.x)).toEqual([10, 20, 30]);
  });

  it('follows the chosen metric: its per-test means, recall beside it unless it is recall', () => {
    const judged = [point('a', 0, 4, 1, 1, 0.25), point('a', 1, 8, 0.5, 0.5, 0.75)];
    const view = curveView(judged, { kind: 'sample', sampleId: 'a' }, 'judge');
    expect(view.metrics).toEqual(['judge', 'evidenceRecall']);
    expect(view.lines[0]!.points.map((p) => p.judge)).toEqual([0.25, 0.75]);
    expect(curveView(judged, { kind: 'mean' }, 'evidenceRecall').metrics).toEqual([
      'evidenceRecall',
    ]);
    // Several samples: only the chosen metric, one line each.
    expect(curveView(curve, { kind: 'each' }, 'setF1').metrics).toEqual(['setF1']);
  });

  it('names the mean line by its sample count, singular for one ("mean of 1 sample")', () => {
    const one = [point('a', 0, 4, 1, 1), point('a', 1, 8, 0.5, 0.5)];
    expect(curveView(one, { kind: 'mean' }).lines[0]!.label).toBe('mean of 1 sample');
    expect(curveView(curve, { kind: 'mean' }).lines[0]!.label).toBe('mean of 2 samples');
  });

  it('auto: one line per sample for a few samples, the mean for many, the sample for one', () => {
    expect(curveView(curve, { kind: 'auto' }).mode).toEqual({ kind: 'each' });
    expect(curveView(curve, { kind: 'auto' }).lines).toHaveLength(2);
    const many = ['a', 'b', 'c', 'd', 'e'].map((id) => point(id, 0, 1, 1, 1));
    expect(curveView(many, { kind: 'auto' })).toMatchObject({ x: 'test', mode: { kind: 'mean' } });
    expect(curveView([point('a', 0, 1, 1, 1)], { kind: 'auto' }).mode).toEqual({
      kind: 'sample',
      sampleId: 'a',
    });
    // A sample from another run's URL falls back to the mean.
    expect(curveView(curve, { kind: 'sample', sampleId: 'zz' }).mode).toEqual({ kind: 'mean' });
  });
});

describe('retrievedView', () => {
  const sample = {
    sampleId: 's1',
    speakers: ['Ann', 'Bob'],
    sessions: [
      {
        index: 1,
        dateTimeText: null,
        dateTime: null,
        turns: [
          {
            diaId: 'D1:1',
            speaker: 'Ann',
            text: 'I moved to Paris.',
            rawText: 'I moved to Paris.',
            sessionIndex: 1,
            turnIndex: 0,
          },
          {
            diaId: 'D1:2',
            speaker: 'Bob',
            text: 'Nice.',
            rawText: 'Nice.',
            sessionIndex: 1,
            turnIndex: 1,
          },
        ],
      },
    ],
    qa: [
      {
        index: 0,
        question: 'q',
        answer: 'Paris',
        adversarialAnswer: null,
        category: 4,
        evidenceRaw: [],
        evidence: ['D1:1', 'D9:9'],
        evidenceProblems: [],
      },
    ],
  } as unknown as Sample;

  it('keeps rank order, marks evidence, attaches text and lists missed evidence', () => {
    const view = retrievedView(
      answer({
        retrieved: [
          { id: 'm2', diaId: 'D1:2', score: 0.9 },
          { id: 'm1', diaId: 'D1:1', score: 0.8 },
          { id: 'x', diaId: null, score: 0.1 },
        ],
      }),
      sample,
    );
    expect(view.rows.map((r) => [r.rank, r.diaId, r.isEvidence, r.turn?.text ?? null])).toEqual([
      [1, 'D1:2', false, 'Nice.'],
      [2, 'D1:1', true, 'I moved to Paris.'],
      [3, null, false, null],
    ]);
    expect(view.evidence).toEqual(['D1:1', 'D9:9']);
    expect(view.missed).toEqual(['D9:9']);
  });

  it('shows a memory that is no turn (a Mem0 fact) by the text the run stored with it', () => {
    const view = retrievedView(
      answer({
        retrieved: [
          { id: 'Ann:5f0c', diaId: null, score: 0.7, text: 'Moved to Paris in 2022' },
          { id: 'm1', diaId: 'D1:1', score: 0.6 },
        ],
      }),
      sample,
    );
    expect(view.rows.map((r) => r.text)).toEqual(['Moved to Paris in 2022', 'I moved to Paris.']);
    expect(view.rows[0]!.turn).toBeNull();
  });

  it('without the dataset it still lists the ids, with no evidence marks', () => {
    const view = retrievedView(
      answer({ retrieved: [{ id: 'm1', diaId: 'D1:1', score: 0.8 }] }),
      null,
    );
    expect(view.rows[0]).toMatchObject({ diaId: 'D1:1', isEvidence: false, turn: null });
    expect(view.evidence).toBeNull();
  });
});

describe('formatDuration', () => {
  it('reads as seconds, minutes or hours', () => {
    expect(formatDuration('2025-01-01T00:00:00Z', '2025-01-01T00:00:09Z')).toBe('9s');
    expect(formatDuration('2025-01-01T00:00:00Z', '2025-01-01T00:02:05Z')).toBe('2m 05s');
    expect(formatDuration('2025-01-01T00:00:00Z', '2025-01-01T03:04:00Z')).toBe('3h 04m');
    expect(formatDuration('2025-01-01T00:00:00Z', null)).toBe('—');
  });
});

describe('LLM metrics in the Runs view', () => {
  const summaryWith = (setN: number) =>
    ({
      overall: { all: { setF1: { mean: 0.5, n: setN }, bleu1: { mean: 0.25, n: setN } } },
    }) as unknown as Parameters<typeof runMetrics>[0];

  it('offers Mem0 metrics only with scored answers and the judge only with a judge', () => {
    expect(runMetrics(summaryWith(0), { judge: null })).toEqual(['officialF1', 'evidenceRecall']);
    expect(runMetrics(summaryWith(3), {})).toEqual([
      'officialF1',
      'evidenceRecall',
      'setF1',
      'bleu1',
    ]);
    const judge = { model: 'm', repeats: 2, prompt: { style: 'mem0', sha256: 'x', templates: {} } };
    expect(runMetrics(summaryWith(3), { judge })).toContain('judge');
  });

  it('keeps the judge metric in the URL and formats J, tokens and cost', () => {
    const params = parseRunsParams(new URLSearchParams('metric=judge'));
    expect(params.metric).toBe('judge');
    expect(runsParamsToRecord(params).metric).toBe('judge');
    expect(parseRunsParams(new URLSearchParams('metric=nope')).metric).toBe('officialF1');
    expect(formatJudge({ mean: 0.75, std: 0.0707 })).toBe('0.750 ± 0.071');
    expect(formatJudge({ mean: null, std: null })).toBe('–');
    expect(formatCost(null)).toBe('–');
    expect(formatCost(0.000123)).toBe('$0.00012');
    expect(formatCost(1.234)).toBe('$1.23');
  });
});
