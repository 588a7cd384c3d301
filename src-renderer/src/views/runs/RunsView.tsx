import { useCallback, useMemo, useState } from 'react';
import { EmptyState } from '../../components/EmptyState/EmptyState';
import { ErrorView } from '../../components/ErrorView';
import { useApi } from '../../hooks/useApi';
import { useRoute } from '../../router';
import { StatusBadge } from '../experiments/RunCard';
import { ConfirmDialog } from './ConfirmDialog';
import { usePrefetchFirstAnswers, useRunActions, useRunSummaries, useRunsParams } from './hooks';
import { RunDetail } from './RunDetail';
import { RunIdentityEditor } from './RunIdentity';
import { RunScoreActions } from './RunScoreActions';
import { RunsTable, type RunRow } from './RunsTable';
import { runMarks } from './runSets';
import { useOpenedRun } from './useOpenedRun';

export function RunsView() {
  const [params, update] = useRunsParams();
  const [, navigate] = useRoute();
  const list = useApi('runs.list', {});
  const summaries = useRunSummaries(list.data);
  const rows = useMemo<RunRow[]>(() => {
    const listed = [...(list.data ?? [])]
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0))
      .map((r) => ({ ...r, summary: summaries?.get(r.id) }));
    const marks = runMarks(listed);
    return listed.map((r) => ({ ...r, mark: marks.get(r.id) }));
  }, [list.data, summaries]);
  // The newest run is shown until one is picked; the URL only records an explicit choice.
  const selectedId = rows.some((r) => r.id === params.run) ? params.run : (rows[0]?.id ?? null);
  const detail = useApi('runs.get', selectedId === null ? null : { runId: selectedId });
  usePrefetchFirstAnswers(selectedId);
  const shown = detail.data && detail.data.info.id === selectedId ? detail.data : undefined;
  const { detailRef, headingRef, open: openRun } = useOpenedRun(params.run, shown?.info.id);

  const [confirming, setConfirming] = useState(false);
  const reloadList = list.reload;
  const onDeleted = useCallback(() => {
    setConfirming(false);
    update({ run: null, question: null });
    reloadList();
  }, [reloadList, update]);
  const actions = useRunActions(onDeleted);
  const onSelectRun = useCallback(
    (run: string) => {
      openRun(run);
      update({ run, question: null });
    },
    [openRun, update],
  );
  const onRunSort = useCallback((runSort: string | null) => update({ runSort }), [update]);

  return (
    <section className="runs-view" aria-labelledby="view-title">
      <header className="view-header">
        <h1 id="view-title">Runs</h1>
        <button type="button" onClick={reloadList}>
          Refresh
        </button>
      </header>
      {list.error ? <ErrorView error={list.error} title="Could not list runs" /> : null}

      {list.data === undefined ? (
        list.error ? null : (
          // Not an empty table: "No run matches" would be wrong while the list is on its way.
          <p className="muted" role="status">
            Loading runs…
          </p>
        )
      ) : rows.length === 0 ? (
        <EmptyState title="No runs yet.">
          Start one in{' '}
          <a
            href="#/experiments"
            onClick={(event) => {
              event.preventDefault();
              navigate('experiments');
            }}
          >
            Experiments
          </a>
          .
        </EmptyState>
      ) : (
        <section className="panel" aria-label="Run list">
          <div className="filter-row">
            {/*
              Uncontrolled: the value lives in the URL hash, which updates a tick after each key;
              a controlled input would briefly revert and lose the caret.
            */}
            <input
              type="search"
              aria-label="Search runs"
              placeholder="Search name, tag, sweep, sample, run id, preset, status…"
              defaultValue={params.runSearch}
              onChange={(event) => update({ runSearch: event.currentTarget.value })}
            />
            <label className="inline-field">
              <input
                type="checkbox"
                checked={params.runGroupBySet}
                onChange={(event) => update({ runGroupBySet: event.currentTarget.checked })}
              />
              Group by sample set
            </label>
          </div>
          <RunsTable
            rows={rows}
            selected={selectedId}
            onSelect={onSelectRun}
            sort={params.runSort}
            onSortChange={onRunSort}
            search={params.runSearch}
            groupBySet={params.runGroupBySet}
          />
        </section>
      )}

      {selectedId !== null ? (
        <section ref={detailRef} className="run-detail" aria-labelledby="run-title">
          <header className="run-detail-header">
            <h2 id="run-title" ref={headingRef} tabIndex={-1}>
              Run <code>{selectedId}</code>
            </h2>
            {shown ? <StatusBadge status={shown.info.status} /> : null}
            {shown ? <span className="muted">preset {shown.info.preset}</span> : null}
            <div className="toolbar push-right">
              <button
                type="button"
                disabled={actions.busy !== null}
                onClick={() => void actions.exportRun(selectedId, 'csv')}
              >
                Export CSV
              </button>
              <button
                type="button"
                disabled={actions.busy !== null}
                onClick={() => void actions.exportRun(selectedId, 'json')}
              >
                Export JSON
              </button>
              <button
                type="button"
                disabled={actions.busy !== null}
                title="One HTML file to share: opens offline in any browser"
                onClick={() => void actions.exportRun(selectedId, 'html')}
              >
                Export report
              </button>
              <button
                type="button"
                className="danger-outline"
                disabled={actions.busy !== null || shown?.info.status === 'running'}
                title={
                  shown?.info.status === 'running' ? 'Cancel the run before deleting it' : undefined
                }
                onClick={() => {
                  actions.clearError();
                  setConfirming(true);
                }}
              >
                Delete…
              </button>
            </div>
          </header>
          {actions.error && !confirming ? <ErrorView error={actions.error} /> : null}
          {detail.error ? <ErrorView error={detail.error} title="Could not load the run" /> : null}
          {shown ? (
            // One row for the name and the score actions: the answers start a row sooner.
            <div className="run-detail-bar">
              <RunIdentityEditor
                runId={shown.info.id}
                identity={{ name: shown.info.name, tags: shown.info.tags, notes: shown.info.notes }}
                onSaved={() => {
                  detail.reload();
                  reloadList();
                }}
              />
              <RunScoreActions detail={shown} onRescored={detail.reload} />
            </div>
          ) : null}
          {shown ? (
            <RunDetail detail={shown} params={params} update={update} onRescored={detail.reload} />
          ) : detail.error ? null : (
            <p className="muted" role="status">
              Loading run…
            </p>
          )}
          <ConfirmDialog
            open={confirming}
            title="Delete this run?"
            confirmLabel="Delete"
            busy={actions.busy === 'delete'}
            onCancel={() => setConfirming(false)}
            onConfirm={() => void actions.deleteRun(selectedId)}
          >
            <p>
              Run <code>{selectedId}</code>
              {shown
                ? ` (${shown.info.preset}, ${shown.info.samples} ${shown.info.samples === 1 ? 'sample' : 'samples'})`
                : ''}{' '}
              and all its answers will be removed from the runs database. Export it first if you may
              need it.
            </p>
            {actions.error ? <ErrorView error={actions.error} /> : null}
          </ConfirmDialog>
        </section>
      ) : null}
    </section>
  );
}
