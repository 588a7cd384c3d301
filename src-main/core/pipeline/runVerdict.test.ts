import { describe, expect, it } from 'vitest';
import { LOCOMO_PROFILE } from '../../../src-shared/benchmarks';
import { WorkbenchError } from '../../../src-shared/errors';
import { summarizeAnswers } from '../../../src-shared/experiment';
import { finishEvent, stoppedStatus } from './runVerdict';

const stop = { runId: 'r1', breakerTripped: null, cancelled: false, aborted: false, failures: [] };

describe('stoppedStatus', () => {
  it('pauses on a tripped breaker unless the caller cancelled too', () => {
    const tripped = { ...stop, breakerTripped: '5 consecutive failures', aborted: true };
    expect(stoppedStatus(tripped)).toEqual({
      status: 'paused',
      error: '5 consecutive failures; fix the endpoint, then resume run r1',
    });
    expect(stoppedStatus({ ...tripped, cancelled: true }).status).toBe('cancelled');
  });

  it('fails with the one failure, or the count and the first', () => {
    expect(stoppedStatus({ ...stop, failures: ['s1: boom'] })).toEqual({
      status: 'failed',
      error: 's1: boom',
    });
    expect(stoppedStatus({ ...stop, failures: ['s1: boom', 's2: bang'] }).error).toBe(
      '2 samples failed; first: s1: boom',
    );
  });

  it('completes when nothing stopped the lanes', () => {
    expect(stoppedStatus(stop)).toEqual({ status: 'completed', error: null });
  });
});

describe('finishEvent', () => {
  const finish = {
    runId: 'r1',
    error: null,
    summary: summarizeAnswers([], LOCOMO_PROFILE),
    elapsedMs: 5,
  };

  it("names a cancel's reason only when it is a CANCELLED error", () => {
    const reason = new WorkbenchError('CANCELLED', 'cancelled by the user');
    expect(finishEvent({ ...finish, status: 'cancelled', reason }, 9)).toEqual({
      type: 'run-cancelled',
      runId: 'r1',
      at: 9,
      elapsedMs: 5,
      reason: 'cancelled by the user',
    });
    expect(
      finishEvent({ ...finish, status: 'cancelled', reason: new Error('x') }, 9),
    ).not.toHaveProperty('reason');
  });

  it('says finished for completed and degraded runs, paused or failed with a message', () => {
    expect(finishEvent({ ...finish, status: 'degraded', reason: undefined }, 1)).toMatchObject({
      type: 'run-finished',
      status: 'degraded',
    });
    expect(finishEvent({ ...finish, status: 'paused', reason: undefined }, 1)).toMatchObject({
      type: 'run-paused',
      message: 'paused',
    });
    expect(
      finishEvent({ ...finish, status: 'failed', error: 'boom', reason: undefined }, 1),
    ).toMatchObject({ type: 'run-failed', message: 'boom' });
  });
});
