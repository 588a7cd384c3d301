import {
  embedderChoicesIn,
  embedderRecord,
  type EmbedderRecord,
} from '../../../src-shared/embedders';
import type { ExperimentConfig } from '../../../src-shared/experiment';
import { MAX_MANIFEST_WARNINGS } from '../../../src-shared/runs';
import type { ResponseCacheMode } from '../answer/responseCache';
import type { RunManifest } from '../runs/manifest';
import {
  ANSWER_CACHE_HITS,
  ANSWER_CACHE_MISSES,
  MEMORY_CACHE_HITS,
  MEMORY_CACHE_MISSES,
  type SampleOutcome,
} from './runSample';

/**
 * What a launch's samples add up to on the main thread, folded one fact at a time (as
 * src-shared/liveProgress.ts folds progress events), and folded into the manifest when the run
 * finishes (`manifestWithTally`).
 */
export interface RunTally {
  /** The samples' memory notes, each once, in the order first seen. */
  notes: string[];
  /** The embedder the first finished sample's service reported. */
  embedder: string | null;
  embedCounts: { requests: number; cacheHits: number; cacheMisses: number };
  answerCache: { hits: number; misses: number };
  /** The memory LLM's response-cache hits and misses (mem0's library calls included). */
  memoryCache: { hits: number; misses: number };
  warnings: string[];
  warningsDropped: number;
  /** `<sampleId>: <message>` of each sample that failed (a hard cancel is not a failure). */
  failures: string[];
  /** Answer errors of tests a stop drops are not in the runs DB: keep the count and the last one. */
  answerErrorsSeen: number;
  lastAnswerError: string | null;
}

export type TallyAction =
  | { type: 'answered'; error: boolean; errorMessage?: string | undefined }
  | { type: 'warning'; sampleId: string; message: string }
  | { type: 'sample-finished'; outcome: SampleOutcome }
  | { type: 'sample-failed'; sampleId: string; message: string }
  /** The run stopped early: answer errors seen but not committed went with the dropped tests. */
  | { type: 'stopped'; committedAnswerErrors: number };

const EMBED_COUNTERS = {
  requests: 'embed.requests',
  cacheHits: 'embed.cacheHits',
  cacheMisses: 'embed.cacheMisses',
} as const;

export function emptyTally(): RunTally {
  return {
    notes: [],
    embedder: null,
    embedCounts: { requests: 0, cacheHits: 0, cacheMisses: 0 },
    answerCache: { hits: 0, misses: 0 },
    memoryCache: { hits: 0, misses: 0 },
    warnings: [],
    warningsDropped: 0,
    failures: [],
    answerErrorsSeen: 0,
    lastAnswerError: null,
  };
}

export function reduceTally(tally: RunTally, action: TallyAction): RunTally {
  switch (action.type) {
    case 'answered':
      if (!action.error) return tally;
      return {
        ...tally,
        answerErrorsSeen: tally.answerErrorsSeen + 1,
        lastAnswerError: action.errorMessage ?? tally.lastAnswerError,
      };
    case 'warning':
      return tally.warnings.length < MAX_MANIFEST_WARNINGS
        ? { ...tally, warnings: [...tally.warnings, `${action.sampleId}: ${action.message}`] }
        : { ...tally, warningsDropped: tally.warningsDropped + 1 };
    case 'sample-finished': {
      const { outcome } = action;
      const embedCounts = { ...tally.embedCounts };
      for (const [field, key] of Object.entries(EMBED_COUNTERS)) {
        embedCounts[field as keyof typeof EMBED_COUNTERS] += outcome.stats[key] ?? 0;
      }
      return {
        ...tally,
        notes: [...new Set([...tally.notes, ...outcome.notes])],
        embedder: tally.embedder ?? outcome.embedder,
        embedCounts,
        answerCache: {
          hits: tally.answerCache.hits + (outcome.stats[ANSWER_CACHE_HITS] ?? 0),
          misses: tally.answerCache.misses + (outcome.stats[ANSWER_CACHE_MISSES] ?? 0),
        },
        memoryCache: {
          hits: tally.memoryCache.hits + (outcome.stats[MEMORY_CACHE_HITS] ?? 0),
          misses: tally.memoryCache.misses + (outcome.stats[MEMORY_CACHE_MISSES] ?? 0),
        },
      };
    }
    case 'sample-failed':
      return { ...tally, failures: [...tally.failures, `${action.sampleId}: ${action.message}`] };
    case 'stopped': {
      const dropped = tally.answerErrorsSeen - action.committedAnswerErrors;
      if (dropped <= 0) return tally;
      // Not capped: it is the one warning that explains the others' absence.
      return {
        ...tally,
        warnings: [
          ...tally.warnings,
          `${dropped} answer error(s) in tests dropped uncommitted by the stop; last: ${tally.lastAnswerError ?? 'unknown'}`,
        ],
      };
    }
  }
}

