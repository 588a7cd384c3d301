import { WINK_EMBEDDER, type EmbedderChoice } from '../../../../src-shared/embedders';
import type { CollectionLogger } from '../../collection';
import { OpenAIEmbedder, WinkSifEmbedder, type Embedder } from '../../embed';
import { CachedEmbedder, EmbeddingCache } from '../../embed/cache';
import type { CallMeter } from '../../answer/llm-client';
import type { ApiKeys } from '../../keys';

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

export const WINK_EMBEDDER_NAME = WINK_EMBEDDER;

export interface EmbedderContext {
  /** Where the persistent embedding cache lives (`<dataDir>/cache`); absent: no cache. */
  cacheDir?: string | undefined;
  /** Receives cache problems (the run records them). Default: console. */
  logger?: CollectionLogger | undefined;
  /** API keys by variable name; an endpoint's `apiKeyEnv` must be among them (see core/keys.ts). */
  apiKeys?: ApiKeys | undefined;
  /** Files the endpoint's requests in a run's call ledger, by model; absent: not metered. */
  meter?: ((model: string) => CallMeter) | undefined;
  /** False for a config from the network: errors never quote the endpoint's replies. */
  quoteReplies?: boolean | undefined;
}

/** One connection per cache file per process (per worker thread), kept for the process's life. */
const caches = new Map<string, EmbeddingCache>();

function cacheIn(dir: string): EmbeddingCache {
  let cache = caches.get(dir);
  if (!cache) {
    cache = EmbeddingCache.open(dir);
    caches.set(dir, cache);
  }
  return cache;
}

/**
 * The embedder a vector index names, with its dimension known. An OpenAI-compatible one is new
 * per call (its counters are the caller's: one memory service, one sample) and goes through the
 * persistent cache when there is one; learning its dimension costs one short text, cached too.
 */
export async function openEmbedder(
  choice: EmbedderChoice,
  ctx: EmbedderContext = {},
): Promise<Embedder> {
  if (choice === WINK_EMBEDDER) return sharedWinkEmbedder();
  const { kind: _kind, ...endpoint } = choice;
  const meter = ctx.meter?.(choice.model);
  const remote = new OpenAIEmbedder(endpoint, ctx.apiKeys, meter, ctx.quoteReplies !== false);
  if (ctx.cacheDir === undefined) {
    await remote.resolveDim();
    return remote;
  }
  const warn = ctx.logger ? (m: string) => ctx.logger?.warn(m) : undefined;
  const cached = new CachedEmbedder(
    remote,
    cacheIn(ctx.cacheDir),
    {
      endpoint: choice.baseUrl.replace(/\/+$/, ''),
      model: choice.model,
      dimensions: choice.dimensions ?? 0,
    },
    warn,
    meter,
  );
  await cached.embed([DIMENSION_PROBE]);
  return cached;
}

/** The text embedded once to learn a model's dimension. */
const DIMENSION_PROBE = 'dimension probe';

/**
 * Counters of the embedders a service used, for its `stats()` (the runner sums them over samples
 * into the manifest): embedding requests sent, and cache hits and misses.
 */
export function embedderCounters(embedders: Iterable<Embedder>): Record<string, number> {
  const out: Record<string, number> = {};
  const add = (key: string, n: number): void => {
    out[key] = (out[key] ?? 0) + n;
  };
  for (const e of new Set(embedders)) {
    const remote = e instanceof CachedEmbedder ? e.inner : e;
    if (e instanceof CachedEmbedder) {
      add('embed.cacheHits', e.stats.hits);
      add('embed.cacheMisses', e.stats.misses);
    }
    if (remote instanceof OpenAIEmbedder) add('embed.requests', remote.stats.requests);
  }
  return out;
}

/**
 * A memory service's embedder, with the cache, log, keys and call ledger of the service's own
 * context (MemoryServiceContext's fields of the same meaning).
 */
export function openServiceEmbedder(
  choice: EmbedderChoice,
  ctx: Omit<EmbedderContext, 'meter'> & { embedderMeter?: EmbedderContext['meter'] },
): Promise<Embedder> {
  return openEmbedder(choice, {
    cacheDir: ctx.cacheDir,
    logger: ctx.logger,
    apiKeys: ctx.apiKeys,
    meter: ctx.embedderMeter,
    quoteReplies: ctx.quoteReplies,
  });
}
