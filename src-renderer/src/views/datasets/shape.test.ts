import { describe, expect, it } from 'vitest';
import type { DatasetSummary } from '@shared/api';
import type { QA, Sample, Session, Turn } from '@shared/dataset/types';
import {
  answerLabel,
  buildTurnRows,
  datasetsParamsToRecord,
  filterQuestions,
  formatSessionDate,
  mergeDatasets,
  parseDatasetsParams,
  pickDataset,
  splitTurnText,
  toggleCategory,
} from './shape';

function turn(sessionIndex: number, n: number, extra: Partial<Turn> = {}): Turn {
  return {
    diaId: `D${sessionIndex}:${n}`,
    speaker: n % 2 ? 'Ann' : 'Bob',
    text: `text ${n}`,
    rawText: `text ${n}`,
    sessionIndex,
    turnIndex: n - 1,
    ...extra,
  };
}

function session(index: number, turns: number, dateTime: string | null = null): Session {
  return {
    index,
    dateTimeText: dateTime === null ? 'sometime last week' : 'as written',
    dateTime,
    turns: Array.from({ length: turns }, (_, i) => turn(index, i + 1)),
  };
}

function qa(index: number, category: QA['category'], extra: Partial<QA> = {}): QA {
  return {
    index,
    question: `question ${index}`,
    answer: `answer ${index}`,
    adversarialAnswer: null,
    category,
    evidenceRaw: [],
    evidence: [],
    evidenceProblems: [],
    ...extra,
  };
}

describe('datasets URL params', () => {
  it('round-trips every field and leaves defaults out of the URL', () => {
    const state = {
      dataset: 'a'.repeat(64),
      sample: 'conv-41',
      scheme: 'mem0' as const,
      categories: [1, 4] as QA['category'][],
      search: 'puppy',
      question: 0,
      sort: 'qa.desc',
    };
    const record = datasetsParamsToRecord(state);
    expect(record).toEqual({
      dataset: 'a'.repeat(64),
      sample: 'conv-41',
      scheme: 'mem0',
      cats: '1,4',
      q: 'puppy',
      question: '0',
      sort: 'qa.desc',
    });
    expect(parseDatasetsParams(new URLSearchParams(record))).toEqual(state);
  });

  it('falls back to defaults for missing or bad values', () => {
    const parsed = parseDatasetsParams(
      new URLSearchParams({ scheme: 'nope', question: '-1', cats: '99,x,2' }),
    );
    expect(parsed).toMatchObject({
      dataset: null,
      scheme: 'official',
      question: null,
      categories: [2],
    });
    expect(datasetsParamsToRecord(parseDatasetsParams(new URLSearchParams()))).toEqual({});
  });

  it('keeps an empty category selection distinct from "all"', () => {
    const none = datasetsParamsToRecord({
      ...parseDatasetsParams(new URLSearchParams()),
      categories: [],
    });
    expect(none).toEqual({ cats: '' });
    expect(parseDatasetsParams(new URLSearchParams(none)).categories).toEqual([]);
  });
});

describe('opened datasets', () => {
  const a = { datasetId: 'a' } as DatasetSummary;
  const b = { datasetId: 'b' } as DatasetSummary;
  it('adds a just-uploaded dataset the list does not know yet, once', () => {
    expect(mergeDatasets([a], b).map((d) => d.datasetId)).toEqual(['a', 'b']);
    expect(mergeDatasets([a, b], b).map((d) => d.datasetId)).toEqual(['a', 'b']);
    expect(mergeDatasets(undefined, null)).toEqual([]);
  });
  it('picks the wanted dataset, else the first', () => {
    expect(pickDataset([a, b], 'b')).toBe(b);
    expect(pickDataset([a, b], 'gone')).toBe(a);
    expect(pickDataset([], 'a')).toBeNull();
  });
});

describe('buildTurnRows', () => {
  it('interleaves session headers and indexes turns and sessions by row', () => {
    const sample: Sample = {
      sampleId: 's',
      speakers: ['Ann', 'Bob'],
      sessions: [session(1, 2), session(10, 1)],
      qa: [],
      aux: { eventSummary: null, observation: null, sessionSummary: null },
    };
    const { rows, rowOfTurn, rowOfSession } = buildTurnRows(sample);
    expect(rows.map((r) => r.key)).toEqual(['s1', 'D1:1', 'D1:2', 's10', 'D10:1']);
    expect(rowOfTurn.get('D10:1')).toBe(4);
    expect(rowOfSession.get(10)).toBe(3);
  });
});

describe('turn and session display', () => {
  it('shows the caption apart from the raw text', () => {
    const t = turn(1, 2, {
      text: '[Image: a dog] Look!',
      rawText: 'Look!',
      blipCaption: 'a dog',
    });
    expect(splitTurnText(t)).toEqual({ caption: '[Image: a dog]', body: 'Look!' });
    expect(splitTurnText(turn(1, 1))).toEqual({ caption: null, body: 'text 1' });
  });

  it('formats the zone-less time without shifting it, else shows the raw text', () => {
    // 00:05 must stay 00:05 whatever the machine's timezone: the source has none.
    expect(formatSessionDate(session(1, 0, '2024-02-29T00:05:00'))).toBe('29 Feb 2024, 00:05');
    expect(formatSessionDate(session(2, 0))).toBe('sometime last week');
    expect(formatSessionDate({ ...session(3, 0), dateTimeText: null })).toBe('no date');
  });
});

describe('questions', () => {
  const list = [
    qa(0, 4, { question: 'Where did Ann move?', answer: 'Paris' }),
    qa(1, 5, { answer: null, adversarialAnswer: 'Tom', question: "Bob's cat?" }),
    qa(2, 2, { evidenceRaw: ['D2:2; D1:3'] }),
  ];

  it('filters by category and by text in question, answers and raw evidence', () => {
    expect(filterQuestions(list, [4, 5], '').map((q) => q.index)).toEqual([0, 1]);
    expect(filterQuestions(list, [1, 2, 3, 4, 5], '  paris ').map((q) => q.index)).toEqual([0]);
    expect(filterQuestions(list, [1, 2, 3, 4, 5], 'tom').map((q) => q.index)).toEqual([1]);
    expect(filterQuestions(list, [1, 2, 3, 4, 5], 'd1:3').map((q) => q.index)).toEqual([2]);
    expect(filterQuestions(list, [], '')).toEqual([]);
  });

  it('labels category 5 without a gold answer by its adversarial answer', () => {
    expect(answerLabel(list[0]!)).toBe('Paris');
    expect(answerLabel(list[1]!)).toBe('adversarial: Tom');
  });

  it('toggles categories and keeps them in numeric order', () => {
    expect(toggleCategory([1, 2, 3, 4, 5], 3)).toEqual([1, 2, 4, 5]);
    expect(toggleCategory([4, 1], 2)).toEqual([1, 2, 4]);
  });
});
