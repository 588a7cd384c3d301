export type { Embedder } from './types';
export {
  OpenAIEmbedder,
  createOpenAIEmbedder,
  openAIEmbedderConfigSchema,
  type EmbedCallOptions,
  type OpenAIEmbedderConfig,
  type OpenAIEmbedderStats,
} from './openai';
export {
  WinkSifEmbedder,
  winkSifOptionsSchema,
  zipfPrior,
  type FitStats,
  type WinkSifDescription,
  type WinkSifOptions,
} from './winkSif';
export {
  WordVectors,
  WINK_PACKAGE,
  cacheFileFor,
  clearWinkVectorsCache,
  defaultCacheDir,
  defaultWinkSourcePath,
  loadWinkVectors,
  type WinkLoadOptions,
} from './winkVectors';
export type { ConvertPhase, ConvertProgress } from './winkConvert';
export { tokenize } from './tokenize';
export { cosine, dot, l2norm } from './vectorMath';
