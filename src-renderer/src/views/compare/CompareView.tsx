import { useCallback, useDeferredValue, useEffect, useMemo, useRef } from 'react';
import { isCompareMetric, type Flip, type QuestionSets, type RunComparison } from '@shared/compare';
import { metricList } from '@shared/metrics';
import type { FairnessWarning } from '@shared/fairness';
import { categoryLabel, type BenchmarkProfile, type SchemeId } from '@shared/benchmarks';
import { ErrorView } from '../../components/ErrorView';
import { isTypingOrModified } from '../../lib/rowKeys';
import { SchemeToggle } from '../../components/SchemeToggle/SchemeToggle';
import { CategoryPanel } from './CategoryPanel';
import { ConfigDiffTable } from './ConfigDiffTable';
import { CostPanel } from './CostPanel';
import { FlipDetail } from './FlipDetail';
import { flipKeyAction, stepOpen } from './flipDetail';
import { FlipSummary } from './FlipSummary';
import {
  useComparableRuns,
  useCompareExport,
  useCompareParams,
  useComparison,
  type CompareExportFormat,
  type ExportState,
} from './hooks';
import { QuestionTable } from './QuestionTable';
import { RunPicker } from './RunPicker';
import {
  FLIPS,
  METRICS,
  METRIC_LABELS,
  MAX_COMPARED_RUNS,
  buildQuestionRows,
  categoryCounts,
  filterQuestionRows,
  flipChipCounts,
  formatCount,
  parseCompareParams,
  runLetter,
  sampleCounts,
  onlyFlip,
  toggleFlip,
  toggleRun,
  type CompareParams,
  type CompareParamsPatch,
  type QuestionRow,
} from './shape';

