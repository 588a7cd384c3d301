import { join } from 'node:path';
import type { DatasetLoadResult, Sample } from '../../../src-shared/dataset';
import type {
  ExperimentConfig,
  ProgressEvent,
  RunStatus,
  RunSummary,
} from '../../../src-shared/experiment';
import type { RunEstimate, RunIdentity, SkippedSample } from '../../../src-shared/runs';
import type { SweepTag } from '../../../src-shared/sweeps';
import type { ResponseCacheMode } from '../answer/responseCache';
import type { LoadedErrata } from '../dataset/errata';
import { dataCacheDir } from '../embed/cache';
import type { ApiKeySource, ApiKeys } from '../keys';
import type { RunStore } from '../runs/store';
import { isLocalUser, type CallerTrust } from '../trust';
import type { SampleExecutor } from './executors';
import type { RunDataset, SampleEntry } from './runDataset';
import type { SampleJob } from './runSample';

/**
 * What a run is given (RunOptions), what it ends with (RunOutcome), and the one object a launch of
 * it carries from start or resume to the lanes, each sample's job and the finish (RunContext).
 */

export interface RunOptions {
  store: RunStore;
  /** Collections live in <dataDir>/collections/<runId>/<sampleId>/. */
  dataDir: string;
  onProgress?: (event: ProgressEvent) => void;
  /** Default: one worker thread per sample. */
  executor?: SampleExecutor;
  /** Keep each sample's collection directory after the run (default: delete it). */
  keepCollections?: boolean;
  /** Cancels like `handle.cancel()`. */
  signal?: AbortSignal;
  /** Where the config's API keys come from (default: the environment, key-like names only). */
  apiKeys?: ApiKeySource;
  /** Tags a new run as a cell of a sweep (kept in its manifest). */
  sweep?: SweepTag;
  /** The new run's name, tags and notes (stored beside it, not in its config or hash). */
  identity?: RunIdentity;
  /** Dataset errata to record in a new run's manifest, resolved against its dataset first. */
  errata?: LoadedErrata;
  /**
   * The dataset as the caller already parsed it (the service's open dataset). The runner runs
   * these samples instead of parsing the file again, after checking that the file still has the
   * sha256 it was parsed from.
   */
  dataset?: DatasetLoadResult;
  /**
   * The sha256 of a file the caller opened without keeping a parsed copy (the service's streamed
   * LongMemEval file): the run streams the file and refuses it if its bytes hash differently.
   */
  datasetSha256?: string;
  /**
   * The config came from the local user (CLI, desktop app) and may start processes (an external
   * memory service's `command`). Default false: the browser-mode API must never run programs.
   * Surfaces say which they are through the launcher (launch/launch.ts).
   */
  mayStartProcesses?: boolean;
  /**
   * The folders (`serve --dataset-dir`) whose unix sockets the config may name, for a caller from
   * the network (core/trust.ts). Absent: any, the local user's config.
   */
  allowedDirs?: readonly string[];
  /**
   * One real call to each endpoint before the run is created or resumed (pipeline/preflight.ts);
   * a failure refuses the run. Default false (library callers and tests that queue faults); when
   * a surface's run is preflighted is the launcher's decision (launch/launch.ts).
   */
  preflight?: boolean;
  /**
   * The answerer's LLM response cache in the data folder (answer/responseCache.ts): `on` answers
   * identical requests from it, `only` never calls the endpoint (offline replay). Absent: no
   * cache; a run's default is the launcher's decision (launch.ts's DEFAULT_RESPONSE_CACHE), which
   * always sets it.
   */
  responseCache?: ResponseCacheMode;
  /** The cache's scope (answer/responseCache.ts): a sweep's repeat r > 0 keeps its own replies. */
  responseCacheScope?: string;
  /** The planner's estimate for this run (pipeline/plan.ts), kept in the manifest beside `usage`. */
  estimate?: RunEstimate;
  now?: () => number;
}

export interface RunOutcome {
  runId: string;
  status: Exclude<RunStatus, 'running' | 'interrupted'>;
  summary: RunSummary;
  elapsedMs: number;
  error: string | null;
  /**
   * The run ran its course but too many final answers are errors (`degraded`, or `failed` when
   * all are): resuming it would change nothing.
   */
  tooManyErrors: boolean;
  /**
   * Questions of the run's samples that were not asked: those without usable evidence, unless
   * the config includes them. Official overall scores count every question, so say it.
   */
  notAsked: number;
  /** Invalid samples of the file left out (`skipInvalid`), as the manifest records them. */
  skippedSamples: SkippedSample[];
}

export interface ExperimentHandle {
  runId: string;
  /** Settles when the run stops; never rejects (a failure is `status: 'failed'` with `error`). */
  done: Promise<RunOutcome>;
  /**
   * Graceful: in-flight questions finish, half-done tests are dropped, committed work stays.
   * `reason` (e.g. "cancelled by the user") travels in the run-cancelled event.
   */
  cancel(reason?: string): void;
}

/** A sample this launch runs, with the tests an earlier launch committed (replayed, not re-asked). */
export interface PlannedSample extends SampleEntry {
  skipTests: Set<number>;
}

/** One launch of a run, built once by start or resume and handed whole to the pieces that run it. */
export interface RunContext {
  runId: string;
  config: ExperimentConfig;
  apiKeys: ApiKeys;
  dataset: RunDataset;
  planned: PlannedSample[];
  /** Samples run at once (lanes). */
  parallel: number;
  resumed: boolean;
  /** A resume's samples an earlier attempt finished (announced so progress keeps them). */
  finished?: Array<{ sampleId: string; totalPackets: number; plannedTests: number }>;
  executor: SampleExecutor;
  options: RunOptions;
}

export function collectionDirFor(dataDir: string, runId: string, sampleId: string): string {
  return join(dataDir, 'collections', runId, sampleId.replace(/[^A-Za-z0-9._-]/g, '_'));
}

export function callerTrust(options: RunOptions): CallerTrust {
  return {
    mayStartProcesses: options.mayStartProcesses === true,
    ...(options.allowedDirs !== undefined ? { allowedDirs: options.allowedDirs } : {}),
  };
}

/** The job that crosses to the executor (a worker thread) for one sample of the run. */
export function sampleJobOf(
  context: RunContext,
  planned: PlannedSample,
  sample: Sample,
  collectionDir: string,
): SampleJob {
  const { runId, config, apiKeys, options } = context;
  return {
    runId,
    sample,
    plan: planned.plan,
    config,
    benchmark: options.store.profileOf(runId).id,
    skipTests: planned.skipTests,
    collectionDir,
    cacheDir: dataCacheDir(options.dataDir),
    apiKeys,
    ...(options.responseCache !== undefined && options.responseCache !== 'off'
      ? {
          responseCache: options.responseCache,
          ...(options.responseCacheScope !== undefined
            ? { responseCacheScope: options.responseCacheScope }
            : {}),
        }
      : {}),
    ...(isLocalUser(callerTrust(options)) ? {} : { quoteReplies: false }),
  };
}
