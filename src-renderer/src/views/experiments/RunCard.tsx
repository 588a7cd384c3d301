import { useMemo, useState } from 'react';
import { DEFAULT_SCHEME, schemeLabelOf, type SchemeId } from '@shared/benchmarks';
import type { ErrorPayload } from '@shared/errors';
import { CategoryChart } from '../../components/charts/CategoryChart';
import { categoryChartRows, METRIC_LABELS } from '../../components/charts/categoryRows';
import { ErrorView } from '../../components/ErrorView';
import { SchemeToggle } from '../../components/SchemeToggle/SchemeToggle';
import { useLiveDetail } from './hooks';
import {
  isActive,
  overallFraction,
  remainingMs,
  testCounts,
  totalPacketsInserted,
  type LiveStatus,
  type RunProgress,
} from '@shared/liveProgress';
import { formatEta, percent } from './shape';

const STATUS_LABELS: Record<LiveStatus, string> = {
  running: 'running',
  cancelling: 'cancelling…',
  completed: 'completed',
  degraded: 'degraded',
  cancelled: 'cancelled',
  failed: 'failed',
  interrupted: 'interrupted',
  paused: 'paused',
};

const RESUMABLE: ReadonlySet<LiveStatus> = new Set([
  'cancelled',
  'interrupted',
  'failed',
  'paused',
]);

export function StatusBadge({ status }: { status: LiveStatus }) {
  return <span className={`status-badge status-${status}`}>{STATUS_LABELS[status]}</span>;
}

export function ProgressBar({
  fraction,
  label,
  status,
  small = false,
}: {
  fraction: number;
  label: string;
  status: LiveStatus;
  small?: boolean;
}) {
  const value = percent(fraction);
  return (
    <div
      className={`progress-track${small ? ' progress-small' : ''} progress-${status}`}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={value}
      aria-valuetext={`${value}%`}
    >
      <div className="progress-fill" style={{ width: `${value}%` }} />
    </div>
  );
}

/** What went wrong in a run: failed samples with why, and answer errors by message. */
function RunErrors({ run }: { run: RunProgress }) {
  const failed = run.sampleIds
    .map((id) => run.samples[id])
    .filter((s) => s !== undefined && s.error !== null);
  const listed = run.errorMessages.reduce((sum, t) => sum + t.count, 0);
  if (failed.length === 0 && run.errorMessages.length === 0 && run.insertErrors === 0) return null;
  const titleId = `run-${run.runId}-errors`;
  return (
    <section className="run-errors" aria-labelledby={titleId}>
      <h4 id={titleId}>Errors</h4>
      <ul>
        {failed.map((s) => (
          <li key={`sample-${s?.sampleId}`}>
            Sample <code>{s?.sampleId}</code> failed: {s?.error}
          </li>
        ))}
        {run.errorMessages.map((t) => (
          <li key={`answer-${t.message}`}>
            {t.count} {t.count === 1 ? 'answer' : 'answers'}: {t.message}
          </li>
        ))}
        {run.answerErrors > listed ? (
          <li className="muted">
            {run.answerErrors - listed} more answer errors with other messages
          </li>
        ) : null}
        {run.insertErrors > 0 ? (
          <li>
            {run.insertErrors} {run.insertErrors === 1 ? 'insert' : 'inserts'} failed (the
            run&apos;s manifest in Runs lists them)
          </li>
        ) : null}
      </ul>
    </section>
  );
}