export function CompareView() {
  const [params, update] = useCompareParams();
  const runs = useComparableRuns();
  const result = useComparison(params);
  const exporter = useCompareExport(params);

  // Set by the pick that makes a pair: the comparison it opens takes the view and the focus.
  const focusResults = useRef(false);
  const onToggle = useCallback(
    (runId: string) => {
      // The live hash, not the render's params: a quick second click must see the first.
      const live = parseCompareParams(
        new URLSearchParams(window.location.hash.split('?')[1] ?? ''),
      );
      const next = toggleRun(live, runId);
      if (live.runs.length < 2 && next.runs.length >= 2) focusResults.current = true;
      update(next);
    },
    [update],
  );
  const onBaseline = useCallback((runId: string) => update({ baseline: runId }), [update]);

  const comparison = result.data?.comparison ?? null;
  // The baseline run's benchmark names the categories (LongMemEval's question types).
  const profile = result.data?.benchmark ?? null;
  const ready = result.requested && comparison !== null;
  const resultsRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!ready || !focusResults.current) return;
    focusResults.current = false;
    resultsRef.current?.focus({ preventScroll: true });
    resultsRef.current?.scrollIntoView({ block: 'start' });
  }, [ready]);

  return (
    <section className="compare-view" aria-labelledby="view-title">
      <header className="view-header">
        <h1 id="view-title">Compare</h1>
        <div className="toolbar">
          <label className="inline-field">
            Metric
            <select
              value={params.metric}
              onChange={(event) =>
                update({
                  metric: isCompareMetric(event.currentTarget.value)
                    ? event.currentTarget.value
                    : 'officialF1',
                })
              }
            >
              {METRICS.map((m) => (
                <option key={m} value={m}>
                  {METRIC_LABELS[m]}
                </option>
              ))}
            </select>
          </label>
          {/* Its schemes are the compared runs' benchmark's: none to offer before they load. */}
          {profile ? (
            <SchemeToggle
              profile={profile}
              value={params.scheme}
              onChange={(scheme) => update({ scheme })}
            />
          ) : null}
          <ExportButtons
            disabled={!ready}
            state={exporter.state}
            onExport={(format) => void exporter.exportAs(format)}
          />
        </div>
      </header>

      {exporter.state.status === 'error' ? (
        <div className="dismissable">
          <ErrorView error={exporter.state.error} title="Could not export the comparison" />
          <button type="button" onClick={exporter.dismiss}>
            Dismiss
          </button>
        </div>
      ) : null}

      <section className="panel" aria-labelledby="compare-runs-title">
        <h2>
          <span id="compare-runs-title">Runs</span>{' '}
          <span className="muted heading-note">
            · completed or cancelled runs with answers; pick 2 to {MAX_COMPARED_RUNS} and mark one
            as the baseline
          </span>
          <button type="button" className="small-button" onClick={runs.reload}>
            Refresh
          </button>
        </h2>
        {runs.error ? <ErrorView error={runs.error} title="Could not list runs" /> : null}
        {runs.runs === undefined ? (
          runs.error ? null : (
            <p className="muted" role="status">
              Loading runs…
            </p>
          )
        ) : runs.runs.length === 0 ? (
          <p className="muted">
            No finished run yet. Start experiments in the Experiments view; completed runs appear
            here.
          </p>
        ) : (
          <RunPicker
            runs={runs.runs}
            selected={params.runs}
            baseline={params.baseline}
            onToggle={onToggle}
            onBaseline={onBaseline}
          />
        )}
      </section>

      {result.error ? <ErrorView error={result.error} title="Could not compare the runs" /> : null}
      {!result.requested ? (
        <div className="empty-state">
          <p>
            <strong>Pick at least two runs to compare.</strong>
          </p>
          <p className="muted">
            The first one picked is the baseline; every other run is measured against it, question
            by question.
          </p>
        </div>
      ) : comparison === null || profile === null ? (
        result.error ? null : (
          <p className="progress" role="status">
            <span className="spinner" aria-hidden="true" />
            Comparing runs…
          </p>
        )
      ) : (
        <div
          ref={resultsRef}
          className="compare-results"
          tabIndex={-1}
          role="region"
          aria-label="Comparison"
        >
          {result.loading ? (
            <p className="progress" role="status">
              <span className="spinner" aria-hidden="true" />
              Updating…
            </p>
          ) : null}
          <QuestionSetsNotice
            sets={result.data?.questionSets ?? null}
            runs={comparison.runs.length}
          />
          <FairnessNotes warnings={result.data?.fairness ?? []} />
          <FlipSummary comparison={comparison} />
          <CostPanel comparison={comparison} costs={result.data?.costs ?? []} />
          <CategoryPanel
            comparison={comparison}
            scheme={params.scheme}
            profile={profile}
            metric={comparison.metric}
            fairness={result.data?.fairness ?? []}
            questionSets={result.data?.questionSets ?? null}
          />
          <ConfigDiffTable diff={result.data?.configDiff ?? []} runs={comparison.runs} />
          <QuestionsPanel
            comparison={comparison}
            profile={profile}
            params={params}
            update={update}
            datasetPath={
              runs.runs?.find((r) => r.id === comparison.runs[comparison.baselineIndex]?.runId)
                ?.datasetPath ?? null
            }
          />
        </div>
      )}
    </section>
  );
}

/** Runs over different questions are compared on the shared ones; say so, with the counts. */
function QuestionSetsNotice({ sets, runs }: { sets: QuestionSets | null; runs: number }) {
  if (sets === null || sets.perRun.every((n) => n === sets.shared)) return null;
  return (
    <section className="panel notice question-sets" aria-label="Question sets">
      <strong>
        Compared on the {formatCount(sets.shared)} question{sets.shared === 1 ? '' : 's'}{' '}
        {runs === 2 ? 'both runs' : `all ${runs} runs`} answered.
      </strong>{' '}
      {sets.perRun.map((n, i) => `${runLetter(i)}: ${formatCount(n)}`).join(', ')},{' '}
      {formatCount(sets.shared)} shared. Questions only one run answered are left out of every
      number below.
    </section>
  );
}

/** Shown above the numbers: a comparison on unequal terms must say so before it is read. */
function FairnessNotes({ warnings }: { warnings: readonly FairnessWarning[] }) {
  if (warnings.length === 0) return null;
  return (
    <section className="panel fairness-notes" aria-label="Comparison fairness">
      <h2>Not compared on equal terms</h2>
      <ul>
        {warnings.map((w) => (
          <li key={w.message}>{w.message}</li>
        ))}
      </ul>
    </section>
  );
}

