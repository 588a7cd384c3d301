import { describe, expect, it } from 'vitest';
import { BEAM_PROFILE, categoryLabel } from '@shared/benchmarks';
import { compareRuns } from '@shared/compare';
import type { AnswerRecord } from '@shared/experiment';
import { categoryTableRows, compareChartRows } from './shape';

/**
 * The Compare view (and the Runs view's score tables, which label by the same `categoryLabel`)
 * name a BEAM run's categories by the profile's ability names, not LoCoMo's.
 */
function answer(sampleId: string, questionIndex: number, category: number): AnswerRecord {
  return {
    sampleId,
    testIndex: 0,
    questionIndex,
    category,
    question: `q ${questionIndex}`,
    gold: 'ideal response',
    prediction: 'answer',
    retrieved: [],
    scores: { judge: 0.5, evidenceRecall: null, rubricCoverageLexical: 0 },
    judge: null,
    usage: null,
    retrieveMs: 0,
    answerMs: 0,
    error: null,
  };
}

describe('a BEAM run in the Compare view', () => {
  const answers = [answer('100K-1', 0, 1), answer('100K-1', 1, 3), answer('100K-2', 0, 10)];
  const comparison = compareRuns(
    [
      { runId: 'ra', label: 'a · ra', answers },
      { runId: 'rb', label: 'b · rb', answers },
    ],
    { seed: 0, resamples: 50, metric: 'judge' },
  );

  it('labels table rows and chart groups with the ability names', () => {
    expect(categoryTableRows(comparison, 'official', BEAM_PROFILE).map((r) => r.label)).toEqual([
      'All',
      '1 abstention',
      '3 event_ordering',
      '10 temporal_reasoning',
    ]);
    expect(compareChartRows(comparison, 'official', BEAM_PROFILE).map((r) => r.label)).toEqual([
      'abstention',
      'event_ordering',
      'temporal_reasoning',
    ]);
  });

  it('names every BEAM category by its ability in the Runs tables', () => {
    for (const c of BEAM_PROFILE.categories) {
      expect(categoryLabel(BEAM_PROFILE, c.id, 'official')).toBe(c.names['official']);
      expect(categoryLabel(BEAM_PROFILE, c.id, 'official')).not.toMatch(/^category /);
    }
  });
});
