import { memo, useCallback, useMemo } from 'react';
import { createColumnHelper, type ColumnDef } from '@tanstack/react-table';
import type { RunSummary } from '@shared/experiment';
import { runName, type RunListItem } from '@shared/runs';
import { formatScore } from '../../components/charts/categoryRows';
import { Table } from '../../components/Table/Table';
import { formatSort, parseSort } from '../../components/Table/sortParam';
import { StatusBadge } from '../experiments/RunCard';
import { formatDateTime, formatDuration } from './shape';
import { groupBySampleSet, runHaystack, type RunMark } from './runSets';
import './runIdentity.css';

export interface RunRow extends Omit<RunListItem, 'summary'> {
  /** Undefined while loading; null when it could not be read. */
  summary: RunSummary | null | undefined;
  /** Its sample set and whether it ran its course (runSets.ts runMarks). */
  mark: RunMark | undefined;
}

/** The badge a partial or other-sample-set run carries beside its score, saying why. */
function MarkBadge({ mark }: { mark: RunMark | undefined }) {
  if (!mark?.badge) return null;
  return (
    <span
      className={`badge run-mark ${mark.partial ? 'run-mark-partial' : 'run-mark-subset'}`}
      title={mark.reason ?? undefined}
    >
      {mark.badge}
    </span>
  );
}

const column = createColumnHelper<RunRow>();
const pending = <span className="muted">…</span>;

function durationMs(row: RunRow): number | undefined {
  return row.endedAt === null ? undefined : Date.parse(row.endedAt) - Date.parse(row.createdAt);
}

// Module scope: the columns depend on nothing but the row, so the table never rebuilds them.
// Sort values are numbers where the cell shows a formatted one; a missing value sorts last.
const columns = [
  column.accessor('id', {
    header: 'Run',
    // The row handles the click; the button gives it a name and keyboard focus.
    cell: (info) => (
      <button type="button" className="link-button mono">
        {info.getValue()}
      </button>
    ),
    meta: { width: 'minmax(144px, 1.4fr)', min: 144 },
  }),
  column.accessor((row) => runName(row), {
    id: 'name',
    header: 'Name',
    meta: { width: 'minmax(120px, 1.6fr)', min: 120 },
    cell: (info) => {
      const row = info.row.original;
      return (
        <span className="run-label-cell">
          {info.getValue() ? (
            <span title={row.name ? undefined : 'named from its sweep and grid point'}>
              {info.getValue()}
            </span>
          ) : (
            <span className="muted">—</span>
          )}
          {row.tags.map((tag) => (
            <span key={tag} className="badge run-tag-chip">
              {tag}
            </span>
          ))}
          {row.damaged ? (
            <span className="run-damaged" role="note">
              damaged: {row.damaged}
            </span>
          ) : null}
        </span>
      );
    },
  }),
  column.accessor('status', {
    header: 'Status',
    cell: (info) => <StatusBadge status={info.getValue()} />,
    meta: { width: '110px', min: 110 },
  }),
  column.accessor('preset', { header: 'Preset', meta: { width: 'minmax(90px, 1fr)', min: 90 } }),
  column.accessor('samples', {
    header: 'Samples',
    // Which samples, not only how many: the set decides whether two scores compare.
    cell: (info) => (
      <span title={info.row.original.sampleIds.join(', ')}>
        {info.row.original.mark?.setLabel ?? info.getValue()}
      </span>
    ),
    meta: { width: 'minmax(96px, 1fr)', min: 96 },
  }),
  column.accessor('topK', {
    header: 'Top-k',
    cell: (info) => info.getValue() ?? '—',
    meta: { width: '70px', min: 70, numeric: true, priority: 2 },
  }),
  column.accessor('seed', {
    header: 'Seed',
    cell: (info) => info.getValue() ?? '—',
    meta: { width: '70px', min: 70, numeric: true, priority: 2 },
  }),
  column.accessor('answerer', {
    header: 'Answerer',
    cell: (info) => info.getValue() ?? '—',
    meta: { width: 'minmax(100px, 1fr)', min: 100, priority: 2 },
  }),
  column.accessor('judgeProtocol', {
    header: 'Judge',
    cell: (info) => info.getValue() ?? <span className="muted">none</span>,
    meta: { width: 'minmax(80px, 0.8fr)', min: 80, priority: 2 },
  }),
  column.accessor('createdAt', {
    header: 'Created',
    cell: (info) => formatDateTime(info.getValue()),
    meta: { width: 'minmax(140px, 1fr)', min: 140, priority: 3 },
  }),
  column.accessor(durationMs, {
    id: 'duration',
    header: 'Duration',
    cell: (info) => formatDuration(info.row.original.createdAt, info.row.original.endedAt),
    meta: { width: '90px', min: 90, numeric: true, priority: 3 },
  }),
  column.accessor((row) => row.summary?.questions ?? row.questions, {
    id: 'questions',
    header: 'Questions',
    // Answered once the summary is in; until then (or unreadable) the questions planned.
    cell: (info) => {
      const s = info.row.original.summary;
      return s === undefined || s === null ? info.row.original.questions : s.questions;
    },
    meta: { width: '96px', min: 96, numeric: true, priority: 2 },
  }),
  column.accessor((row) => row.summary?.overall.all.officialF1.mean ?? undefined, {
    id: 'f1',
    header: 'Overall F1',
    cell: (info) => (
      <span className="score-with-mark">
        <MarkBadge mark={info.row.original.mark} />
        {info.row.original.summary === undefined ? pending : formatScore(info.getValue() ?? null)}
      </span>
    ),
    // Room for the partial / sample-set badge beside the score.
    meta: { width: '126px', min: 126, numeric: true },
  }),
  column.accessor((row) => row.insertErrors + row.answerErrors, {
    id: 'errors',
    header: 'Errors',
    cell: (info) => (
      <span className={info.getValue() > 0 ? 'has-errors' : 'muted'}>{info.getValue()}</span>
    ),
    meta: { width: '76px', min: 76, numeric: true, priority: 2 },
  }),
] as ColumnDef<RunRow, unknown>[];