/**
 * The embedders the memory config names, each once; when it names none, the one the services
 * reported (a preset's default), if any.
 */
export function embeddersOf(
  config: ExperimentConfig,
  reported: string | null = null,
): EmbedderRecord[] {
  const records = new Map<string, EmbedderRecord>();
  for (const { choice } of embedderChoicesIn(config.memory.config)) {
    const record = embedderRecord(choice);
    records.set(`${record.name}\u0000${record.baseUrl}`, record);
  }
  if (records.size === 0 && reported !== null) {
    return [{ name: reported, model: null, baseUrl: null }];
  }
  return [...records.values()];
}

/** An earlier launch's warnings (a resumed run) and this launch's, within the cap. */
function manifestWarnings(
  before: readonly string[] | undefined,
  now: readonly string[],
  dropped: number,
): { warnings?: string[] } {
  const all = [...(before ?? []), ...now];
  if (all.length === 0) return {};
  const kept = all.slice(0, MAX_MANIFEST_WARNINGS);
  const more = all.length - kept.length + dropped;
  return { warnings: more > 0 ? [...kept, `... and ${more} more warnings`] : kept };
}

/** The manifest `m` with this launch's tally added to what earlier launches recorded. */
export function manifestWithTally(
  m: RunManifest,
  tally: RunTally,
  config: ExperimentConfig,
  usage: RunManifest['usage'],
  responseCache: ResponseCacheMode | undefined,
  /** Embedding requests in the call ledger, every launch's (a killed one never adds its tally). */
  ledgerEmbedderCalls = 0,
): RunManifest {
  const { embedder, embedCounts, answerCache, memoryCache } = tally;
  return {
    ...m,
    memory: { ...m.memory, notes: [...new Set([...m.memory.notes, ...tally.notes])] },
    ...manifestWarnings(m.warnings, tally.warnings, tally.warningsDropped),
    // The service knows its embedder (config defaults included); the config alone may not.
    embedder: m.embedder ?? embedder,
    embedding: {
      embedders: m.embedding?.embedders ?? embeddersOf(config, embedder),
      // The ledger, where it has them, is every launch's; the tally only this launch's.
      requests:
        ledgerEmbedderCalls > 0
          ? ledgerEmbedderCalls
          : (m.embedding?.requests ?? 0) + embedCounts.requests,
      cacheHits: (m.embedding?.cacheHits ?? 0) + embedCounts.cacheHits,
      cacheMisses: (m.embedding?.cacheMisses ?? 0) + embedCounts.cacheMisses,
    },
    usage,
    ...(responseCache !== undefined && responseCache !== 'off' && config.memory.llm
      ? {
          memoryCache: {
            hits: (m.memoryCache?.hits ?? 0) + memoryCache.hits,
            misses: (m.memoryCache?.misses ?? 0) + memoryCache.misses,
          },
        }
      : {}),
    ...(responseCache !== undefined && responseCache !== 'off' && config.answerer.kind === 'llm'
      ? {
          // A resumed run adds this launch's hits to the earlier ones.
          answerCache: {
            mode: responseCache,
            hits: (m.answerCache?.hits ?? 0) + answerCache.hits,
            misses: (m.answerCache?.misses ?? 0) + answerCache.misses,
          },
        }
      : {}),
  };
}
