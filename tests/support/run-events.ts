import type { ApiEvent } from '../../src-shared/api';
import type { ProgressEvent } from '../../src-shared/experiment';

/**
 * Resolves with the event that ended run `runId` (finished, failed, cancelled, paused), found in
 * the events a service has emitted so far from index `from` (a resumed run's earlier launch ended
 * too); polls, since the test owns the array.
 */
export function runEnded(
  events: readonly ApiEvent[],
  runId: string,
  from = 0,
): Promise<ProgressEvent> {
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      const end = events
        .slice(from)
        .find(
          (e) =>
            e.type === 'progress' &&
            e.event.runId === runId &&
            e.event.type.startsWith('run-') &&
            e.event.type !== 'run-started',
        );
      if (end?.type === 'progress') {
        clearInterval(timer);
        resolve(end.event);
      }
    }, 50);
  });
}