function ExportButtons({
  disabled,
  state,
  onExport,
}: {
  disabled: boolean;
  state: ExportState;
  onExport: (format: CompareExportFormat) => void;
}) {
  const busy = state.status === 'exporting';
  return (
    <div className="export-buttons" role="group" aria-label="Export comparison">
      {(['csv', 'json', 'html'] as const).map((format) => (
        <button
          key={format}
          type="button"
          disabled={disabled || busy}
          onClick={() => onExport(format)}
          title={
            format === 'html'
              ? 'One self-contained HTML file: the headline, per-category table and chart'
              : undefined
          }
        >
          {busy && state.format === format
            ? 'Exporting…'
            : format === 'html'
              ? 'Export report'
              : `Export ${format.toUpperCase()}`}
        </button>
      ))}
    </div>
  );
}

const SHORT_METRIC: Record<RunComparison['metric'], string> = Object.fromEntries(
  metricList().map((m) => [m.id, m.short]),
);

function QuestionsPanel({
  comparison,
  profile,
  params,
  update,
  datasetPath,
}: {
  comparison: RunComparison;
  profile: BenchmarkProfile;
  params: CompareParams;
  update: (patch: CompareParamsPatch) => void;
  /** The baseline's dataset file, opened from the server's folder if it is not open. */
  datasetPath: string | null;
}) {
  // Derived once per comparison; the filters below only scan it.
  const allRows = useMemo(() => buildQuestionRows(comparison), [comparison]);
  // Typing stays responsive: the table catches up with the search when React has time.
  const search = useDeferredValue(params.search);
  const { flips, category, sample } = params;
  const rows = useMemo(
    () => filterQuestionRows(allRows, { flips, category, sample, search }),
    [allRows, flips, category, sample, search],
  );
  const chipCounts = useMemo(
    () => flipChipCounts(allRows, { category, sample, search }),
    [allRows, category, sample, search],
  );
  const perCategory = useMemo(() => categoryCounts(allRows, profile), [allRows, profile]);
  const perSample = useMemo(() => sampleCounts(allRows, sample), [allRows, sample]);

  const open = params.open;
  const onToggleRow = useCallback(
    (key: string) => update({ open: open === key ? null : key }),
    [open, update],
  );
  const runIds = useMemo(() => comparison.runs.map((r) => r.runId), [comparison.runs]);
  // The question a key opened: its explanation takes the view and the focus when it mounts.
  const focusOpen = useRef<string | null>(null);
  const claimFocus = useCallback((key: string) => {
    if (focusOpen.current !== key) return false;
    focusOpen.current = null;
    return true;
  }, []);
  const renderExpanded = useCallback(
    (row: QuestionRow) => (
      <FlipDetail
        runIds={runIds}
        baselineIndex={comparison.baselineIndex}
        metric={comparison.metric}
        sampleId={row.sampleId}
        questionIndex={row.questionIndex}
        claimFocus={claimFocus}
        datasetPath={datasetPath}
      />
    ),
    [runIds, comparison.baselineIndex, comparison.metric, claimFocus, datasetPath],
  );

  // j/k step through the rows the filters show (arrows too, inside the table); Esc closes; i/r
  // toggle the improved/regressed filters.
  const tableRef = useRef<HTMLDivElement>(null);
  const panelRef = useRef<HTMLElement>(null);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (isTypingOrModified(event)) return;
      const target = event.target as HTMLElement | null;
      const inTable = target !== null && tableRef.current?.contains(target) === true;
      const action = flipKeyAction(event.key, inTable);
      if (action === null) return;
      // The live hash, not the render's params: a key pressed before the last one re-rendered
      // must step on from where that one left off.
      const { open, flips } = parseCompareParams(
        new URLSearchParams(window.location.hash.split('?')[1] ?? ''),
      );
      // Each key moves the view and the focus to what it changed: the filtered table, or the
      // explanation it opened (FlipDetail takes it when it mounts).
      const table = tableRef.current?.querySelector<HTMLElement>('[tabindex="0"]') ?? null;
      if (action === 'improved' || action === 'regressed') {
        update({ flips: onlyFlip(flips, action) });
        table?.focus({ preventScroll: true });
        panelRef.current?.scrollIntoView({ block: 'start' });
      } else if (action === 'close') {
        if (open === null) return;
        update({ open: null });
        table?.focus({ preventScroll: true });
      } else {
        const next = stepOpen(rows, open, action === 'next' ? 1 : -1);
        if (next !== open) focusOpen.current = next;
        update({ open: next });
      }
      event.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [update, rows]);

  return (
    <section
      ref={panelRef}
      className="panel questions-panel"
      aria-labelledby="compare-questions-title"
    >
      <h2>
        <span id="compare-questions-title">Questions</span>{' '}
        <span className="muted heading-note">
          · aligned by sample and question index; flips against the baseline
        </span>
      </h2>
      <div className="compare-filters">
        <div className="chips" role="group" aria-label="Flip filter">
          {FLIPS.map((flip: Flip) => (
            <button
              key={flip}
              type="button"
              className={`chip flip-chip flip-${flip}`}
              aria-pressed={flips.includes(flip)}
              onClick={() => update({ flips: toggleFlip(flips, flip) })}
            >
              {flip} <span className="chip-count">{formatCount(chipCounts[flip])}</span>
            </button>
          ))}
        </div>
        <CategorySelect
          scheme={params.scheme}
          profile={profile}
          value={category}
          total={allRows.length}
          counts={perCategory}
          onChange={(next) => update({ category: next })}
        />
        <label className="inline-field">
          Sample
          <select
            value={sample ?? ''}
            onChange={(event) => update({ sample: event.currentTarget.value || null })}
          >
            <option value="">All ({formatCount(allRows.length)})</option>
            {perSample.map(({ sampleId, questions }) => (
              <option key={sampleId} value={sampleId}>
                {sampleId} ({formatCount(questions)})
              </option>
            ))}
          </select>
        </label>
        {/*
          Uncontrolled: the value lives in the URL hash, which updates a tick after each key; a
          controlled input would briefly revert and lose the caret.
        */}
        <input
          // Remounted with the pair: a pair change clears the search (shape.ts applyComparePatch).
          key={runIds.join(',') + comparison.baselineIndex}
          type="search"
          aria-label="Search questions"
          placeholder="Search questions, gold, predictions…"
          defaultValue={params.search}
          onChange={(event) => update({ search: event.currentTarget.value })}
        />
        <span className="muted nowrap" aria-live="polite">
          {formatCount(rows.length)} of {formatCount(allRows.length)} questions
        </span>
      </div>
      <p className="muted flip-keys" id="flip-keys-help">
        Why did it flip? Open a row (▸) or press <kbd>j</kbd> / <kbd>k</kbd> for the next / previous
        question shown (<kbd>↓</kbd> / <kbd>↑</kbd> in the table), <kbd>Esc</kbd> to close;{' '}
        <kbd>i</kbd> / <kbd>r</kbd> show only improved / regressed questions.
      </p>
      <div ref={tableRef}>
        <QuestionTable
          rows={rows}
          totalRows={allRows.length}
          runs={comparison.runs}
          baselineIndex={comparison.baselineIndex}
          scheme={params.scheme}
          profile={profile}
          metricShort={SHORT_METRIC[comparison.metric]}
          sort={params.sort}
          onSortChange={(sort) => update({ sort })}
          expanded={open}
          onToggle={onToggleRow}
          renderExpanded={renderExpanded}
        />
      </div>
    </section>
  );
}

function CategorySelect({
  scheme,
  value,
  total,
  counts,
  onChange,
  profile,
}: {
  scheme: SchemeId;
  profile: BenchmarkProfile;
  value: CompareParams['category'];
  total: number;
  counts: ReturnType<typeof categoryCounts>;
  onChange: (next: CompareParams['category']) => void;
}) {
  return (
    <label className="inline-field">
      Category
      <select
        value={value === null ? '' : String(value)}
        onChange={(event) => {
          const n = Number(event.currentTarget.value);
          onChange(event.currentTarget.value !== '' && Number.isInteger(n) ? n : null);
        }}
      >
        <option value="">All ({formatCount(total)})</option>
        {profile.categories.map(({ id }) => (
          <option key={id} value={id}>
            {id} {categoryLabel(profile, id, scheme)} ({formatCount(counts[id] ?? 0)})
          </option>
        ))}
      </select>
    </label>
  );
}
