import {
  embedderChoicesIn,
  embedderRecord,
  type EmbedderRecord,
} from '../../../src-shared/embedders';
import type { ExperimentConfig } from '../../../src-shared/experiment';
import {
  MAX_MANIFEST_WARNINGS,
  type LlmCallRecord,
  type RoleWireShape,
} from '../../../src-shared/runs';
import type { ResponseCacheMode } from '../answer/responseCache';
import type { RunManifest } from '../runs/manifest';
import { ledgerCacheCounts, ledgerTotals } from '../runs/usage';
import type { SampleOutcome } from './runSample';

/**
 * What a launch's samples add up to on the main thread, folded one fact at a time (as
 * src-shared/liveProgress.ts folds progress events), and folded into the manifest when the run
 * finishes (`manifestWithTally`). Counters of requests and cache hits are not here: the call
 * ledger files them as they happen, so a launch killed with -9 keeps them too.
 */
export interface RunTally {
  /** The samples' memory notes, each once, in the order first seen. */
  notes: string[];
  /** The embedder the first finished sample's service reported. */
  embedder: string | null;
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

export function emptyTally(): RunTally {
  return {
    notes: [],
    embedder: null,
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
      return {
        ...tally,
        notes: [...new Set([...tally.notes, ...outcome.notes])],
        embedder: tally.embedder ?? outcome.embedder,
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

/**
 * The manifest `m` with this launch's tally added to what earlier launches recorded, and its
 * counters and request parameters from the call ledger (every launch's, a killed one's included;
 * a run from before the ledger kept them has them filed there on resume, `seedLedger`).
 */
export function manifestWithTally(
  m: RunManifest,
  tally: RunTally,
  config: ExperimentConfig,
  usage: RunManifest['usage'],
  responseCache: ResponseCacheMode | undefined,
  ledger: readonly LlmCallRecord[] = [],
  requestParams: readonly RoleWireShape[] = [],
): RunManifest {
  const { embedder } = tally;
  const embedCache = ledgerCacheCounts(ledger, 'embedder');
  const cacheOn = responseCache !== undefined && responseCache !== 'off';
  return {
    ...m,
    memory: { ...m.memory, notes: [...new Set([...m.memory.notes, ...tally.notes])] },
    ...manifestWarnings(m.warnings, tally.warnings, tally.warningsDropped),
    // The service knows its embedder (config defaults included); the config alone may not.
    embedder: m.embedder ?? embedder,
    embedding: {
      embedders: m.embedding?.embedders ?? embeddersOf(config, embedder),
      requests: ledgerTotals(ledger, 'embedder', undefined).calls,
      cacheHits: embedCache.hits,
      cacheMisses: embedCache.misses,
    },
    usage,
    ...(requestParams.length > 0 ? { requestParams: [...requestParams] } : {}),
    ...(cacheOn && config.memory.llm ? { memoryCache: ledgerCacheCounts(ledger, 'memory') } : {}),
    ...(cacheOn && config.answerer.kind === 'llm'
      ? { answerCache: { mode: responseCache, ...ledgerCacheCounts(ledger, 'answer') } }
      : {}),
  };
}
