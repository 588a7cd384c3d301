import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import type { ApiClient, ApiInput, ApiOutput } from '@shared/api';
import { useClient } from '../../api/context';
import type { ProgressEvent } from '@shared/experiment';
import {
  isActive,
  reduceProgress,
  type ProgressAction,
  type ProgressState,
  type SequencedEvent,
} from '@shared/liveProgress';
import { ThrottledFetcher } from './liveSummary';

/** How often to ask the engine which runs are still active while one is shown as running. */
const RECONCILE_MS = 4000;
/** The live chart refetches the summary at most this often during a run. */
const SUMMARY_THROTTLE_MS = 1000;
/** ...and waits this many times the last refetch's duration between two. */
const SUMMARY_COST_FACTOR = 8;

async function seedRun(
  client: ApiClient,
  runId: string,
  dispatch: (action: ProgressAction) => void,
  last: ProgressEvent | null,
): Promise<void> {
  const detail = await client.call('runs.summary', { runId });
  dispatch({ type: 'seed', info: detail.info, last });
}

/**
 * Progress events are folded in batches at most this often: a full LoCoMo run sends ~15,000
 * events, and rendering the view once per event kept Chromium busy enough to slow the run ~3×.
 */
export const PROGRESS_FLUSH_MS = 100;

/**
 * Live progress of every run this window has started or found running. Progress events drive it,
 * batched per PROGRESS_FLUSH_MS; the engine's own state ('experiments.live') on mount covers a
 * reload or a second window, and a slow reconcile covers events missed while the event socket was
 * reconnecting (a run that ended then would otherwise spin forever).
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
    let pending: SequencedEvent[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Events wait for the engine's snapshot: the socket may deliver events newer than it before
    // the answer arrives, and only on top of the snapshot do they make a whole run.
    let snapshotSettled = false;
    const flush = (): void => {
      timer = undefined;
      if (!snapshotSettled || pending.length === 0) return;
      const events = pending;
      pending = [];
      dispatch({ type: 'events', events });
    };
    const unsubscribe = client.onEvent((event) => {
      if (event.type !== 'progress') return;
      pending.push(event.seq === undefined ? { event: event.event } : event);
      timer ??= setTimeout(flush, PROGRESS_FLUSH_MS);
    });
    void client
      .call('experiments.live', {})
      .then((live) => {
        if (!cancelled) dispatch({ type: 'snapshot', runs: live });
      })
      .catch(() => {
        // The engine may be starting; the reconcile below and the events catch up.
      })
      .finally(() => {
        snapshotSettled = true;
        if (!cancelled) flush();
      });
    return () => {
      cancelled = true;
      clearTimeout(timer);
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
            const detail = await client.call('runs.summary', { runId });
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

type LiveDetail = ApiOutput<'runs.summary'>;

interface SummarySettled {
  runId: string;
  detail: LiveDetail;
}

/**
 * The run's stored info and summary, refetched after committed tests and once more when the run
 * ends: during a run the summary covers the answers committed so far. The summary is computed
 * over every answer so far on a core the run also needs, so refetches are spaced by at least
 * SUMMARY_THROTTLE_MS and SUMMARY_COST_FACTOR times the last one's duration (at most ~1/8 of a
 * core however large the run grows).
 */
export function useLiveDetail(
  runId: string,
  testsCommitted: number,
  ended: boolean,
): LiveDetail | undefined {
  const client = useClient();
  const [settled, setSettled] = useState<SummarySettled | null>(null);
  // One schedule per card: its throttle spans every request the card makes.
  const [fetcher] = useState(
    () => new ThrottledFetcher<LiveDetail>(SUMMARY_THROTTLE_MS, SUMMARY_COST_FACTOR),
  );
  // The run whose detail the card has: read by the retry, which outlives the render.
  const shown = useRef<string | null>(null);

  useEffect(
    () =>
      fetcher.request(
        () => client.call('runs.summary', { runId }),
        (detail) => {
          shown.current = runId;
          setSettled({ runId, detail });
        },
        // Until the card has its first detail: a later failure waits for the next commit.
        () => shown.current !== runId,
      ),
    [client, fetcher, runId, testsCommitted, ended],
  );

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
