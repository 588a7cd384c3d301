import { useCallback, useEffect, useRef, useState } from 'react';
import type { CollectionDesign, PlaygroundResult } from '@shared/designs';
import { toErrorPayload, type ErrorPayload } from '@shared/errors';
import { useClient } from '../../api/context';
import { useRoute } from '../../router';
import {
  checkedPlaygroundResult,
  collectionsParamsToRecord,
  parseCollectionsParams,
  type CollectionsParams,
  type CollectionsParamsPatch,
  type PlaygroundProgress,
} from './shape';

/** The view's state in the URL hash (chosen design, dataset and sample), merge-style updates. */
export function useCollectionsParams(): [
  CollectionsParams,
  (patch: CollectionsParamsPatch) => void,
] {
  const [route, navigate] = useRoute();
  const params = parseCollectionsParams(route.params);
  const update = useCallback(
    (patch: CollectionsParamsPatch) => {
      // Read the live hash, not the render's copy: two updates in one event must not drop one.
      const query = window.location.hash.split('?')[1] ?? '';
      const current = parseCollectionsParams(new URLSearchParams(query));
      navigate('collections', collectionsParamsToRecord({ ...current, ...patch }));
    },
    [navigate],
  );
  return [params, update];
}

export interface BuiltPlayground {
  playgroundId: string;
  total: number;
  datasetId: string;
  sampleId: string;
  /** The design as built: the editor compares against it to say the playground is stale. */
  design: CollectionDesign;
}

/** Progress events kept per playground (only the last few builds matter). */
const KEPT_PROGRESS = 6;

/**
 * The playground this view built: starts builds, follows their progress events, disposes the
 * previous playground when a new one is built and the current one when the view goes away.
 * Events can arrive before the build call answers, so they are kept by id and matched after.
 */
export function usePlayground(): {
  built: BuiltPlayground | null;
  progress: PlaygroundProgress | null;
  buildError: ErrorPayload | null;
  building: boolean;
  build: (datasetId: string, sampleId: string, design: CollectionDesign) => Promise<void>;
} {
  const client = useClient();
  const [built, setBuilt] = useState<BuiltPlayground | null>(null);
  const [events, setEvents] = useState<Record<string, PlaygroundProgress>>({});
  const [buildError, setBuildError] = useState<ErrorPayload | null>(null);
  const [requesting, setRequesting] = useState(false);
  const current = useRef<string | null>(null);

  useEffect(
    () =>
      client.onEvent((event) => {
        if (event.type !== 'playground-progress') return;
        setEvents((old) => {
          const kept = Object.entries(old).slice(-(KEPT_PROGRESS - 1));
          return { ...Object.fromEntries(kept), [event.playgroundId]: event };
        });
      }),
    [client],
  );

  useEffect(() => {
    const holder = current;
    return () => {
      const id = holder.current;
      if (id !== null) void client.call('playground.dispose', { playgroundId: id }).catch(() => {});
    };
  }, [client]);

  const build = useCallback(
    async (datasetId: string, sampleId: string, design: CollectionDesign) => {
      const previous = current.current;
      setBuildError(null);
      setRequesting(true);
      try {
        const { playgroundId, total } = await client.call('playground.build', {
          datasetId,
          sampleId,
          design,
        });
        current.current = playgroundId;
        setBuilt({ playgroundId, total, datasetId, sampleId, design });
        if (previous !== null) {
          void client.call('playground.dispose', { playgroundId: previous }).catch(() => {});
        }
      } catch (error) {
        setBuildError(toErrorPayload(error));
      } finally {
        setRequesting(false);
      }
    },
    [client],
  );

  const progress =
    built === null
      ? null
      : (events[built.playgroundId] ?? {
          type: 'playground-progress' as const,
          playgroundId: built.playgroundId,
          inserted: 0,
          total: built.total,
          done: false,
        });
  const failed = progress?.error ?? null;
  return {
    built,
    progress,
    buildError: buildError ?? failed,
    building: requesting || (progress !== null && !progress.done),
    build,
  };
}

interface QuerySettled {
  request: string;
  data?: PlaygroundResult;
  error?: ErrorPayload;
}

/** Runs playground queries; the latest request wins, an earlier answer arriving late is ignored. */
export function usePlaygroundQuery(): {
  result: PlaygroundResult | null;
  error: ErrorPayload | null;
  loading: boolean;
  /** `questionIndex`: the sample's question whose evidence the hits are scored against. */
  run: (playgroundId: string, query: string, topK: number, questionIndex: number | null) => void;
  clear: () => void;
} {
  const client = useClient();
  const [request, setRequest] = useState<string | null>(null);
  const [settled, setSettled] = useState<QuerySettled | null>(null);
  const counter = useRef(0);

  const run = useCallback(
    (playgroundId: string, query: string, topK: number, questionIndex: number | null) => {
      const id = `${++counter.current}`;
      setRequest(id);
      client
        .call('playground.query', {
          playgroundId,
          query,
          topK,
          ...(questionIndex === null ? {} : { questionIndex }),
        })
        .then(checkedPlaygroundResult)
        .then((data) =>
          setSettled((old) => (id === `${counter.current}` ? { request: id, data } : old)),
        )
        .catch((error: unknown) =>
          setSettled((old) =>
            id === `${counter.current}` ? { request: id, error: toErrorPayload(error) } : old,
          ),
        );
    },
    [client],
  );
  const clear = useCallback(() => {
    counter.current++;
    setRequest(null);
    setSettled(null);
  }, []);

  const mine = settled !== null && settled.request === request ? settled : null;
  return {
    result: mine?.data ?? null,
    error: mine?.error ?? null,
    loading: request !== null && mine === null,
    run,
    clear,
  };
}
