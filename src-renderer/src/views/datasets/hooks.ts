import { useCallback, useEffect, useRef, useState } from 'react';
import type { DatasetFolderFile, DatasetSummary } from '@shared/api';
import { toErrorPayload, type ErrorPayload } from '@shared/errors';
import { useClient } from '../../api/context';
import { useRoute } from '../../router';
import {
  datasetsParamsToRecord,
  formatBytes,
  parseDatasetsParams,
  type DatasetsParams,
  type DatasetsParamsPatch,
} from './shape';

/** The view's state in the URL hash, with a merge-style updater. */
export function useDatasetsParams(): [DatasetsParams, (patch: DatasetsParamsPatch) => void] {
  const [route, navigate] = useRoute();
  const params = parseDatasetsParams(route.params);
  const update = useCallback(
    (patch: DatasetsParamsPatch) => {
      // Read the live hash, not the render's copy: two updates in one event must not drop one.
      const query = window.location.hash.split('?')[1] ?? '';
      const current = parseDatasetsParams(new URLSearchParams(query));
      navigate('datasets', datasetsParamsToRecord({ ...current, ...patch }));
    },
    [navigate],
  );
  return [params, update];
}

export type OpenStatus =
  | { status: 'idle' }
  | { status: 'reading' | 'uploading'; fileName: string; detail: string }
  | { status: 'error'; fileName: string; error: ErrorPayload };

/**
 * Opens a dataset two ways. A file chosen in the page (input or drop): both the desktop app and
 * the browser read the bytes here and upload them, since a File from a browser has no path the
 * engine could read. A file in the server's `--dataset-dir` folders: opened by path on the
 * server, so one too large to upload (LongMemEval M) opens too.
 */
export function useOpenDataset(onOpened: (summary: DatasetSummary) => void): {
  state: OpenStatus;
  lastOpened: DatasetSummary | null;
  open: (file: File) => Promise<void>;
  openFolderFile: (file: DatasetFolderFile) => Promise<void>;
  dismiss: () => void;
} {
  const client = useClient();
  const [state, setState] = useState<OpenStatus>({ status: 'idle' });
  const [lastOpened, setLastOpened] = useState<DatasetSummary | null>(null);
  // A second file chosen while the first is still opening wins; the first answer is ignored.
  const attempt = useRef(0);

  const run = useCallback(
    async (
      fileName: string,
      steps: (
        progress: (status: 'reading' | 'uploading', detail: string) => boolean,
      ) => Promise<DatasetSummary | null>,
    ) => {
      const mine = ++attempt.current;
      const progress = (status: 'reading' | 'uploading', detail: string): boolean => {
        if (mine !== attempt.current) return false;
        setState({ status, fileName, detail });
        return true;
      };
      try {
        const summary = await steps(progress);
        if (summary === null || mine !== attempt.current) return;
        setLastOpened(summary);
        setState({ status: 'idle' });
        onOpened(summary);
      } catch (error) {
        if (mine !== attempt.current) return;
        setState({ status: 'error', fileName, error: toErrorPayload(error) });
      }
    },
    [onOpened],
  );

  const open = useCallback(
    (file: File) =>
      run(file.name, async (progress) => {
        progress('reading', formatBytes(file.size));
        const content = await file.text();
        if (!progress('uploading', 'validating')) return null;
        return client.call('datasets.upload', { name: file.name, content });
      }),
    [client, run],
  );

  const openFolderFile = useCallback(
    (file: DatasetFolderFile) =>
      run(file.name, async (progress) => {
        progress('reading', `${formatBytes(file.bytes)} on the server`);
        return client.call('datasets.open', { path: file.path });
      }),
    [client, run],
  );

  const dismiss = useCallback(() => setState({ status: 'idle' }), []);
  return { state, lastOpened, open, openFolderFile, dismiss };
}

interface SpeakersSettled {
  request: string;
  speakers: Map<string, string>;
}

/**
 * Speaker names per sample. The dataset summary's stats carry no speakers, so they come from the
 * samples themselves, fetched a few at a time; the table shows a placeholder until they arrive.
 */
export function useSampleSpeakers(
  datasetId: string | null,
  sampleIds: readonly string[],
): Map<string, string> | null {
  const client = useClient();
  const [settled, setSettled] = useState<SpeakersSettled | null>(null);
  const request = datasetId === null ? null : `${datasetId}:${sampleIds.join('\u0000')}`;

  useEffect(() => {
    if (datasetId === null || request === null) return undefined;
    let cancelled = false;
    const ids = request
      .slice(datasetId.length + 1)
      .split('\u0000')
      .filter(Boolean);
    const speakers = new Map<string, string>();
    const queue = [...ids];
    const worker = async (): Promise<void> => {
      for (let id = queue.shift(); id !== undefined && !cancelled; id = queue.shift()) {
        try {
          const sample = await client.call('datasets.sample', { datasetId, sampleId: id });
          speakers.set(id, sample.speakers.join(' & '));
        } catch {
          // A sample that cannot be read shows as unknown here; opening it shows the error.
          speakers.set(id, '?');
        }
      }
    };
    void Promise.all([worker(), worker(), worker(), worker()]).then(() => {
      if (!cancelled) setSettled({ request, speakers });
    });
    return () => {
      cancelled = true;
    };
  }, [client, datasetId, request]);

  return settled !== null && settled.request === request ? settled.speakers : null;
}
