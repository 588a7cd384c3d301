import { describe, expect, it } from 'vitest';
import type { QuestionAcrossRuns } from '@shared/api';
import type { AnswerRecord } from '@shared/experiment';
import type { Sample } from '@shared/dataset/types';
import {
  flipKeyAction,
  flipSides,
  openKey,
  parseOpenKey,
  rankMoveMark,
  stepOpen,
} from './flipDetail';

const answer = (over: Partial<AnswerRecord>): AnswerRecord => ({
  sampleId: 's1',
  testIndex: 3,
  questionIndex: 0,
  category: 4,
  question: 'Where did Ann move?',
  gold: 'Paris',
  prediction: 'Rome',
  retrieved: [],
  scores: { officialF1: 0, evidenceRecall: 0 },
  judge: null,
  usage: null,
  retrieveMs: 2,
  answerMs: 3,
  error: null,
  ...over,
});

const side = (
  runId: string,
  a: AnswerRecord | null,
  judgeReasons: Array<string | null> | null = null,
) => ({
  runId,
  label: `preset · ${runId}`,
  datasetSha256: 'x',
  topK: 5,
  judgeProtocol: 'mem0',
  answer: a,
  judgeReasons,
});

const sample = {
  sampleId: 's1',
  sessions: [
    {
      turns: [
        { diaId: 'D1:1', speaker: 'Ann', text: 'Hi' },
        { diaId: 'D1:2', speaker: 'Ann', text: 'I moved to Paris' },
        { diaId: 'D1:3', speaker: 'Bob', text: 'Nice' },
      ],
    },
  ],
  qa: [{ index: 0, evidence: ['D1:2', 'D1:3'] }],
} as unknown as Sample;

describe('flipSides', () => {
  const data: QuestionAcrossRuns = {
    sampleId: 's1',
    questionIndex: 0,
    runs: [
      side(
        'a',
        answer({
          retrieved: [{ id: 'm1', diaId: 'D1:1', score: 0.9 }],
          scores: { officialF1: 0, evidenceRecall: 0 },
        }),
      ),
      side(
        'b',
        answer({
          prediction: 'Paris',
          // D1:2 at rank 2: found; D1:3 never retrieved: missed.
          retrieved: [
            { id: 'm1', diaId: 'D1:1', score: 0.8 },
            { id: 'm2', diaId: 'D1:2', score: 0.7 },
          ],
          scores: { officialF1: 1, evidenceRecall: 0.5 },
          judge: { mean: 0.5, std: 0.7, labels: [1, 0], error: null },
        }),
        ['same city', null],
      ),
      side('c', null),
    ],
  };

  it("shows each run's evidence found (with rank) or missed, and score and recall against the baseline", () => {
    const [a, b, c] = flipSides(data, sample, 'officialF1', 0);
    expect(a).toMatchObject({ isBaseline: true, scoreDelta: null, recallDelta: null, k: 5 });
    // A missed turn comes with its text: what the run lost, not just an id.
    expect(a?.evidence).toEqual([
      { diaId: 'D1:2', rank: null, turn: { speaker: 'Ann', text: 'I moved to Paris' } },
      { diaId: 'D1:3', rank: null, turn: { speaker: 'Bob', text: 'Nice' } },
    ]);
    expect(b).toMatchObject({ score: 1, scoreDelta: 1, recall: 0.5, recallDelta: 0.5 });
    expect(b?.evidence).toEqual([
      { diaId: 'D1:2', rank: 2, turn: { speaker: 'Ann', text: 'I moved to Paris' } },
      { diaId: 'D1:3', rank: null, turn: { speaker: 'Bob', text: 'Nice' } },
    ]);
    expect(b?.retrieved.map((r) => [r.rank, r.isEvidence, r.turn?.text])).toEqual([
      [1, false, 'Hi'],
      [2, true, 'I moved to Paris'],
    ]);
    expect(b?.judge).toEqual({
      mean: 0.5,
      labels: ['CORRECT', 'WRONG'],
      reasons: ['same city', null],
      protocol: 'mem0',
      error: null,
    });
    // A run without the question is missing, not wrong: no score, no delta.
    expect(c).toMatchObject({ answered: false, score: null, scoreDelta: null });
  });

  it('finds evidence at the rank of a chunk that cites it after its first turn', () => {
    const chunked: QuestionAcrossRuns = {
      ...data,
      runs: [
        side(
          'chunks',
          answer({
            retrieved: [
              { id: 'm1', diaId: 'D1:1', score: 0.9 },
              { id: 'm2', diaId: 'D1:1', diaIds: ['D1:1', 'D1:2', 'D1:3'], score: 0.8 },
            ],
            scores: { officialF1: 1, evidenceRecall: 1 },
          }),
        ),
      ],
    };
    const [only] = flipSides(chunked, sample, 'officialF1', 0);
    expect(only?.evidence?.map((e) => [e.diaId, e.rank])).toEqual([
      ['D1:2', 2],
      ['D1:3', 2],
    ]);
    expect(only?.retrieved.map((r) => r.isEvidence)).toEqual([false, true]);
  });

  it('measures against whichever run is the baseline, and leaves evidence unknown without the sample', () => {
    const [a, b] = flipSides(data, null, 'officialF1', 1);
    expect(a).toMatchObject({ scoreDelta: -1, recallDelta: -0.5, evidence: null });
    expect(b).toMatchObject({ isBaseline: true, scoreDelta: null });
  });
});

