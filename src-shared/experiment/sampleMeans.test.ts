import { describe, expect, it } from 'vitest';
import { BEAM_PROFILE } from '../benchmarks';
import { BEAM_REPORT_FORMAT } from '../benchmarks/beamReport';
import { paperTable } from '../paperTables';
import { summarizeAnswers } from './summaries';

/** A judged BEAM answer of `category` in chat `sampleId`, judge score `mean`. */
function judged(sampleId: string, category: number, mean: number) {
  return {
    sampleId,
    category,
    error: null,
    scores: { judge: mean, evidenceRecall: null, rubricCoverageLexical: 0 },
    judge: { labels: [mean] },
  };
}

describe('BEAM per-ability means as report_results.py computes them', () => {
  // Chat 1 has three abstention questions, chat 2 one: pooling gives 0.25, per-chat means 0.5.
  const answers = [
    judged('100K-1', 1, 0),
    judged('100K-1', 1, 0),
    judged('100K-1', 1, 0),
    judged('100K-2', 1, 1),
  ];

  it('bySampleMean is the mean over chats of each chat mean; byCategory still pools', () => {
    const summary = summarizeAnswers(answers, BEAM_PROFILE);
    expect(summary.bySampleMean?.[1]?.judge.mean).toBe(0.5);
    expect(summary.bySampleMean?.[1]?.judge.n).toBe(4);
    expect(summary.byCategory[1]?.judge.mean).toBe(0.25);
  });

  it('report --format beam prints the per-chat mean', () => {
    const table = paperTable(summarizeAnswers(answers, BEAM_PROFILE), {
      format: BEAM_REPORT_FORMAT.id,
      as: 'md',
      label: 'run',
      profile: BEAM_PROFILE,
    });
    const row = table.split('\n')[2] ?? '';
    expect(row.split('|')[2]?.trim()).toBe('50.0');
  });
});
