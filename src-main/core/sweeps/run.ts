import type { ProgressEvent, RunStatus } from '../../../src-shared/experiment';
import type { SweepCell, SweepRunRow, SweepTag } from '../../../src-shared/sweeps';
import {
  launchCallChoices,
  launchRun,
  resumeRun,
  type LaunchCallChoices,
  type LaunchSurface,
} from '../launch/launch';
import type { ExperimentHandle, RunOptions } from '../pipeline/runner';
import type { LoadedSweep } from './spec';

/**
 * Runs a sweep's cells as ordinary runs tagged with the sweep. Resumable: a rerun of the same spec
 * skips completed cells, resumes interrupted, cancelled or failed ones, and starts the rest. The
 * executor in `options` decides where samples run (worker threads here, or BullMQ workers). Each
 * cell is started or resumed through the launcher (launch/launch.ts), with the caller's call
 * choices as they are: preflight and cache are the launcher's policy, a cell's repeat included.
 */

export interface SweepRunOptions
  extends
    Omit<
      RunOptions,
      'sweep' | 'onProgress' | 'signal' | 'preflight' | 'responseCache' | 'responseCacheScope'
    >,
    LaunchCallChoices {
  /** Cells running at once (default 1; a distributed executor wants more to keep workers busy). */
  cellsAtOnce?: number;
  onProgress?: (cell: SweepCell, event: ProgressEvent) => void;
  onCell?: (event: SweepCellEvent) => void;
  signal?: AbortSignal;
}

export type SweepCellAction = 'skipped' | 'started' | 'resumed';

export interface SweepCellEvent {
  cell: SweepCell;
  action: SweepCellAction;
  runId: string;
  /** Set once the cell's run stopped. */
  status?: Exclude<RunStatus, 'running' | 'interrupted'>;
  error?: string | null;
}

export interface SweepCellResult {
  index: number;
  key: string;
  runId: string | null;
  action: SweepCellAction | 'not-run';
  status: RunStatus | 'not-run';
  error: string | null;
}

export interface SweepOutcome {
  sweepId: string;
  cells: SweepCellResult[];
  completed: number;
  failed: number;
}

export function tagOf(sweep: LoadedSweep, cell: SweepCell): SweepTag {
  return {
    sweepId: sweep.sweepId,
    name: sweep.spec.name,
    cellKey: cell.key,
    cellIndex: cell.index,
    values: cell.values,
    repeat: cell.repeat,
    ...(sweep.pack ? { pack: sweep.pack } : {}),
  };
}

export async function runSweep(
  sweep: LoadedSweep,
  options: SweepRunOptions,
): Promise<SweepOutcome> {
  const { store, cellsAtOnce = 1, signal } = options;
  const latest = new Map<string, SweepRunRow>();
  // The group's runs under its name and any former one (a renamed pack row), newest first.
  const stored = [sweep.sweepId, ...(sweep.formerSweepIds ?? [])]
    .flatMap((id) => store.sweepRuns(id))
    .sort((a, b) => (a.runId < b.runId ? 1 : a.runId > b.runId ? -1 : 0));
  for (const row of stored) {
    if (!latest.has(row.tag.cellKey)) latest.set(row.tag.cellKey, row);
  }
  const results: SweepCellResult[] = sweep.cells.map((cell) => ({
    index: cell.index,
    key: cell.key,
    runId: null,
    action: 'not-run',
    status: 'not-run',
    error: null,
  }));
  const notify = (event: SweepCellEvent): void => {
    try {
      options.onCell?.(event);
    } catch {
      // A broken listener must not stop the sweep.
    }
  };

  const runCell = async (cell: SweepCell): Promise<void> => {
    const result = results[cell.index] as SweepCellResult;
    const previous = latest.get(cell.key);
    if (previous?.status === 'completed') {
      Object.assign(result, { runId: previous.runId, action: 'skipped', status: 'completed' });
      notify({ cell, action: 'skipped', runId: previous.runId, status: 'completed' });
      return;
    }
    if (previous?.status === 'running') {
      // Another process owns it (a run whose process died was marked interrupted on open).
      const error = `run ${previous.runId} is still running in another process`;
      Object.assign(result, { runId: previous.runId, action: 'not-run', status: 'running', error });
      return;
    }
    const surface: LaunchSurface = {
      store,
      dataDir: options.dataDir,
      mayStartProcesses: options.mayStartProcesses === true,
      onProgress: (event) => options.onProgress?.(cell, event),
      ...(options.apiKeys ? { apiKeys: options.apiKeys } : {}),
      ...(options.executor ? { executor: options.executor } : {}),
      ...(options.keepCollections !== undefined
        ? { keepCollections: options.keepCollections }
        : {}),
      ...(options.now ? { now: options.now } : {}),
      ...(signal ? { signal } : {}),
    };
    const calls = launchCallChoices(options);
    let handle: ExperimentHandle;
    let action: SweepCellAction;
    try {
      if (previous) {
        handle = await resumeRun({ runId: previous.runId, ...calls }, surface);
        action = 'resumed';
      } else {
        handle = await launchRun(
          {
            config: cell.config,
            sweep: tagOf(sweep, cell),
            // A cell keeps the caller's estimate, or none: planning each cell again costs a pass
            // over the dataset for a figure `sweep plan` already showed.
            estimate: options.estimate ?? null,
            ...(options.identity ? { identity: options.identity } : {}),
            ...(options.errata ? { errata: options.errata } : {}),
            ...(options.dataset ? { dataset: options.dataset } : {}),
            ...(options.datasetSha256 !== undefined
              ? { datasetSha256: options.datasetSha256 }
              : {}),
            ...calls,
          },
          surface,
        );
        action = 'started';
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      Object.assign(result, { runId: previous?.runId ?? null, status: 'failed', error: message });
      return;
    }
    Object.assign(result, { runId: handle.runId, action, status: 'running' });
    notify({ cell, action, runId: handle.runId });
    const outcome = await handle.done;
    Object.assign(result, { status: outcome.status, error: outcome.error });
    notify({ cell, action, runId: handle.runId, status: outcome.status, error: outcome.error });
  };

  const queue = [...sweep.cells];
  const lanes = Array.from(
    { length: Math.max(1, Math.min(cellsAtOnce, queue.length)) },
    async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        if (signal?.aborted) return;
        await runCell(next);
      }
    },
  );
  await Promise.all(lanes);
  return {
    sweepId: sweep.sweepId,
    cells: results,
    completed: results.filter((r) => r.status === 'completed').length,
    failed: results.filter((r) => r.status !== 'completed').length,
  };
}
