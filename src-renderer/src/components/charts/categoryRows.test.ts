import { describe, expect, it } from 'vitest';
import { LOCOMO_PROFILE } from '@shared/benchmarks';
import { summarizeAnswers, type AnswerRecord } from '@shared/experiment';
import type { BenchmarkProfile } from '@shared/benchmarks';
import { categoryChartRows, categoryTickLabel, formatScore, valueLabelLift } from './categoryRows';

function answer(category: AnswerRecord['category'], f1: number, recall: number | null) {
  return { category, scores: { officialF1: f1, evidenceRecall: recall }, error: null };
}

// Two multi-hop (category 1) answers, one temporal, one single-hop without evidence.
const summary = summarizeAnswers(
  [answer(1, 1, 1), answer(1, 0, 0.5), answer(2, 0.5, 1), answer(4, 0.25, null)],
  LOCOMO_PROFILE,
);
const other = summarizeAnswers([answer(1, 0.5, 0), answer(3, 1, 1)], LOCOMO_PROFILE);

describe('categoryChartRows', () => {
  it("takes the categories and their names from the run's benchmark profile", () => {
    const benchmark: BenchmarkProfile = {
      id: 'toy',
      label: 'Toy',
      schemes: [{ id: 'official', label: 'toy names' }],
      categories: [
        { id: 10, names: { official: 'lookup' }, adversarial: false },
        { id: 30, names: { official: 'trap' }, adversarial: true },
      ],
      defaultJudgeProtocol: 'mem0',
      overallNames: {
        all: { label: 'all', note: 'every question' },
        answerable: { label: 'answerable', note: 'traps left out' },
      },
      reportFormats: [
        {
          id: 'toy',
          label: 'Toy table',
          help: 'toy',
          layout: {
            scheme: 'official',
            groups: [null],
            metrics: [{ id: 'officialF1', sub: null }],
            decimals: 1,
            caption: 'toy',
          },
        },
      ],
    };
    const toy = summarizeAnswers([answer(10, 1, 1), answer(30, 0, null)], benchmark);
    const rows = categoryChartRows([{ key: 'run', summary: toy }], {
      metric: 'officialF1',
      scheme: 'official',
      benchmark,
    });
    expect(rows.map((r) => [r.category, r.label, r.n, r.values.run])).toEqual([
      [10, 'lookup', 1, 1],
      [30, 'trap', 1, 0],
    ]);
  });

  it('gives each category its mean and n, named by the official scheme', () => {
    const rows = categoryChartRows([{ key: 'run', summary }], {
      metric: 'officialF1',
      scheme: 'official',
      benchmark: LOCOMO_PROFILE,
    });
    expect(rows.map((r) => [r.category, r.label, r.n, r.values.run])).toEqual([
      [1, 'multi-hop', 2, 0.5],
      [2, 'temporal', 1, 0.5],
      [3, 'open-domain', 0, null],
      [4, 'single-hop', 1, 0.25],
      [5, 'adversarial', 0, null],
    ]);
  });

  it('names the same numbers by the Mem0 scheme without moving them', () => {
    const rows = categoryChartRows([{ key: 'run', summary }], {
      metric: 'officialF1',
      scheme: 'mem0',
      benchmark: LOCOMO_PROFILE,
    });
    // Category 1 stays category 1 with the same score; only its name changes.
    expect(rows[0]).toMatchObject({ category: 1, label: 'single-hop', n: 2, values: { run: 0.5 } });
    expect(rows[4]).toMatchObject({ category: 5, label: 'excluded' });
  });

  it('uses the recall n, which leaves out questions without evidence', () => {
    const rows = categoryChartRows([{ key: 'run', summary }], {
      metric: 'evidenceRecall',
      scheme: 'official',
      benchmark: LOCOMO_PROFILE,
    });
    expect(rows[0]).toMatchObject({ n: 2, values: { run: 0.75 } });
    // The single-hop answer had no evidence: no recall, n=0.
    expect(rows[3]).toMatchObject({ n: 0, values: { run: null } });
  });

  it('keeps one value and n per series, and can drop categories nobody has', () => {
    const rows = categoryChartRows(
      [
        { key: 'a', summary },
        { key: 'b', summary: other },
      ],
      { metric: 'officialF1', scheme: 'official', benchmark: LOCOMO_PROFILE, dropEmpty: true },
    );
    expect(rows.map((r) => r.category)).toEqual([1, 2, 3, 4]);
    expect(rows[0]).toMatchObject({ values: { a: 0.5, b: 0.5 }, ns: { a: 2, b: 1 } });
    expect(rows[2]).toMatchObject({ n: 0, values: { a: null, b: 1 }, ns: { a: 0, b: 1 } });
  });
});

describe('labels', () => {
  it('shows the category number, name and n', () => {
    expect(categoryTickLabel({ category: 1, label: 'multi-hop', n: 282 })).toBe(
      '1 multi-hop (n=282)',
    );
  });
  it('formats scores to three places and missing ones as a dash', () => {
    expect(formatScore(0.4)).toBe('0.400');
    expect(formatScore(null)).toBe('–');
  });
});

describe('valueLabelLift', () => {
  it('lifts a label past the whisker cap, on the bar’s own scale', () => {
    // A bar 0.10 high drawn 40 px tall, interval up to 0.15: the cap is 20 px above the bar.
    expect(valueLabelLift(0.1, [0.05, 0.15], 40)).toBeCloseTo(20);
    expect(valueLabelLift(0.5, undefined, 200)).toBe(0);
    expect(valueLabelLift(0.5, [0.4, 0.5], 200)).toBe(0);
  });

  it('drops the label of a zero bar with a whisker above it: no scale to place it by', () => {
    expect(valueLabelLift(0, [0, 0.08], 0)).toBeNull();
    expect(valueLabelLift(0, [0, 0], 0)).toBe(0);
  });
});
