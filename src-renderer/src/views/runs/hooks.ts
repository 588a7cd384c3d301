import { useCallback, useEffect, useMemo, useState } from 'react';
import { MAX_ANSWERS_PAGE, type ApiClient, type ApiOutput } from '@shared/api';
import type { AnswerRecord, RunSummary } from '@shared/experiment';
import type { RunListItem } from '@shared/runs';
import { toErrorPayload, type ErrorPayload } from '@shared/errors';
import { useClient } from '../../api/context';
import { useApi } from '../../hooks/useApi';
import { downloadFile } from '../../lib/download';
import { useRoute } from '../../router';
import {
  parseRunsParams,
  runsParamsToRecord,
  type RunsParams,
  type RunsParamsPatch,
} from './shape';

/** The view's state in the URL hash, with a merge-style updater. */
export function useRunsParams(): [RunsParams, (patch: RunsParamsPatch) => void] {
  const [route, navigate] = useRoute();
  const params = parseRunsParams(route.params);
  const update = useCallback(
    (patch: RunsParamsPatch) => {
      // Read the live hash, not the render's copy: two updates in one event must not drop one.
      const query = window.location.hash.split('?')[1] ?? '';
      const current = parseRunsParams(new URLSearchParams(query));
      navigate('runs', runsParamsToRecord({ ...current, ...patch }));
    },
    [navigate],
  );
  return [params, update];
}

interface SummariesSettled {
  request: string;
  /** null: the run's summary could not be read. */
  summaries: Map<string, RunSummary | null>;
}

/**
 * Each listed run's summary (questions, overall F1): absent while it loads, null when it could
 * not be read. The list carries the stored summary of every stopped run (DESIGN §7), so only runs
 * without one (running, or unreadable) are fetched, a few at a time; the request key includes
 * status and end time so a run that finished since is fetched again.
 */
export function useRunSummaries(
  runs: readonly RunListItem[] | undefined,
): Map<string, RunSummary | null> | null {
  const client = useClient();
  const [settled, setSettled] = useState<SummariesSettled | null>(null);
  const missing = runs?.filter((r) => r.summary === null || r.status === 'running');
  const request = missing
    ? missing.map((r) => `${r.id}|${r.status}|${r.endedAt ?? ''}`).join('\n')
    : null;

  useEffect(() => {
    if (request === null) return undefined;
    let cancelled = false;
    const queue = request
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('|')[0] ?? '');
    const summaries = new Map<string, RunSummary | null>();
    const worker = async (): Promise<void> => {
      for (let id = queue.shift(); id !== undefined && !cancelled; id = queue.shift()) {
        try {
          summaries.set(id, (await client.call('runs.summary', { runId: id })).summary);
        } catch {
          // A run that cannot be read shows dashes here (not "…" for ever); selecting it shows
          // the error.
          summaries.set(id, null);
        }
      }
    };
    void Promise.all([worker(), worker(), worker(), worker()]).then(() => {
      if (!cancelled) setSettled({ request, summaries });
    });
    return () => {
      cancelled = true;
    };
  }, [client, request]);

  return useMemo(() => {
    if (!runs) return null;
    const out = new Map<string, RunSummary | null>();
    for (const r of runs)
      if (r.summary !== null && r.status !== 'running') out.set(r.id, r.summary);
    // Stored summaries show at once; the fetched ones join when they have all arrived.
    if (settled !== null && settled.request === request) {
      for (const [id, summary] of settled.summaries) out.set(id, summary);
    }
    return out;
  }, [runs, settled, request]);
}

/** The first page is small so a full run's first rows show at once; the rest come in big ones. */
const FIRST_ANSWERS_PAGE = 100;

/** The selected run's first answers page, asked for beside its runs.get (one at a time). */
let prefetched: {
  client: ApiClient;
  runId: string;
  page: Promise<ApiOutput<'runs.answersPage'>>;
} | null = null;

/**
 * Asks for the selected run's first answers page at once, beside its runs.get, so the first rows
 * do not wait for the run to load, render and only then ask (useFinalAnswers takes the page).
 * The selection changing or the view closing drops a page nobody took.
 */
export function usePrefetchFirstAnswers(runId: string | null): void {
  const client = useClient();
  useEffect(() => {
    if (runId === null) return undefined;
    const page = client.call('runs.answersPage', { runId, offset: 0, limit: FIRST_ANSWERS_PAGE });
    // Not seen here: useFinalAnswers shows the error if it takes this page.
    page.catch(() => undefined);
    const mine = { client, runId, page };
    prefetched = mine;
    return () => {
      if (prefetched === mine) prefetched = null;
    };
  }, [client, runId]);
}

/** The prefetched first page of this run, once. */
function takePrefetched(
  client: ApiClient,
  runId: string,
): Promise<ApiOutput<'runs.answersPage'>> | null {
  if (prefetched === null || prefetched.client !== client || prefetched.runId !== runId)
    return null;
  const { page } = prefetched;
  prefetched = null;
  return page;
}

