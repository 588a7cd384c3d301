import { describe, expect, it } from 'vitest';
import type { RunSummary, ScorePair } from '../experiment';
import { paperTable } from '../paperTables';
import { BEAM_REPORT_COLUMNS, BEAM_REPORT_FORMAT } from './beamReport';
import { validateBenchmarkProfile } from './index';
import type { BenchmarkProfile } from './types';

/** A profile with BEAM's ten abilities as categories 1..10 (the BEAM profile's own numbering). */
const profile: BenchmarkProfile = {
  id: 'beam-report-test',
  label: 'BEAM (test)',
  schemes: [{ id: 'official', label: 'BEAM paper' }],
  categories: BEAM_REPORT_COLUMNS.map((name, i) => ({
    id: i + 1,
    names: { official: name },
    adversarial: false,
  })),
  defaultJudgeProtocol: 'mem0',
  overallNames: { all: { label: 'all', note: 'every question pooled' }, answerable: null },
  sampleAveraged: true,
  reportFormats: [BEAM_REPORT_FORMAT],
};

const judged = (mean: number, n: number): ScorePair => ({
  judge: { mean, n, std: null, repeats: 1 },
});

describe('BEAM report format', () => {
  it("is a valid layout of the ten abilities and prints them in report_results.py's order", () => {
    expect(() => validateBenchmarkProfile(profile)).not.toThrow();
    const byCategory: Record<number, ScorePair> = {};
    // Category i + 1 scores (i + 1) / 20, so a column out of order shows.
    BEAM_REPORT_COLUMNS.forEach((_, i) => (byCategory[i + 1] = judged((i + 1) / 20, 40)));
    const summary: RunSummary = {
      // The table reads the per-chat means (report_results.py), not the pooled byCategory.
      byCategory: {},
      bySampleMean: byCategory,
      overall: { all: judged(0.275, 400) },
      questions: 400,
      errors: 0,
    };
    const table = paperTable(summary, { format: 'beam', as: 'md', label: 'run', profile });
    const [header, , row] = table.split('\n');
    expect(header).toBe(`| method | ${BEAM_REPORT_COLUMNS.join(' | ')} |`);
    expect(row).toBe(
      '| run | 5.0 | 10.0 | 15.0 | 20.0 | 25.0 | 30.0 | 35.0 | 40.0 | 45.0 | 50.0 |',
    );
  });
});
