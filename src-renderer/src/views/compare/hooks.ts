import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { RunComparisonResult } from '@shared/api';
import { toErrorPayload, type ErrorPayload } from '@shared/errors';
import type { RunListItem } from '@shared/runs';
import { useClient } from '../../api/context';
import { useApi, type ApiState } from '../../hooks/useApi';
import { useRoute } from '../../router';
import { downloadFile } from '../../lib/download';
import {
  applyComparePatch,
  compareParamsToRecord,
  compareRequest,
  isComparableStatus,
  isFinishedStatus,
  parseCompareParams,
  type CompareParams,
  type CompareParamsPatch,
} from './shape';

/** The view's state in the URL hash, with a merge-style updater. */
export function useCompareParams(): [CompareParams, (patch: CompareParamsPatch) => void] {
  const [route, navigate] = useRoute();
  const query = route.params.toString();
  // Parsed once per URL: the arrays it returns feed memo dependencies further down.
  const params = useMemo(() => parseCompareParams(new URLSearchParams(query)), [query]);
  const update = useCallback(
    (patch: CompareParamsPatch) => {
      // Read the live hash, not the render's copy: two updates in one event must not drop one.
      const live = window.location.hash.split('?')[1] ?? '';
      const current = parseCompareParams(new URLSearchParams(live));
      navigate('compare', compareParamsToRecord(applyComparePatch(current, patch)));
    },
    [navigate],
  );
  return [params, update];
}

export interface ComparableRun extends RunListItem {
  /** Questions answered; null while a cancelled run is being checked. */
  answered: number | null;
}

interface CountsSettled {
  request: string;
  counts: Map<string, number>;
}

/**
 * Runs that can be compared: completed ones, and cancelled ones that got as far as answering
 * something. The list does not carry answer counts, so cancelled runs (usually few) are asked
 * for their summary one by one.
 */
export function useComparableRuns(): {
  runs: ComparableRun[] | undefined;
  error: ErrorPayload | undefined;
  reload: () => void;
} {
  const client = useClient();
  const list = useApi('runs.list', {});
  const eligible = useMemo(
    () => (list.data ?? []).filter((run) => isComparableStatus(run.status)),
    [list.data],
  );
  const cancelled = eligible.filter((run) => run.status === 'cancelled').map((run) => run.id);
  const request = cancelled.join(',');
  const [settled, setSettled] = useState<CountsSettled | null>(null);

  useEffect(() => {
    if (request === '') return undefined;
    let stop = false;
    const counts = new Map<string, number>();
    void (async () => {
      for (const runId of request.split(',')) {
        if (stop) return;
        try {
          counts.set(runId, (await client.call('runs.get', { runId })).summary.questions);
        } catch {
          // A run that cannot be read has nothing to compare; it shows as unanswered.
          counts.set(runId, 0);
        }
      }
      if (!stop) setSettled({ request, counts });
    })();
    return () => {
      stop = true;
    };
  }, [client, request]);

  const counts = settled?.request === request ? settled.counts : null;
  const runs = useMemo(
    () =>
      list.data === undefined
        ? undefined
        : eligible.map((run): ComparableRun => ({
            ...run,
            answered: isFinishedStatus(run.status) ? null : (counts?.get(run.id) ?? null),
          })),
    [list.data, eligible, counts],
  );
  return { runs, error: list.error, reload: list.reload };
}

export function useComparison(
  params: Pick<CompareParams, 'runs' | 'baseline' | 'metric'>,
): ApiState<RunComparisonResult> & { requested: boolean } {
  const request = compareRequest(params);
  const state = useApi('runs.compare', request);
  return { ...state, requested: request !== null };
}

/** csv and json: the comparison's data; html: the shareable report. */
export type CompareExportFormat = 'csv' | 'json' | 'html';

export type ExportState =
  | { status: 'idle' }
  | { status: 'exporting'; format: CompareExportFormat }
  | { status: 'error'; error: ErrorPayload };

/** Asks the engine for the comparison file (it owns the CSV/JSON layout) and saves it. */
export function useCompareExport(params: Pick<CompareParams, 'runs' | 'baseline' | 'metric'>): {
  state: ExportState;
  exportAs: (format: CompareExportFormat) => Promise<void>;
  dismiss: () => void;
} {
  const client = useClient();
  const [state, setState] = useState<ExportState>({ status: 'idle' });
  // A second click while the first export is still on its way wins; the first is dropped.
  const attempt = useRef(0);
  const request = compareRequest(params);
  const key = request === null ? null : JSON.stringify(request);

  const exportAs = useCallback(
    async (format: CompareExportFormat) => {
      if (key === null) return;
      const { runIds, baselineRunId, metric } = JSON.parse(key) as NonNullable<
        ReturnType<typeof compareRequest>
      >;
      const mine = ++attempt.current;
      setState({ status: 'exporting', format });
      try {
        const file = await client.call('runs.compareExport', {
          runIds,
          baselineRunId,
          metric,
          format,
        });
        if (mine !== attempt.current) return;
        downloadFile(file);
        setState({ status: 'idle' });
      } catch (error) {
        if (mine !== attempt.current) return;
        setState({ status: 'error', error: toErrorPayload(error) });
      }
    },
    [client, key],
  );
  const dismiss = useCallback(() => setState({ status: 'idle' }), []);
  return { state, exportAs, dismiss };
}
