import { z } from 'zod';
import {
  DEFAULT_VECTOR_EF,
  DEFAULT_VECTOR_EF_CONSTRUCTION,
  DEFAULT_VECTOR_M,
} from '../../collection';
import { EmbedderChoiceSchema, WINK_EMBEDDER } from '../../../../src-shared/embedders';

/**
 * Configs of the turn-retrieval presets (vector, text, hybrid). Every field has a default, so
 * `{}` is a complete config; the defaults are the settings measured in docs/benchmarks.md (tuned
 * on conv-26..conv-44, checked on the held-out conv-47..conv-50).
 */

export const DEFAULT_CANDIDATES = 50;
export const DEFAULT_PREVIOUS_TURN_VECTOR = 0.5;
export const DEFAULT_PREVIOUS_TURN_SCORE = 0.5;
export const DEFAULT_NEXT_TURN_SCORE = 0.2;
export const DEFAULT_SPEAKER_BOOST = 0.4;
export const DEFAULT_TEXT_WEIGHT = 1;
export const DEFAULT_VECTOR_WEIGHT = 0.2;

/** Settings every turn preset shares: candidate pool, neighbour context, query handling. */
const shared = {
  /** Hits taken from each index before neighbour scoring and boosts re-rank them. */
  candidates: z.number().int().min(1).max(10_000).default(DEFAULT_CANDIDATES),
  /**
   * Score a turn also by its neighbours' scores: final = s(t) + previousTurnScore * s(t-1) +
   * nextTurnScore * s(t+1), within a session. An answer ("Yes, last Friday!") often shares no
   * word with the question, while the turn before it (the other speaker's question) does.
   */
  previousTurnScore: z.number().min(0).max(10).default(DEFAULT_PREVIOUS_TURN_SCORE),
  nextTurnScore: z.number().min(0).max(10).default(DEFAULT_NEXT_TURN_SCORE),
  /** Multiplies the score of turns spoken by a speaker the question names by (1 + speakerBoost). */
  speakerBoost: z.number().min(0).max(10).default(DEFAULT_SPEAKER_BOOST),
  /** Drop question boilerplate ("what kind of", "when did") from the text query. */
  dropQuestionWords: z.boolean().default(true),
  /**
   * A turn also gains sessionScore x the best candidate score of its session: evidence clusters
   * in the session a question is about, even in turns that share no word with it.
   */
  sessionScore: z.number().min(0).max(10).default(0),
  /** For a "when" question, turns that mention a time ("last Friday", "2022") get x(1 + this). */
  timeBoost: z.number().min(0).max(10).default(0),
};

/** hnsw over sentence vectors of the turns (SIF over wink word vectors unless configured). */
const vectorFields = {
  /** `wink-sif-100d` (offline) or an OpenAI-compatible endpoint `{kind: 'openai', baseUrl, model}`. */
  embedder: EmbedderChoiceSchema.default(WINK_EMBEDDER),
  /**
   * A turn's document vector is normalise(v(turn) + previousTurnVector * v(previous turn)): the
   * turn embedded together with the turn it answers.
   */
  previousTurnVector: z.number().min(0).max(10).default(DEFAULT_PREVIOUS_TURN_VECTOR),
  M: z.number().int().min(2).max(128).default(DEFAULT_VECTOR_M),
  efConstruction: z.number().int().min(1).max(4096).default(DEFAULT_VECTOR_EF_CONSTRUCTION),
  ef: z.number().int().min(1).max(4096).default(DEFAULT_VECTOR_EF),
};

/** flexsearch candidates ranked by BM25 (Porter-stemmed, stop words dropped). */
const textFields = {
  k1: z.number().min(0).max(10).default(1.2),
  b: z.number().min(0).max(1).default(0.75),
  stem: z.boolean().default(true),
  /**
   * How many turns before a turn (in its session) its BM25 document holds besides the turn: the
   * question an answer replies to shares the words the answer lacks. The stored turn, which the
   * answerer reads, stays the turn alone.
   */
  textWindow: z.number().int().min(0).max(5).default(0),
  /** The session's month and year ("May 2023") in each turn's BM25 document. */
  dateWords: z.boolean().default(false),
};

export const vectorPresetConfigSchema = z.strictObject({ ...shared, ...vectorFields });
export const textPresetConfigSchema = z.strictObject({ ...shared, ...textFields });
export const hybridPresetConfigSchema = z.strictObject({
  ...shared,
  ...vectorFields,
  ...textFields,
  /** `weighted`: min-max normalised scores times the weights (default); `rrf`: reciprocal ranks. */
  fusion: z.enum(['weighted', 'rrf']).default('weighted'),
  textWeight: z.number().min(0).max(100).default(DEFAULT_TEXT_WEIGHT),
  vectorWeight: z.number().min(0).max(100).default(DEFAULT_VECTOR_WEIGHT),
  rrfK: z.number().min(0).max(1_000_000).default(60),
});

/**
 * `hybrid-context`: hybrid with the context measured in docs/benchmarks.md ("Issue 28: the
 * default preset's recall"): the previous turn and the session's month in each BM25 document, a
 * share of the session's best score, stronger neighbour scores, and for "when" questions a boost
 * of the turns that mention a time. Only the defaults differ.
 */
export const hybridContextPresetConfigSchema = hybridPresetConfigSchema.extend({
  textWindow: hybridPresetConfigSchema.shape.textWindow.removeDefault().default(1),
  dateWords: hybridPresetConfigSchema.shape.dateWords.removeDefault().default(true),
  sessionScore: hybridPresetConfigSchema.shape.sessionScore.removeDefault().default(0.8),
  timeBoost: hybridPresetConfigSchema.shape.timeBoost.removeDefault().default(1),
  previousTurnScore: hybridPresetConfigSchema.shape.previousTurnScore.removeDefault().default(0.2),
  nextTurnScore: hybridPresetConfigSchema.shape.nextTurnScore.removeDefault().default(0.5),
});

export type VectorPresetConfig = z.output<typeof vectorPresetConfigSchema>;
export type TextPresetConfig = z.output<typeof textPresetConfigSchema>;
export type HybridPresetConfig = z.output<typeof hybridPresetConfigSchema>;
export type TurnPresetConfig = VectorPresetConfig | TextPresetConfig | HybridPresetConfig;
