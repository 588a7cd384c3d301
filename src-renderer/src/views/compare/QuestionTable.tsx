import { memo, useMemo, type ReactNode } from 'react';
import { createColumnHelper, type ColumnDef } from '@tanstack/react-table';
import type { CompareCell, Flip } from '@shared/compare';
import { type BenchmarkProfile, type SchemeId } from '@shared/benchmarks';
import { CategoryBadge } from '../../components/Badge/Badge';
import { Table } from '../../components/Table/Table';
import { formatSort, parseSort } from '../../components/Table/sortParam';
import { openKey } from './flipDetail';
import { RunTag } from './RunPicker';
import { formatScore, isErrorCell, runLetter, type QuestionRow } from './shape';

const column = createColumnHelper<QuestionRow>();

// Fixed columns live at module scope so the table does not rebuild them on every render; the
// category (naming scheme) and per-run columns depend on state and are built in useMemo below.
// Priorities: in a narrow window the question, gold and every run's answer and score stay.
const leadingColumns = [
  // One column for both, always shown: a row (and the explanation under it) must say which
  // question it is at every width. Sorted by sample, then question number.
  column.accessor((row) => `${row.sampleId}\u0000${String(row.questionIndex).padStart(6, '0')}`, {
    id: 'question-id',
    header: 'Sample · Q#',
    cell: (info) => (
      <span className="question-id">
        <code>{info.row.original.sampleId}</code> #{info.row.original.questionIndex}
      </span>
    ),
    meta: { width: '88px', min: 88 },
  }),
];

const textColumns = [
  column.accessor('question', {
    header: 'Question',
    cell: (info) => info.getValue(),
    // 136: with the always-shown sample · Q# column, every priority-1 column fits 1024 px.
    meta: { width: 'minmax(136px, 2fr)', min: 136 },
  }),
  column.accessor((row) => row.gold ?? undefined, {
    id: 'gold',
    header: 'Gold',
    // Category 5 mostly carries no gold answer: official scoring wants "not mentioned".
    cell: (info) =>
      info.getValue() ?? (
        <span className="muted" title="adversarial question: correct if it says not mentioned">
          (not mentioned)
        </span>
      ),
    meta: { width: 'minmax(80px, 1fr)', min: 80 },
  }),
];

function categoryColumn(scheme: SchemeId, profile: BenchmarkProfile) {
  return column.accessor('category', {
    header: 'Category',
    cell: (info) => <CategoryBadge id={info.getValue()} scheme={scheme} profile={profile} />,
    meta: { width: '116px', min: 116, priority: 2 },
  });
}

/** A run's score minus the baseline's; undefined (sorted last) where either is missing. */
function delta(row: QuestionRow, run: number, baseline: number): number | undefined {
  const a = row.cells[baseline]?.score;
  const b = row.cells[run]?.score;
  return a === null || a === undefined || b === null || b === undefined ? undefined : b - a;
}

function formatDelta(value: number | undefined): string {
  if (value === undefined) return '—';
  const text = formatScore(Math.abs(value));
  return value > 0 ? `+${text}` : value < 0 ? `−${text}` : text;
}

function PredictionCell({ cell }: { cell: CompareCell | null }) {
  if (cell === null) return <span className="missing">missing</span>;
  if (isErrorCell(cell))
    return (
      <span className="prediction-error" title={cell.error ?? undefined}>
        {cell.prediction}
        {cell.error ? <span className="error-reason"> {cell.error}</span> : null}
      </span>
    );
  return <>{cell.prediction}</>;
}

const FLIP_SYMBOLS: Record<Flip, string> = {
  improved: '▲ improved',
  regressed: '▼ regressed',
  unchanged: '= unchanged',
  missing: 'missing',
};

function ScoreCell({ cell, flip }: { cell: CompareCell | null; flip: Flip | null }) {
  return (
    <span className="score-cell">
      <span className={cell === null ? 'missing' : isErrorCell(cell) ? 'prediction-error' : ''}>
        {cell === null ? '—' : formatScore(cell.score)}
      </span>
      {flip !== null && flip !== 'unchanged' ? (
        <span className={`badge flip flip-${flip}`}>{FLIP_SYMBOLS[flip]}</span>
      ) : null}
    </span>
  );
}

