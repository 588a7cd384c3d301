import { BEAM_REPORT_FORMAT } from './beamReport';
import { BEAM_ABILITIES, type BeamAbility } from './beamAbilities';
import type { BenchmarkCategory, BenchmarkProfile } from './types';

export { BEAM_ABILITIES, type BeamAbility } from './beamAbilities';

/** The stored category of an ability (1-10). */
export function beamCategory(ability: BeamAbility): number {
  return BEAM_ABILITIES.indexOf(ability) + 1;
}

/** The ability a stored category names, or null for a number BEAM does not use. */
export function beamAbilityOf(category: number): BeamAbility | null {
  return BEAM_ABILITIES[category - 1] ?? null;
}

export function isBeamAbility(value: string): value is BeamAbility {
  return (BEAM_ABILITIES as readonly string[]).includes(value);
}

/**
 * The metrics that score a BEAM question: the judge, recall over the messages it cites (null for
 * a question citing none), and the offline stand-in for the rubric judge, which is named as not
 * the official score. Overlap metrics against an ideal response of several sentences mean nothing.
 */
export const BEAM_METRICS = ['judge', 'evidenceRecall', 'rubricCoverageLexical'] as const;

const categories: BenchmarkCategory[] = BEAM_ABILITIES.map((ability, i) => ({
  id: i + 1,
  // The reference's report prints the keys as they are (`report_results.py`).
  names: { official: ability },
  // Abstention is judged by its rubric like every other ability: it has a real ideal response.
  adversarial: false,
  metrics: BEAM_METRICS,
}));

export const BEAM_PROFILE: BenchmarkProfile = {
  id: 'beam',
  label: 'BEAM',
  schemes: [{ id: 'official', label: 'BEAM paper' }],
  categories,
  sampleGroup: 'size',
  // report_results.py: an ability's mean per chat, then over chats (report --format beam).
  sampleAveraged: true,
  // BEAM's rubric judge as compute_metrics.py runs it (core/answer/beam-judge.ts).
  defaultJudgeProtocol: 'beam-rubric',
  // BEAM's RAG reader (answer_generation_for_rag, core/answer/beam-reader.ts).
  defaultAnswerProtocol: 'beam',
  overallNames: {
    // BEAM's own tables average per chat (bySampleMean, report --format beam), not over questions.
    all: { label: 'all, pooled', note: "every question pooled; BEAM's tables average per chat" },
    // Every ability has a real ideal response (abstention included): no subset is left out.
    answerable: null,
  },
  reportFormats: [BEAM_REPORT_FORMAT],
};
