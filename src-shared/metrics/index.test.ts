import { describe, expect, it } from 'vitest';
import { LOCOMO_PROFILE, LONGMEMEVAL_PROFILE, benchmarkProfiles } from '../benchmarks';
import { METRICS, isMetricId, meanAxisTitle, metricList, metricOf, scoreAnswer } from './index';

/**
 * The metrics registry's contract: every entry, built-in or added later, is complete enough for
 * everything that iterates the registry (scoring, storage, summaries, tables, exports, pickers).
 * Tests about one metric assert that metric; this one walks them all, so a new metric needs no
 * edit here.
 */
describe('metrics registry', () => {
  const metrics = metricList();

  it('holds each metric once, by an id and an export column of its own', () => {
    expect(metrics.length).toBeGreaterThan(0);
    const ids = metrics.map((m) => m.id);
    const columns = metrics.map((m) => m.exportKey ?? m.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(columns).size).toBe(columns.length);
    for (const m of metrics) {
      expect(m.id).toMatch(/^[a-z][A-Za-z0-9]*$/);
      expect(METRICS.get(m.id)).toBe(m);
      expect(metricOf(m.id)).toBe(m);
      expect(isMetricId(m.id)).toBe(true);
    }
  });

  it('gives every metric its names, formula, range, direction and source', () => {
    for (const m of metrics) {
      for (const text of [m.label, m.title, m.short, m.formula]) {
        expect(text.trim(), m.id).not.toBe('');
      }
      expect(m.range[0], m.id).toBeLessThan(m.range[1]);
      expect(['higher', 'lower'], m.id).toContain(m.better);
      expect(['answer', 'retrieval', 'judge'], m.id).toContain(m.source);
      expect(['all', 'answerable', 'declared'], m.id).toContain(m.categories);
      // A metric is either computed per answer here or filled in later with a mean of its own.
      if (m.source === 'judge') expect(m.aggregate, m.id).toBeTypeOf('function');
      else expect(m.score, m.id).toBeTypeOf('function');
    }
  });

  it("scores a benchmark's own metric only where a profile names it", () => {
    const named = new Set(
      benchmarkProfiles().flatMap((p) =>
        p.categories.flatMap((c) => [...(c.metrics ?? []), ...(c.ownMetrics ?? [])]),
      ),
    );
    for (const m of metrics.filter((m) => m.categories === 'declared')) {
      expect(named.has(m.id), m.id).toBe(true);
    }
    for (const id of named) expect(isMetricId(id), id).toBe(true);
  });

  it('keeps every score of an answer within its metric range, or null', () => {
    for (const profile of [LOCOMO_PROFILE, LONGMEMEVAL_PROFILE]) {
      for (const category of profile.categories) {
        const scores = scoreAnswer({
          prediction: 'Caroline went on 7 May 2023',
          gold: '7 May 2023',
          category,
          evidence: ['D1:3'],
          evidenceRaw: ['D1:3'],
          retrieved: ['D1:3', 'D1:4'],
          topK: 2,
          retrievalCorpus: ['D1:3', 'D1:4', 'D2:1'],
          errored: false,
        });
        for (const [id, value] of Object.entries(scores)) {
          if (value === null) continue;
          const { range } = metricOf(id);
          expect(value, `${profile.id} ${category.id} ${id}`).toBeGreaterThanOrEqual(range[0]);
          expect(value, `${profile.id} ${category.id} ${id}`).toBeLessThanOrEqual(range[1]);
        }
      }
    }
  });
});

describe('meanAxisTitle', () => {
  it("words every metric's mean axis from its registry label, in one case", () => {
    expect(meanAxisTitle('officialF1')).toBe('Mean official F1');
    expect(meanAxisTitle('evidenceRecall')).toBe('Mean evidence recall');
    expect(meanAxisTitle('judge')).toBe('Mean J');
  });
});
