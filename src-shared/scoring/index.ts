/**
 * Pure scoring formulas shared by every process: official LoCoMo F1, Mem0-style set F1 and
 * BLEU-1, evidence recall@k and the aggregation/statistics helpers. No I/O, no globals, no
 * randomness except the seeded PRNG.
 */
export { porterStem, createCachedStemmer } from './porter';
export {
  type LocomoCategory,
  normalizeAnswer,
  officialTokens,
  multisetF1,
  f1Score,
  multiHopF1,
  adversarialCorrect,
  officialF1,
  officialScore,
  type OfficialRule,
} from './official';
export {
  simpleTokenize,
  setF1,
  modifiedPrecision,
  closestRefLength,
  brevityPenalty,
  sentenceBleu,
  type SentenceBleuOptions,
  defaultBleuWeights,
  defaultBleuEpsilon,
  bleu1,
  bleu1Simple,
  mem0WordTokenize,
  setMem0SentenceSplitter,
} from './mem0';
export { evidenceRecallAtK, meanEvidenceRecall } from './retrieval';
export {
  type ScoredQuestion,
  type MeanSummary,
  type OverallMeans,
  type Rng,
  type BootstrapOptions,
  type BootstrapResult,
  mean,
  stdDev,
  overallMeans,
  mulberry32,
  randomInt,
  quantileSorted,
  pairedBootstrapCI,
  bootstrapMeanCI,
  defaultBootstrapResamples,
} from './stats';