export function RunCard({
  run,
  now,
  onCancel,
  onResume,
  onOpen,
  actionError,
}: {
  run: RunProgress;
  now: number;
  onCancel: () => void;
  onResume: () => void;
  onOpen: () => void;
  actionError: ErrorPayload | null;
}) {
  const active = isActive(run);
  const detail = useLiveDetail(run.runId, run.testsCommitted, !active);
  const [scheme, setScheme] = useState<SchemeId>(DEFAULT_SCHEME);
  const fraction = overallFraction(run);
  const tests = testCounts(run);
  const elapsed =
    run.elapsedMs ?? (run.startedAt !== null && active ? Math.max(0, now - run.startedAt) : null);
  const eta = remainingMs(run, now);
  const finished = run.status === 'completed' || run.status === 'degraded';
  // A finished run's own event carries its final summary; a fetched one may predate it (the
  // fetch is throttled, and a short run ends before the next one is allowed).
  const summary = finished && run.summary ? run.summary : (detail?.summary ?? run.summary);
  // The run's benchmark names its categories: no chart until its detail says which it is.
  const benchmark = detail?.benchmark ?? null;
  const preset = detail?.info.preset;
  // The chart changes only when a summary does (a committed test), not with every progress event.
  const chart = useMemo(
    () =>
      benchmark && summary && summary.questions > 0 ? (
        <CategoryChart
          rows={categoryChartRows([{ key: 'run', summary }], {
            metric: 'officialF1',
            scheme,
            benchmark,
          })}
          series={[{ key: 'run', label: 'this run' }]}
          metricLabel={METRIC_LABELS.officialF1}
          schemeLabel={schemeLabelOf(benchmark, scheme)}
          subject={
            finished
              ? 'final answers'
              : `the latest answer to each question so far (${summary.questions} questions)`
          }
          height={200}
        />
      ) : null,
    [summary, scheme, benchmark, finished],
  );
  const titleId = `run-${run.runId}-title`;

  return (
    <article className="panel run-card" aria-labelledby={titleId} data-run-id={run.runId}>
      <header className="run-card-header">
        <div>
          <h3 id={titleId}>
            Run <code>{run.runId}</code>
          </h3>
          <div className="muted run-card-sub">
            {preset ? (
              <>
                preset <strong>{preset}</strong> ·{' '}
              </>
            ) : null}
            {run.sampleIds.length} {run.sampleIds.length === 1 ? 'sample' : 'samples'}
            {run.resumed ? ' · resumed' : ''}
            {run.partial ? ' · joined while running' : ''}
          </div>
        </div>
        <div className="run-card-actions">
          <StatusBadge status={run.status} />
          {active ? (
            <button type="button" onClick={onCancel} disabled={run.status === 'cancelling'}>
              {run.status === 'cancelling' ? 'Cancelling…' : 'Cancel'}
            </button>
          ) : null}
          {RESUMABLE.has(run.status) ? (
            <button type="button" onClick={onResume}>
              Resume
            </button>
          ) : null}
          {!active ? (
            <button type="button" className={finished ? 'primary' : undefined} onClick={onOpen}>
              Open results
            </button>
          ) : null}
        </div>
      </header>

      <ProgressBar fraction={fraction} status={run.status} label={`Run ${run.runId} progress`} />
      <dl className="run-stats">
        <div>
          <dt>Progress</dt>
          <dd>{percent(fraction)}%</dd>
        </div>
        <div>
          <dt>Packets inserted</dt>
          <dd>
            {totalPacketsInserted(run)} / {run.totalPackets}
          </dd>
        </div>
        <div>
          <dt>Tests committed</dt>
          <dd>
            {tests.done} / {tests.total}
          </dd>
        </div>
        <div>
          <dt>Questions answered</dt>
          <dd>
            {run.questionsAnswered}
            {run.currentTest ? (
              <span className="muted">
                {' '}
                (test {run.currentTest.testIndex}: {run.currentTest.done}/{run.currentTest.total})
              </span>
            ) : null}
          </dd>
        </div>
        <div>
          <dt>Errors</dt>
          <dd className={run.answerErrors + run.insertErrors > 0 ? 'has-errors' : undefined}>
            {run.answerErrors}
            {run.insertErrors > 0 ? (
              <span className="muted"> + {run.insertErrors} inserts</span>
            ) : null}
          </dd>
        </div>
        <div>
          <dt>Elapsed</dt>
          <dd>{formatEta(elapsed)}</dd>
        </div>
        <div>
          <dt>ETA</dt>
          <dd aria-label="Estimated time remaining">{active ? formatEta(eta) : '—'}</dd>
        </div>
      </dl>
      {run.message ? (
        <p role="alert" className="run-failed">
          <strong>{run.status === 'degraded' ? 'Degraded:' : 'The run failed:'}</strong>{' '}
          {run.message}
        </p>
      ) : null}
      {run.status === 'cancelled' ? (
        <p role="status" className="run-stopped">
          <strong>Cancelled:</strong> {run.stopReason ?? 'the run was cancelled'}. {tests.done} of{' '}
          {tests.total} tests were committed; answers of a test still in flight were not kept
          (Resume asks them again).
        </p>
      ) : null}
      <RunErrors run={run} />
      {actionError ? <ErrorView error={actionError} /> : null}

      <div className="run-card-body">
        <table className="sample-progress">
          <caption className="sr-only">Samples of run {run.runId}</caption>
          <thead>
            <tr>
              <th scope="col">Sample</th>
              <th scope="col">Packets inserted</th>
              <th scope="col" className="num">
                Tests
              </th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {run.sampleIds.map((id) => {
              const s = run.samples[id];
              if (!s) return null;
              return (
                <tr key={id}>
                  <td>
                    <code>{id}</code>
                  </td>
                  <td>
                    <div className="sample-bar">
                      <ProgressBar
                        small
                        status={run.status}
                        fraction={s.totalPackets > 0 ? s.packetsInserted / s.totalPackets : 0}
                        label={`${id} packets inserted`}
                      />
                      <span className="num">
                        {s.totalPackets > 0 ? `${s.packetsInserted}/${s.totalPackets}` : '—'}
                      </span>
                    </div>
                  </td>
                  <td className="num">
                    {s.plannedTests > 0 ? `${s.testsCommitted}/${s.plannedTests}` : '—'}
                  </td>
                  <td>
                    <span className={`sample-status sample-${s.status}`}>{s.status}</span>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>

        <section className="live-chart" aria-label={`Run ${run.runId} per-category scores`}>
          <div className="live-chart-head">
            <h4>
              {METRIC_LABELS.officialF1} by category{' '}
              <span className="muted">{finished ? '· final' : '· so far'}</span>
            </h4>
            {benchmark ? (
              <SchemeToggle profile={benchmark} value={scheme} onChange={setScheme} small />
            ) : null}
          </div>
          {chart ?? (
            <p className="muted chart-empty">
              No test committed yet: the chart fills in as tests commit.
            </p>
          )}
        </section>
      </div>
    </article>
  );
}