describe('rank moves between the lists', () => {
  // A retrieves D1:1, D1:2, D1:3; B retrieves D1:3 first (A's #3), D1:1 second (A's #1), D1:4
  // third (A never did). Ids differ between runs' collections: the turn is what matches.
  const moved: QuestionAcrossRuns = {
    sampleId: 's1',
    questionIndex: 0,
    runs: [
      side(
        'a',
        answer({
          retrieved: [
            { id: 'a1', diaId: 'D1:1', score: 0.9 },
            { id: 'a2', diaId: 'D1:2', score: 0.8 },
            { id: 'a3', diaId: 'D1:3', score: 0.7 },
          ],
        }),
      ),
      side(
        'b',
        answer({
          retrieved: [
            { id: 'b1', diaId: 'D1:3', score: 0.9 },
            { id: 'b2', diaId: 'D1:1', score: 0.8 },
            { id: 'b3', diaId: 'D1:4', score: 0.7 },
          ],
        }),
      ),
    ],
  };

  it("marks each memory with its rank in the other run's list", () => {
    const [a, b] = flipSides(moved, sample, 'officialF1', 0);
    const marks = (s: typeof a) =>
      s?.retrieved.map((r) => rankMoveMark(r.move, s.isBaseline)?.text ?? null);
    expect(marks(b)).toEqual(['↑2 was #3', '↓1 was #1', 'not in A']);
    expect(marks(a)).toEqual(['B #2 ↓1', 'not in B', 'B #1 ↑2']);
  });

  it('leaves a memory that kept its rank unmarked, and a run without the question unmarked', () => {
    const same: QuestionAcrossRuns = {
      ...moved,
      runs: [moved.runs[0]!, { ...moved.runs[0]!, runId: 'b' }],
    };
    const [, b] = flipSides(same, sample, 'officialF1', 0);
    expect(b?.retrieved.map((r) => rankMoveMark(r.move, false))).toEqual([null, null, null]);
    const [a] = flipSides(
      { ...moved, runs: [moved.runs[0]!, side('b', null)] },
      sample,
      'officialF1',
      0,
    );
    expect(a?.retrieved.every((r) => r.move === null)).toBe(true);
  });
});

describe('open question and keyboard stepping', () => {
  const rows = [
    { sampleId: 'conv:1', questionIndex: 0 },
    { sampleId: 'conv:1', questionIndex: 4 },
    { sampleId: 'conv:2', questionIndex: 1 },
  ];

  it('round-trips keys of sample ids that hold a colon', () => {
    expect(parseOpenKey(openKey('conv:1', 4))).toEqual({ sampleId: 'conv:1', questionIndex: 4 });
    expect(parseOpenKey('nonsense')).toBeNull();
    expect(parseOpenKey('s1:-1')).toBeNull();
    expect(parseOpenKey(null)).toBeNull();
  });

  it('steps through the shown rows, starting at either end and stopping there', () => {
    expect(stepOpen(rows, null, 1)).toBe('conv:1:0');
    expect(stepOpen(rows, null, -1)).toBe('conv:2:1');
    expect(stepOpen(rows, 'conv:1:0', 1)).toBe('conv:1:4');
    expect(stepOpen(rows, 'conv:1:4', -1)).toBe('conv:1:0');
    expect(stepOpen(rows, 'conv:2:1', 1)).toBe('conv:2:1');
    expect(stepOpen(rows, 'conv:1:0', -1)).toBe('conv:1:0');
    // The open question was filtered out: start again from the top.
    expect(stepOpen(rows, 'gone:9', 1)).toBe('conv:1:0');
    expect(stepOpen([], 'conv:1:0', 1)).toBeNull();
  });

  it('takes j/k/i/r anywhere, the arrows only inside the table', () => {
    expect(flipKeyAction('j', false)).toBe('next');
    expect(flipKeyAction('k', false)).toBe('previous');
    expect(flipKeyAction('ArrowDown', false)).toBeNull();
    expect(flipKeyAction('ArrowDown', true)).toBe('next');
    expect(flipKeyAction('ArrowUp', true)).toBe('previous');
    expect(flipKeyAction('Escape', false)).toBe('close');
    expect(flipKeyAction('i', false)).toBe('improved');
    expect(flipKeyAction('r', true)).toBe('regressed');
    expect(flipKeyAction('x', true)).toBeNull();
  });
});
