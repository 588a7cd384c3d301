import { BEAM_REPORT_FORMAT } from './beamReport';
import type { BenchmarkCategory, BenchmarkProfile } from './types';

/**
 * BEAM (Tavakoli et al., ICLR 2026; mohammadtavakoli78/BEAM at b2a3ee8): conversations of 100K to
 * 10M tokens, each with probing questions under ten memory abilities, every question scored against
 * its rubric. The abilities are the keys of a chat's `probing_questions.json`; their alphabetical
 * order numbers them 1-10, and this list is the one owner of that mapping (the loader, the scorer
 * and the report read it from here).
 */
export const BEAM_ABILITIES = [
  'abstention',
  'contradiction_resolution',
  'event_ordering',
  'information_extraction',
  'instruction_following',
  'knowledge_update',
  'multi_session_reasoning',
  'preference_following',
  'summarization',
  'temporal_reasoning',
] as const;
export type BeamAbility = (typeof BEAM_ABILITIES)[number];

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
  reportFormats: [BEAM_REPORT_FORMAT],
};
