import { describe, expect, it } from 'vitest';
import type { QA } from '@shared/dataset';
import {
  CollectionDesignSchema,
  DESIGN_INDEX_TYPES,
  designIndexSchema,
  designIssues,
  type CollectionDesign,
  type PlaygroundResult,
} from '@shared/designs';
import {
  afterQueryEdit,
  checkedPlaygroundResult,
  INDEX_FIELDS,
  INDEX_TYPE_HINTS,
  RETRIEVAL_FIELDS,
  WEIGHT_BOUNDS,
  collectionsParamsToRecord,
  contributionText,
  designSummary,
  formatScore,
  hitBody,
  issuesByField,
  parseCollectionsParams,
  progressPercent,
  questionOptions,
  reduceDesign,
  sameDesign,
} from './shape';

const hybrid = (): CollectionDesign =>
  CollectionDesignSchema.parse({
    name: 'hybrid design',
    basePreset: 'hybrid',
    indexes: [
      { name: 'text', type: 'text' },
      { name: 'vector', type: 'vector' },
    ],
    fusion: { method: 'weighted', weights: { text: 1, vector: 0.2 } },
  });

describe('collections shape', () => {
  it('round-trips URL params', () => {
    const params = parseCollectionsParams(
      new URLSearchParams('design=a%20b&sample=mini-1&dataset='),
    );
    expect(params).toEqual({ design: 'a b', dataset: null, sample: 'mini-1' });
    expect(collectionsParamsToRecord(params)).toEqual({ design: 'a b', sample: 'mini-1' });
  });

  it('adds and removes indexes; a removed index takes its weight along', () => {
    let d = reduceDesign(hybrid(), { type: 'add-index', indexType: 'fifo' });
    expect(d.indexes.map((i) => i.name)).toEqual(['text', 'vector', 'fifo']);
    d = reduceDesign(d, { type: 'add-index', indexType: 'fifo' });
    expect(d.indexes[3]?.name).toBe('fifo-2');
    d = reduceDesign(d, { type: 'remove-index', index: 1 });
    expect(d.indexes.map((i) => i.name)).toEqual(['text', 'fifo', 'fifo-2']);
    expect(d.fusion.weights).toEqual({ text: 1 });
    expect(designIssues(d)).toEqual([]);
  });

  it('renaming an index carries its weight and graph references; removing one leaves them to validation', () => {
    let d = reduceDesign(hybrid(), { type: 'add-index', indexType: 'graph' });
    expect(d.indexes[2]).toMatchObject({ startFrom: 'text', neighboursFrom: 'vector' });
    d = reduceDesign(d, { type: 'rename-index', index: 0, name: 'bm25' });
    expect(d.fusion.weights).toEqual({ bm25: 1, vector: 0.2 });
    expect(d.indexes[2]).toMatchObject({ startFrom: 'bm25' });
    d = reduceDesign(d, { type: 'remove-index', index: 1 });
    expect(designIssues(d).map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([
      'indexes.1.neighboursFrom: names no index ("vector")',
    ]);
  });

  it('keeps invalid values so validation can name them by field', () => {
    let d = reduceDesign(hybrid(), { type: 'add-index', indexType: 'fifo' });
    d = reduceDesign(d, { type: 'set-index-field', index: 2, key: 'capacity', value: 0 });
    d = reduceDesign(d, { type: 'set-retrieval', key: 'candidates', value: Number.NaN });
    d = reduceDesign(d, { type: 'set-weight', name: 'fifo', value: 0.5 });
    const byField = issuesByField(designIssues(d));
    expect(byField.get('indexes[2].capacity')).toEqual(['must be >= 1']);
    expect(byField.get('retrieval.candidates')).toEqual(['must be a number']);
    expect(d.fusion.weights['fifo']).toBe(0.5);
  });

  it('reads input bounds from the shared schema', () => {
    const capacity = INDEX_FIELDS.fifo[0];
    expect(capacity).toMatchObject({
      kind: 'number',
      bounds: { min: 1, max: 1_000_000, integer: true },
      step: 1,
    });
    expect(INDEX_FIELDS.text.find((f) => f.key === 'b')).toMatchObject({
      bounds: { min: 0, max: 1, integer: false },
      step: 0.05,
    });
    expect(INDEX_FIELDS.vector.find((f) => f.key === 'space')).toMatchObject({
      options: ['cosine', 'ip', 'l2'],
    });
    expect(RETRIEVAL_FIELDS.map((f) => f.key)).toEqual([
      'candidates',
      'previousTurnScore',
      'nextTurnScore',
      'speakerBoost',
      'dropQuestionWords',
    ]);
    expect(WEIGHT_BOUNDS).toEqual({ min: 0, max: 100, integer: false });
    // The editor has fields and a hint for every type a design can hold (the faces' own).
    expect(Object.keys(INDEX_FIELDS)).toEqual([...DESIGN_INDEX_TYPES]);
    expect(Object.keys(INDEX_TYPE_HINTS)).toEqual([...DESIGN_INDEX_TYPES]);
    // Every field of every type is a real schema key with a default.
    for (const [type, fields] of Object.entries(INDEX_FIELDS)) {
      const index = designIndexSchema.parse({ name: 'a', type }) as Record<string, unknown>;
      for (const f of fields) expect(index, `${type}.${f.key}`).toHaveProperty(f.key);
    }
  });

  it('summarises and compares designs', () => {
    expect(designSummary(hybrid())).toBe('text + vector · weighted');
    const renamed = reduceDesign(hybrid(), { type: 'rename-index', index: 0, name: 'bm25' });
    expect(designSummary(renamed)).toBe('bm25 (text) + vector · weighted');
    const reordered = {
      ...hybrid(),
      fusion: { rrfK: 60, weights: { vector: 0.2, text: 1 }, method: 'weighted' as const },
    };
    expect(sameDesign(hybrid(), reordered)).toBe(true);
    expect(sameDesign(hybrid(), renamed)).toBe(false);
    expect(sameDesign(null, null)).toBe(true);
  });

  it("takes the engine's recall only when it is consistent", () => {
    const recall = { found: 1, total: 2, recall: 0.5 };
    const result = {
      playgroundId: 'pg-1',
      query: 'q',
      topK: 3,
      perIndex: [{ index: 'text', type: 'text', hits: [], recall }],
      fused: [],
      questionIndex: 1,
      fusedRecall: recall,
      namedSpeakers: [],
      ms: 1,
    } as PlaygroundResult;
    expect(checkedPlaygroundResult(result)).toBe(result);
    const unscored = { ...result, questionIndex: null, fusedRecall: null, perIndex: [] };
    expect(checkedPlaygroundResult(unscored)).toBe(unscored);
    for (const bad of [
      { ...result, fusedRecall: { found: 3, total: 2, recall: 1.5 } },
      { ...result, fusedRecall: { found: 1, total: 2, recall: 0.9 } },
      { ...result, questionIndex: null },
      {
        ...result,
        perIndex: [{ ...result.perIndex[0]!, recall: { found: 1, total: 0, recall: 1 } }],
      },
    ])
      expect(() => checkedPlaygroundResult(bad as PlaygroundResult)).toThrow(/playground result/);
  });

  it('computes build progress', () => {
    expect(progressPercent({ inserted: 64, total: 419, done: false })).toBe(15);
    expect(progressPercent({ inserted: 419, total: 419, done: true })).toBe(100);
    expect(progressPercent({ inserted: 0, total: 0, done: true })).toBe(100);
  });

  it('offers only questions with evidence and formats scores and contributions', () => {
    const qa = [
      { index: 0, question: 'Where?', evidence: ['D1:1'] },
      { index: 1, question: 'Cat?', evidence: [] },
    ] as unknown as QA[];
    expect(questionOptions(qa)).toEqual([{ value: '0', label: '#1 Where?' }]);
    expect(hitBody({ speaker: 'Ann', text: 'Ann: I moved.' })).toBe('I moved.');
    expect(hitBody({ speaker: null, text: 'Ann: I moved.' })).toBe('Ann: I moved.');
    expect(formatScore(2.51734)).toBe('2.52');
    expect(formatScore(0.0163934)).toBe('0.0164');
    expect(formatScore(-7)).toBe('-7');
    expect(formatScore(0)).toBe('0');
    expect(
      contributionText([
        { index: 'text', rank: 1, score: 2, normalized: 1, contribution: 1 },
        { index: 'vector', rank: 4, score: 0.8, normalized: 0.5, contribution: 0.1 },
      ]),
    ).toBe('text #1 · vector #4');
  });
});

describe('playground query and the question it is scored against', () => {
  const qa = [
    { index: 0, question: 'Where did Ann move?' },
    { index: 1, question: 'When did Ann buy it?' },
  ];

  it('keeps a picked question while the query is its text', () => {
    const picked = { fill: '0', scoreAgainst: '0' };
    expect(afterQueryEdit(picked, 'Where did Ann move?', qa)).toBe(picked);
  });

  it("scores a query typed over a picked question against none, not that question's evidence", () => {
    expect(afterQueryEdit({ fill: '0', scoreAgainst: '0' }, 'Where did Bob go?', qa)).toEqual({
      fill: '',
      scoreAgainst: '',
    });
    // Even a query that is another question's text: the user typed it, no one picked it.
    expect(afterQueryEdit({ fill: '0', scoreAgainst: '0' }, 'When did Ann buy it?', qa)).toEqual({
      fill: '',
      scoreAgainst: '',
    });
  });

  it('keeps a question the user picked only to score a typed query against', () => {
    const chosen = { fill: '', scoreAgainst: '1' };
    expect(afterQueryEdit(chosen, 'purchase date', qa)).toBe(chosen);
    const none = { fill: '', scoreAgainst: '' };
    expect(afterQueryEdit(none, 'anything', qa)).toBe(none);
  });
});