interface AnswersSettled {
  runId: string;
  answers: AnswerRecord[];
  total: number;
  error?: ErrorPayload;
}

/**
 * A run's final answers, page by page in the background (`runs.answersPage`): the first rows show
 * without waiting for a full run's ~2 MB, and the rest join as they arrive. `total` is null until
 * the first page; sorting and filtering cover every answer once `answers.length === total`.
 */
export function useFinalAnswers(runId: string): {
  answers: AnswerRecord[] | undefined;
  total: number | null;
  error: ErrorPayload | undefined;
} {
  const client = useClient();
  const [settled, setSettled] = useState<AnswersSettled | null>(null);

  useEffect(() => {
    let cancelled = false;
    void (async () => {
      let answers: AnswerRecord[] = [];
      let limit = FIRST_ANSWERS_PAGE;
      let first = takePrefetched(client, runId);
      try {
        for (;;) {
          const page = await (first ??
            client.call('runs.answersPage', { runId, offset: answers.length, limit }));
          first = null;
          if (cancelled) return;
          answers = [...answers, ...page.answers];
          setSettled({ runId, answers, total: page.total });
          if (page.answers.length === 0 || answers.length >= page.total) return;
          limit = MAX_ANSWERS_PAGE;
        }
      } catch (error) {
        if (!cancelled) {
          setSettled({ runId, answers, total: answers.length, error: toErrorPayload(error) });
        }
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [client, runId]);

  const mine = settled?.runId === runId ? settled : null;
  return {
    answers: mine === null || (mine.error && mine.answers.length === 0) ? undefined : mine.answers,
    total: mine?.total ?? null,
    error: mine?.error,
  };
}

/**
 * The sample a run's question came from, found through the dataset's sha256: the run stores the
 * file's path on the engine, but only an open dataset can be read.
 */
/** Folder files asked to open, by path: one request per file per page, whoever asks first. */
const folderOpens = new Map<string, Promise<unknown>>();

function fileName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

/**
 * The sample a run's answers cite, from the open dataset with the run's sha256. When none is open
 * but the run's file lies in the server's dataset folder (a CLI run's `--data`), that file is
 * opened, so its turns show without a trip to the Datasets view; the sha256 still decides.
 */
export function useRunSample(
  sha256: string | null,
  sampleId: string | null,
  datasetPath: string | null = null,
) {
  const client = useClient();
  const datasets = useApi('datasets.list', {});
  const dataset = sha256 === null ? undefined : datasets.data?.find((d) => d.sha256 === sha256);
  const missing = sha256 !== null && datasets.data !== undefined && dataset === undefined;
  const folder = useApi('datasets.folderFiles', missing && datasetPath !== null ? {} : null);
  const inFolder =
    datasetPath === null
      ? undefined
      : (folder.data?.find((f) => f.path === datasetPath) ??
        folder.data?.find((f) => f.name === fileName(datasetPath)));
  const reloadDatasets = datasets.reload;
  useEffect(() => {
    if (!missing || inFolder === undefined) return undefined;
    let stop = false;
    let opening = folderOpens.get(inFolder.path);
    if (opening === undefined) {
      // A file that fails to open stays unopened; the answers show bare turn ids, as before.
      opening = client.call('datasets.open', { path: inFolder.path }).catch(() => undefined);
      folderOpens.set(inFolder.path, opening);
    }
    void opening.then(() => {
      if (!stop) reloadDatasets();
    });
    return () => {
      stop = true;
    };
  }, [client, missing, inFolder, reloadDatasets]);
  const sample = useApi(
    'datasets.sample',
    dataset && sampleId !== null ? { datasetId: dataset.datasetId, sampleId } : null,
  );
  return {
    /** Undefined while the list loads; null when no open dataset matches. */
    dataset: datasets.data === undefined ? undefined : (dataset ?? null),
    sample: sample.data && sample.data.sampleId === sampleId ? sample.data : null,
    loading: datasets.loading || sample.loading,
    error: datasets.error ?? sample.error,
  };
}

/** Export and delete: calls with a busy flag and an error to show. */
export function useRunActions(onDeleted: (runId: string) => void) {
  const client = useClient();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<ErrorPayload | null>(null);

  const exportRun = useCallback(
    async (runId: string, format: 'csv' | 'json' | 'html') => {
      setBusy(`export-${format}`);
      setError(null);
      try {
        downloadFile(await client.call('runs.export', { runId, format }));
      } catch (e) {
        setError(toErrorPayload(e));
      } finally {
        setBusy(null);
      }
    },
    [client],
  );

  const deleteRun = useCallback(
    async (runId: string) => {
      setBusy('delete');
      setError(null);
      try {
        await client.call('runs.delete', { runId });
        onDeleted(runId);
      } catch (e) {
        setError(toErrorPayload(e));
      } finally {
        setBusy(null);
      }
    },
    [client, onDeleted],
  );

  return { busy, error, exportRun, deleteRun, clearError: () => setError(null) };
}
