import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import recallGolden from '../../tests/fixtures/golden/locomo-recall.json';
import { LOCOMO_PROFILE, benchmarkCategory } from '../benchmarks';
import { metricOf, scoreAnswer } from '../metrics';
import { evidenceRecallAtK, locomoEvidenceRecall } from './retrieval';

// Golden values from scripts/golden/generate-locomo-recall.py (LoCoMo's formula on made-up cases).
const Golden = z.object({
  cases: z.array(
    z.object({
      evidence: z.array(z.string()),
      context: z.array(z.string()).nullable(),
      recall: z.number(),
    }),
  ),
  mean: z.number(),
});
const golden = Golden.parse(recallGolden);

describe('evidence recall, LoCoMo convention', () => {
  it.each(golden.cases)('$evidence in $context -> $recall', ({ evidence, context, recall }) => {
    expect(locomoEvidenceRecall(evidence, context)).toBe(recall);
  });

  it('averages over every question, as the reference does', () => {
    const values = golden.cases.map((c) => locomoEvidenceRecall(c.evidence, c.context));
    expect(values.reduce((a, b) => a + b, 0) / values.length).toBeCloseTo(golden.mean, 12);
  });

  it('differs from our recall where the conventions differ', () => {
    // Ours normalises and dedupes evidence and leaves questions without evidence out.
    expect(evidenceRecallAtK(['D1:3'], ['D1:3'])).toBe(1);
    expect(locomoEvidenceRecall(['D1:3', 'D1:3', 'D4:2'], ['D4:2'])).toBeCloseTo(1 / 3, 12);
    expect(evidenceRecallAtK([], ['D1:1'])).toBeUndefined();
    expect(locomoEvidenceRecall([], ['D1:1'])).toBe(1);
  });

  it('is a registered retrieval metric that needs the raw evidence', () => {
    const metric = metricOf('locomoRecall');
    expect(metric.source).toBe('retrieval');
    const base = {
      prediction: 'x',
      gold: 'y',
      category: benchmarkCategory(LOCOMO_PROFILE, 5),
      evidence: ['D30:5'],
      retrieved: ['D30:5'],
      errored: false,
    };
    expect(scoreAnswer(base)['locomoRecall']).toBeNull();
    const scores = scoreAnswer({ ...base, evidenceRaw: ['D30:05'] });
    expect(scores['locomoRecall']).toBe(0);
    expect(scores['evidenceRecall']).toBe(1);
  });
});
