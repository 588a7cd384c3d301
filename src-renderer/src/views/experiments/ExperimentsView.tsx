import { useCallback, useMemo, useState } from 'react';
import type { ApiInput } from '@shared/api';
import type { ErrorPayload } from '@shared/errors';
import { toErrorPayload } from '@shared/errors';
import { ErrorView } from '../../components/ErrorView';
import { useApi } from '../../hooks/useApi';
import { useRoute } from '../../router';
import { useLiveProgress, useNow } from './hooks';
import { isActive, runsNewestFirst } from '@shared/liveProgress';
import { RunCard, StatusBadge } from './RunCard';
import { RunForm } from './RunForm';

export function ExperimentsView() {
  const [route, navigate] = useRoute();
  const datasets = useApi('datasets.list', {});
  const presets = useApi('memory.presets', {});
  const unfinished = useApi('runs.list', {});
  const live = useLiveProgress();
  const runs = useMemo(() => runsNewestFirst(live.runs), [live.runs]);
  const now = useNow(runs.some(isActive));

  const wanted = route.params.get('dataset');
  const list = datasets.data ?? [];
  const dataset = list.find((d) => d.datasetId === wanted) ?? list[0] ?? null;

  const [starting, setStarting] = useState(false);
  const [startError, setStartError] = useState<ErrorPayload | null>(null);
  const [actionErrors, setActionErrors] = useState<Record<string, ErrorPayload>>({});
  const { start, cancel, resume } = live;

  const onRun = useCallback(
    (config: ApiInput<'experiments.start'>) => {
      setStarting(true);
      setStartError(null);
      start(config)
        .catch((error: unknown) => setStartError(toErrorPayload(error)))
        .finally(() => setStarting(false));
    },
    [start],
  );
  const act = useCallback((runId: string, action: () => Promise<void>) => {
    setActionErrors(({ [runId]: _, ...rest }) => rest);
    action().catch((error: unknown) =>
      setActionErrors((errors) => ({ ...errors, [runId]: toErrorPayload(error) })),
    );
  }, []);
  const openResults = useCallback((runId: string) => navigate('runs', { run: runId }), [navigate]);

  // Runs stopped before this window saw them (a crash, an earlier session): offered for resume.
  const resumable = (unfinished.data ?? []).filter(
    (r) =>
      (r.status === 'interrupted' ||
        r.status === 'cancelled' ||
        r.status === 'failed' ||
        r.status === 'paused') &&
      live.runs[r.id] === undefined,
  );

  return (
    <section className="experiments-view" aria-labelledby="view-title">
      <header className="view-header">
        <h1 id="view-title">Experiments</h1>
        <p className="muted">
          Feed a conversation to a memory preset packet by packet and re-ask the visible questions
          as it grows.
        </p>
      </header>
      {datasets.error ? <ErrorView error={datasets.error} title="Could not list datasets" /> : null}

      <div className="experiments-grid">
        <div className="experiments-form-col">
          {dataset === null ? (
            datasets.data === undefined ? (
              <p className="muted" role="status">
                Loading datasets…
              </p>
            ) : (
              <div className="panel empty-state">
                <p>
                  <strong>No dataset open.</strong>
                </p>
                <p className="muted">
                  Open a LoCoMo file in{' '}
                  <a
                    href="#/datasets"
                    onClick={(event) => {
                      event.preventDefault();
                      navigate('datasets');
                    }}
                  >
                    Datasets
                  </a>{' '}
                  first; then choose its samples here.
                </p>
              </div>
            )
          ) : (
            <RunForm
              datasets={list}
              dataset={dataset}
              onDatasetChange={(id) => navigate('experiments', { dataset: id })}
              presets={presets.data}
              presetsError={presets.error}
              busy={starting}
              error={startError}
              onRun={onRun}
            />
          )}
          {resumable.length > 0 ? (
            <section className="panel" aria-labelledby="unfinished-title">
              <h2 id="unfinished-title">Unfinished runs</h2>
              <ul className="unfinished-list">
                {resumable.map((r) => (
                  <li key={r.id}>
                    <code>{r.id}</code> <span className="muted">{r.preset}</span>{' '}
                    <StatusBadge status={r.status} />
                    <button
                      type="button"
                      className="small"
                      onClick={() => act(r.id, () => resume(r.id))}
                    >
                      Resume
                    </button>
                    {actionErrors[r.id] ? <ErrorView error={actionErrors[r.id]!} /> : null}
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
        </div>

        <section className="experiments-runs-col" aria-labelledby="live-title">
          <h2 id="live-title">Runs in this session</h2>
          {runs.length === 0 ? (
            <div className="panel empty-state">
              <p className="muted">
                No run yet. Start one with the form; its progress appears here and continues in the
                background if you leave this view.
              </p>
            </div>
          ) : (
            runs.map((run) => (
              <RunCard
                key={run.runId}
                run={run}
                now={now}
                actionError={actionErrors[run.runId] ?? null}
                onCancel={() => act(run.runId, () => cancel(run.runId))}
                onResume={() => act(run.runId, () => resume(run.runId))}
                onOpen={() => openResults(run.runId)}
              />
            ))
          )}
        </section>
      </div>
    </section>
  );
}
