import { WinkSifEmbedder } from '../../embed';

/**
 * One SIF embedder per process (per worker thread: module state is per isolate). The word vectors
 * are shared by `loadWinkVectors` anyway; sharing the embedder as well keeps its weight tables
 * (one Float32 per vocabulary word, ~1.4 MB) from being rebuilt per sample.
 *
 * The turn presets never call `fitCorpus` on it: a fit changes every later vector, and the
 * embedder is shared by every collection of the process.
 */
let shared: Promise<WinkSifEmbedder> | undefined;

export function sharedWinkEmbedder(): Promise<WinkSifEmbedder> {
  shared ??= WinkSifEmbedder.create().catch((error: unknown) => {
    // A failed load (missing package, unwritable cache) must not poison later attempts.
    shared = undefined;
    throw error;
  });
  return shared;
}

export const WINK_EMBEDDER_NAME = 'wink-sif-100d';
