import type { DatasetLoadResult } from '../../../src-shared/dataset';
import { WorkbenchError, parseOrThrow } from '../../../src-shared/errors';
import {
  ExperimentConfigSchema,
  type ExperimentConfig,
  type ExperimentConfigInput,
  type ResponseCacheMode,
} from '../../../src-shared/experiment';
import type { RunEstimate } from '../../../src-shared/runs';
import { repeatCacheScope, type SweepTag } from '../../../src-shared/sweeps';
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
 *   A sweep's or repeat group's repeat r > 0 (its sweep tag, stored in the manifest, so a resume
 *   reads it back) uses the cache scoped to its repeat (src-shared/sweeps.ts repeatCacheScope), as
 *   its judge verdicts are: repeats are independent runs of one config, measuring variance, so a
 *   repeat never replays another repeat's replies (a sweep's repeats even share the seed, so their
 *   requests are byte-identical), while a replay (`only`) of a repeat replays its own. A
 *   distributed executor's workers (other machines, fed by a Redis job) have no cache of this
 *   machine: the cache is off for them, and a replay on them is refused before anything runs.
 * - **Preflight**: one real call to each endpoint (pipeline/preflight.ts) before the run is created
 *   or resumed, unless the request opts out (`--no-preflight`). A replay (`only`) never calls an
 *   endpoint, so it is never preflighted: it runs with the endpoint down. Each cell of a sweep is
 *   preflighted as a run of its own: the call is tiny (one 16-token reply per endpoint, all at
 *   once) beside a cell's hundreds, cells start minutes or hours apart so only a check at the
 *   cell's start says its endpoint is up now, and each run's ledger counts its own preflight.
 * - **The same from every surface**: the CLI's flags (`--no-preflight`, `--no-cache`,
 *   `--cache-only` on `experiment`, `experiment --repeats`, `resume`, `sweep run` and
 *   `reproduce`), the API's `experiments.start` and `experiments.resume` (`preflight`,
 *   `responseCache`), sweeps, repeat groups and reproduce packs pass the caller's choices through
 *   or leave them out; no surface has a default of its own.
 * - **Estimate**: a new run keeps the planner's estimate beside its usage (pipeline/plan.ts), unless
 *   the request brings one already or asks for none (`null`: a sweep's cell without its caller's,
 *   whose figures `sweep plan` printed for the whole grid).
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

/** Call choices as an input parsed them: a field left out may be there as `undefined`. */
export interface StatedCallChoices {
  preflight?: boolean | undefined;
  responseCache?: ResponseCacheMode | undefined;
}

/** The choices an input states, without its `undefined` fields. */
export function launchCallChoices(input: StatedCallChoices): LaunchCallChoices {
  return {
    ...(input.preflight !== undefined ? { preflight: input.preflight } : {}),
    ...(input.responseCache !== undefined ? { responseCache: input.responseCache } : {}),
  };
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

/**
 * The runner options the policy decides: the cache mode and its scope (the run's repeat), and a
 * preflight unless it replays.
 */
function callOptions(
  choices: LaunchCallChoices,
  sweep: SweepTag | undefined,
  surface: LaunchSurface,
): Pick<RunOptions, 'preflight' | 'responseCache' | 'responseCacheScope'> {
  const distributed = surface.executor?.kind === 'distributed';
  if (distributed && choices.responseCache === 'only') {
    throw new WorkbenchError(
      'INVALID_INPUT',
      'launch: a replay from the response cache (cache-only) cannot run on a distributed executor: its workers have no cache of this machine; replay without --redis',
      { path: ['responseCache'] },
    );
  }
  const responseCache = distributed ? 'off' : (choices.responseCache ?? DEFAULT_RESPONSE_CACHE);
  const scope = repeatCacheScope(sweep);
  return {
    responseCache,
    ...(responseCache !== 'off' && scope !== undefined ? { responseCacheScope: scope } : {}),
    preflight: choices.preflight !== false && responseCache !== 'only',
  };
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
    ...callOptions(request, sweep, surface),
    ...(estimate ? { estimate } : {}),
  });
}

/** Resumes a stopped run under the same policy as `launchRun` (preflight, cache and its scope). */
export async function resumeRun(
  request: ResumeRequest,
  surface: LaunchSurface,
): Promise<ExperimentHandle> {
  const { sweep } = surface.store.getRun(request.runId).manifest;
  return resumeExperiment(request.runId, { ...surface, ...callOptions(request, sweep, surface) });
}
