import { BEAM_ABILITIES } from './beamAbilities';
import type { ReportFormat } from './types';

/**
 * BEAM's table, `report --format beam`, for the BEAM profile's `reportFormats` (beam.ts lists it):
 * one row, the ten abilities in `report_results.py`'s `column_names` order (mohammadtavakoli78/BEAM
 * b2a3ee8), which is also their alphabetical order, category names in the profile's `official`
 * scheme. The reference's table has no overall column, so neither has this one.
 *
 * Each cell is the `judge` metric of the ability's questions as a BEAM judge pass stores it: the
 * question's rubric mean (`llm_judge_score`), `tau_norm` for event ordering; per ability the mean
 * over each chat's questions, then over chats (`RunSummary.bySampleMean`), as `report_results.py`
 * averages. `beamReportRow` (src-shared/scoring/beam.ts) computes the reference's order exactly.
 */
export const BEAM_REPORT_COLUMNS = BEAM_ABILITIES;

export const BEAM_REPORT_FORMAT: ReportFormat = {
  id: 'beam',
  label: 'BEAM table',
  help: "BEAM's report_results.py row: the ten abilities, rubric judge ×100 (tau_norm for event ordering)",
  layout: {
    scheme: 'official',
    groups: BEAM_REPORT_COLUMNS,
    sampleMeans: true,
    metrics: [{ id: 'judge', sub: null }],
    decimals: 1,
    caption:
      "BEAM rubric judge ×100 per ability (compute_metrics.py: the mean over a question's rubric items, int() per item; event ordering: tau_norm), mean over a chat's questions, then over chats (report_results.py)",
  },
};
