/**
 * BEAM (Tavakoli et al., ICLR 2026; mohammadtavakoli78/BEAM at b2a3ee8): conversations of 100K to
 * 10M tokens, each with probing questions under ten memory abilities, every question scored against
 * its rubric. The abilities are the keys of a chat's `probing_questions.json`; their alphabetical
 * order numbers them 1-10, and this list is the one owner of that mapping (the loader, the scorer
 * and the report read it from here; beam.ts re-exports it).
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