// Everything the row shows as words, and its sweep and samples, so typing either finds the run.
const haystack = (row: RunRow) => runHaystack(row);

// Memoised (with the view's stable callbacks): a sort or filter of the answers below re-renders
// the run view, not the list of runs.
export const RunsTable = memo(function RunsTable({
  rows,
  selected,
  onSelect,
  sort,
  onSortChange,
  search,
  groupBySet,
}: {
  /** Newest first: the order when no column is sorted. */
  rows: RunRow[];
  selected: string | null;
  onSelect: (runId: string) => void;
  /** As sortParam writes it. */
  sort: string | null;
  onSortChange: (sort: string | null) => void;
  search: string;
  /** Rows of one sample set together, widest sets first, the sort kept within each. */
  groupBySet: boolean;
}) {
  const marks = useMemo(
    () => new Map(rows.flatMap((row) => (row.mark ? [[row.id, row.mark] as const] : []))),
    [rows],
  );
  const grouped = useCallback(
    (shown: readonly RunRow[]) => groupBySampleSet(shown, marks, (row) => row.sampleIds.length),
    [marks],
  );
  return (
    <Table
      label="Runs"
      rows={rows}
      columns={columns}
      rowId={(row) => row.id}
      sort={parseSort(sort)}
      onSortChange={(next) => onSortChange(formatSort(next))}
      search={{ text: search, haystack }}
      selected={selected}
      onRowClick={(row) => onSelect(row.id)}
      arrange={groupBySet ? grouped : undefined}
      empty="No run matches the search."
      maxHeight="min(40vh, 360px)"
      estimateRowHeight={40}
    />
  );
});