function runColumns(
  runs: ReadonlyArray<{ runId: string; label: string }>,
  baselineIndex: number,
  metricShort: string,
): ColumnDef<QuestionRow, unknown>[] {
  const base = runLetter(baselineIndex);
  return runs.flatMap((run, i) => [
    column.accessor((row) => row.cells[i]?.prediction, {
      id: `prediction-${i}`,
      header: () => (
        <span className="run-head" title={run.label}>
          <RunTag index={i} />
          {runLetter(i)} prediction
        </span>
      ),
      cell: (info) => <PredictionCell cell={info.row.original.cells[i] ?? null} />,
      meta: {
        width: 'minmax(110px, 1.4fr)',
        min: 110,
        label: `${runLetter(i)} prediction`,
      },
    }),
    column.accessor((row) => row.cells[i]?.score ?? undefined, {
      id: `score-${i}`,
      header: () => (
        <span title={run.label}>
          {runLetter(i)} {metricShort}
          {i === baselineIndex ? ' (base)' : ''}
        </span>
      ),
      cell: (info) => (
        <ScoreCell
          cell={info.row.original.cells[i] ?? null}
          flip={i === baselineIndex ? null : (info.row.original.flips[i] ?? null)}
        />
      ),
      meta: {
        // Room for the flip badge under the score.
        width: 'minmax(90px, 100px)',
        min: 90,
        numeric: true,
        label: `${runLetter(i)} ${metricShort}`,
      },
    }),
    ...(i === baselineIndex
      ? []
      : [
          column.accessor((row) => delta(row, i, baselineIndex), {
            id: `delta-${i}`,
            header: `Δ${metricShort} ${runLetter(i)}−${base}`,
            cell: (info) => formatDelta(info.getValue()),
            meta: { width: '88px', min: 88, numeric: true, priority: 2 },
          }),
        ]),
  ]) as ColumnDef<QuestionRow, unknown>[];
}

function expandColumn(expanded: string | null, onToggle: (key: string) => void) {
  return column.display({
    id: 'expand',
    header: () => <span className="sr-only">Details</span>,
    cell: (info) => {
      const { sampleId, questionIndex } = info.row.original;
      const key = openKey(sampleId, questionIndex);
      const open = key === expanded;
      return (
        <button
          type="button"
          className="qt-expand"
          aria-expanded={open}
          aria-label={`Why did it flip? ${sampleId} question ${questionIndex}`}
          onClick={() => onToggle(key)}
        >
          {open ? '▾' : '▸'}
        </button>
      );
    },
    meta: { width: '28px', min: 28 },
  });
}

/**
 * Every question aligned across the runs, sortable by any column (a score, ΔF1, category…);
 * the view filters the rows and keeps the sort in the URL.
 */
export const QuestionTable = memo(function QuestionTable({
  rows,
  totalRows,
  runs,
  baselineIndex,
  scheme,
  profile,
  metricShort,
  expanded,
  onToggle,
  sort,
  onSortChange,
  renderExpanded,
}: {
  rows: QuestionRow[];
  totalRows: number;
  runs: ReadonlyArray<{ runId: string; label: string }>;
  baselineIndex: number;
  scheme: SchemeId;
  /** The baseline run's benchmark, which names the categories. */
  profile: BenchmarkProfile;
  metricShort: string;
  /** The open row's key (flipDetail.ts openKey); null: none. */
  expanded: string | null;
  onToggle: (key: string) => void;
  /** As sortParam writes it. */
  sort: string | null;
  onSortChange: (sort: string | null) => void;
  /** What an open row shows under its cells. */
  renderExpanded: (row: QuestionRow) => ReactNode;
}) {
  const columns = useMemo(
    () =>
      [
        expandColumn(expanded, onToggle),
        ...leadingColumns,
        categoryColumn(scheme, profile),
        ...textColumns,
        ...runColumns(runs, baselineIndex, metricShort),
      ] as ColumnDef<QuestionRow, unknown>[],
    [scheme, profile, runs, baselineIndex, metricShort, expanded, onToggle],
  );
  const openRow =
    expanded === null
      ? null
      : (rows.find((r) => openKey(r.sampleId, r.questionIndex) === expanded)?.key ?? null);
  return (
    <Table
      label="Questions compared"
      rows={rows}
      columns={columns}
      rowId={(row) => row.key}
      sort={parseSort(sort)}
      onSortChange={(next) => onSortChange(formatSort(next))}
      renderExpanded={(row) =>
        openKey(row.sampleId, row.questionIndex) === expanded ? renderExpanded(row) : null
      }
      scrollToRowId={openRow}
      empty={totalRows === 0 ? 'The runs have no answers.' : 'No question matches the filters.'}
      estimateRowHeight={52}
    />
  );
});
