import { WorkbenchError } from '../../../src-shared/errors';
import type { ProgressEvent, RunSummary } from '../../../src-shared/experiment';
import type { RunOutcome } from './runContext';

/**
 * How a run finished, decided in one place: first from how its lanes stopped (`stoppedStatus`),
 * then, for a run that ran its course, from its answers (`finishedStatus`, src-shared); and the
 * event that says so (`finishEvent`).
 */

type FinalStatus = RunOutcome['status'];

export interface LaneStop {
  runId: string;
  /** The circuit breaker's reason, when it paused the run. */
  breakerTripped: string | null;
  /** The caller cancelled (not the breaker). */
  cancelled: boolean;
  /** Either stopped the lanes. */
  aborted: boolean;
  failures: readonly string[];
}

/** The status the lanes leave: paused by the breaker, cancelled, failed samples, or completed. */
export function stoppedStatus(stop: LaneStop): { status: FinalStatus; error: string | null } {
  const { runId, breakerTripped, failures } = stop;
  if (breakerTripped !== null && !stop.cancelled) {
    return {
      status: 'paused',
      error: `${breakerTripped}; fix the endpoint, then resume run ${runId}`,
    };
  }
  if (stop.aborted) return { status: 'cancelled', error: null };
  if (failures.length > 0) {
    return {
      status: 'failed',
      error:
        failures.length === 1
          ? (failures[0] as string)
          : `${failures.length} samples failed; first: ${failures[0]}`,
    };
  }
  return { status: 'completed', error: null };
}

/** The run's last event: finished, cancelled (with the caller's reason), paused or failed. */
export function finishEvent(
  finish: {
    runId: string;
    status: FinalStatus;
    error: string | null;
    summary: RunSummary;
    elapsedMs: number;
    /** The stop signal's reason: a CANCELLED error carries the caller's words. */
    reason: unknown;
  },
  at: number,
): ProgressEvent {
  const { runId, status, error, summary, elapsedMs, reason } = finish;
  if (status === 'completed' || status === 'degraded') {
    return { type: 'run-finished', runId, at, summary, elapsedMs, status, message: error };
  }
  if (status === 'cancelled') {
    return {
      type: 'run-cancelled',
      runId,
      at,
      elapsedMs,
      ...(reason instanceof WorkbenchError && reason.code === 'CANCELLED'
        ? { reason: reason.message }
        : {}),
    };
  }
  if (status === 'paused') {
    return { type: 'run-paused', runId, at, message: error ?? 'paused', elapsedMs };
  }
  return { type: 'run-failed', runId, at, message: error ?? 'failed', elapsedMs };
}
