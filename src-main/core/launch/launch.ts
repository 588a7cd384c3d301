import type { DatasetLoadResult } from '../../../src-shared/dataset';
import { parseOrThrow } from '../../../src-shared/errors';
import {
  ExperimentConfigSchema,
  type ExperimentConfig,
  type ExperimentConfigInput,
  type ResponseCacheMode,
} from '../../../src-shared/experiment';
import type { RunEstimate } from '../../../src-shared/runs';
import {
  resumeExperiment,
  startExperiment,
  type ExperimentHandle,
  type RunOptions,
} from '../pipeline/runner';
import { estimateOf } from '../pipeline/plan';

/**
 * The one entry that starts or resumes a run. Every surface (the CLI, the app's and the browser's
 * API service, sweeps and repeat groups, reproduce packs) builds a request and calls `launchRun` or
 * `resumeRun`; the launch policy is decided here, once, the same wherever the run starts:
 *
 * - **Validation**: the whole config is checked (ExperimentConfigSchema) before anything is called
 *   or written; a resumed run's stored config is checked against it again.
 * - **Response cache**: `on` unless the request says `off` or `only` (answer/responseCache.ts).
 * - **Preflight**: one real call to each endpoint (pipeline/preflight.ts) before the run is created
 *   or resumed, unless the request opts out (`--no-preflight`). A replay (`only`) never calls an
 *   endpoint, so it is never preflighted: it runs with the endpoint down.
 * - **Estimate**: a new run keeps the planner's estimate beside its usage (pipeline/plan.ts), unless
 *   the request brings one already or asks for none (`null`).
 * - **Processes**: only a surface whose input is the local user's (CLI flags, the desktop app) may
 *   start processes (an external memory service's `command`); the browser API, a Redis job and a
 *   reproduce pack may not. The surface says which in its `LaunchSurface.mayStartProcesses`, and
 *   a network surface names the folders it is confined to (`allowedDirs`, core/trust.ts).
 */

export const DEFAULT_RESPONSE_CACHE: ResponseCacheMode = 'on';

/** The surface that launches: where the run is recorded, and what its input may do. */
export interface LaunchSurface extends Pick<
  RunOptions,
  'store' | 'dataDir' | 'apiKeys' | 'onProgress' | 'executor' | 'keepCollections' | 'signal' | 'now'
> {
  /** The input came from the local user (CLI flags, desktop app): an external command may run. */
  mayStartProcesses: boolean;
  /** The folders a caller from the network is confined to (core/trust.ts); absent: the local user. */
  allowedDirs?: readonly string[];
}

/** What a launch asks about calls: each field's default is the policy above. */
export interface LaunchCallChoices {
  /** `false` skips the preflight (`--no-preflight`); default true. */
  preflight?: boolean;
  /** Default `on`. */
  responseCache?: ResponseCacheMode;
}

export interface LaunchRequest
  extends
    LaunchCallChoices,
    Pick<RunOptions, 'identity' | 'errata' | 'dataset' | 'datasetSha256' | 'sweep'> {
  config: ExperimentConfigInput | ExperimentConfig;
  /** The run's estimate when the caller planned it already; `null`: keep none; default: planned here. */
  estimate?: RunEstimate | null;
}

export interface ResumeRequest extends LaunchCallChoices {
  runId: string;
}

/** The runner options the policy decides: the cache mode, and a preflight unless it replays. */
function callOptions(choices: LaunchCallChoices): Pick<RunOptions, 'preflight' | 'responseCache'> {
  const responseCache = choices.responseCache ?? DEFAULT_RESPONSE_CACHE;
  return { responseCache, preflight: choices.preflight !== false && responseCache !== 'only' };
}

async function estimateFor(
  request: LaunchRequest,
  config: ExperimentConfig,
  dataset: DatasetLoadResult | undefined,
): Promise<RunEstimate | undefined> {
  if (request.estimate === null) return undefined;
  return request.estimate ?? (await estimateOf(config, dataset));
}

/** Validates, plans the estimate, preflights (policy above), creates the run and starts it. */
export async function launchRun(
  request: LaunchRequest,
  surface: LaunchSurface,
): Promise<ExperimentHandle> {
  const config = parseOrThrow(ExperimentConfigSchema, request.config, 'experiment config');
  const estimate = await estimateFor(request, config, request.dataset);
  const { identity, errata, dataset, datasetSha256, sweep } = request;
  return startExperiment(config, {
    ...surface,
    ...(identity ? { identity } : {}),
    ...(errata ? { errata } : {}),
    ...(dataset ? { dataset } : {}),
    ...(datasetSha256 !== undefined ? { datasetSha256 } : {}),
    ...(sweep ? { sweep } : {}),
    ...callOptions(request),
    ...(estimate ? { estimate } : {}),
  });
}

/** Resumes a stopped run under the same policy as `launchRun` (preflight, cache). */
export async function resumeRun(
  request: ResumeRequest,
  surface: LaunchSurface,
): Promise<ExperimentHandle> {
  return resumeExperiment(request.runId, { ...surface, ...callOptions(request) });
}
