import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import type { ApiClient, ApiInput, RunDetail } from '@shared/api';
import { useClient } from '../../api/context';
import type { ProgressEvent } from '@shared/experiment';
import { isActive, reduceProgress, type ProgressAction, type ProgressState } from './progress';

/** How often to ask the engine which runs are still active while one is shown as running. */
const RECONCILE_MS = 4000;
/** The live chart refetches the summary at most this often during a run. */
const SUMMARY_THROTTLE_MS = 1000;

async function seedRun(
  client: ApiClient,
  runId: string,
  dispatch: (action: ProgressAction) => void,
  last: ProgressEvent | null,
): Promise<void> {
  const detail = await client.call('runs.get', { runId });
  dispatch({ type: 'seed', info: detail.info, last });
}

/**
 * Live progress of every run this window has started or found running. Progress events drive it;
 * 'experiments.active' on mount covers a reload, and a slow reconcile covers events missed while
 * the event socket was reconnecting (a run that ended then would otherwise spin forever).
 */
export function useLiveProgress(): {
  runs: ProgressState;
  start: (config: ApiInput<'experiments.start'>) => Promise<string>;
  cancel: (runId: string) => Promise<void>;
  resume: (runId: string) => Promise<void>;
} {
  const client = useClient();
  const [runs, dispatch] = useReducer(reduceProgress, {});

  useEffect(() => {
    let cancelled = false;
    const unsubscribe = client.onEvent((event) => {
      if (event.type === 'progress') dispatch({ type: 'event', event: event.event });
    });
    void client
      .call('experiments.active', {})
      .then((active) =>
        Promise.all(
          active.map((a) =>
            cancelled ? undefined : seedRun(client, a.runId, dispatch, a.last).catch(() => {}),
          ),
        ),
      )
      .catch(() => {
        // The engine may be starting; the reconcile below and the events catch up.
      });
    return () => {
      cancelled = true;
      unsubscribe();
    };
  }, [client]);

  const activeIds = Object.values(runs)
    .filter(isActive)
    .map((r) => r.runId)
    .sort()
    .join(',');
  useEffect(() => {
    if (activeIds === '') return undefined;
    const ids = activeIds.split(',');
    const timer = setInterval(() => {
      void client
        .call('experiments.active', {})
        .then(async (active) => {
          const still = new Set(active.map((a) => a.runId));
          for (const runId of ids) {
            if (still.has(runId)) continue;
            const detail = await client.call('runs.get', { runId });
            // Between the two calls the run may have been started again; only a stored ending counts.
            if (detail.info.status !== 'running') dispatch({ type: 'settled', info: detail.info });
          }
        })
        .catch(() => {});
    }, RECONCILE_MS);
    return () => clearInterval(timer);
  }, [client, activeIds]);

  const start = useCallback(
    async (config: ApiInput<'experiments.start'>) => {
      const { runId } = await client.call('experiments.start', config);
      // Events normally arrive first; this fills the card in if the socket missed them.
      void seedRun(client, runId, dispatch, null).catch(() => {});
      return runId;
    },
    [client],
  );
  const cancel = useCallback(
    async (runId: string) => {
      dispatch({ type: 'cancel-requested', runId });
      await client.call('experiments.cancel', { runId });
    },
    [client],
  );
  const resume = useCallback(
    async (runId: string) => {
      await client.call('experiments.resume', { runId });
      void seedRun(client, runId, dispatch, null).catch(() => {});
    },
    [client],
  );
  return { runs, start, cancel, resume };
}

interface SummarySettled {
  runId: string;
  detail: RunDetail;
}

/**
 * The run's stored detail, refetched after committed tests (at most once a second) and once more
 * when the run ends: during a run the summary covers the answers committed so far.
 */
export function useLiveDetail(
  runId: string,
  testsCommitted: number,
  ended: boolean,
): RunDetail | undefined {
  const client = useClient();
  const [settled, setSettled] = useState<SummarySettled | null>(null);
  const lastFetch = useRef(0);
  const latest = useRef(0);

  useEffect(() => {
    const wait = Math.max(0, lastFetch.current + SUMMARY_THROTTLE_MS - Date.now());
    // A new commit within the window replaces the pending fetch, which keeps its deadline: a
    // trailing-edge throttle, so a burst of commits ends with the newest summary.
    const timer = setTimeout(() => {
      lastFetch.current = Date.now();
      const mine = ++latest.current;
      client
        .call('runs.get', { runId })
        .then((detail) => {
          // An older answer landing after a newer request must not overwrite it.
          if (mine === latest.current) setSettled({ runId, detail });
        })
        .catch(() => {});
    }, wait);
    return () => clearTimeout(timer);
  }, [client, runId, testsCommitted, ended]);

  return settled?.runId === runId ? settled.detail : undefined;
}

/** A clock for ages and countdowns, ticking only while something is running. */
export function useNow(active: boolean, intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return undefined;
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [active, intervalMs]);
  return now;
}
