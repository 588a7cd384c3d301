import { useMemo } from 'react';
import {
  createColumnHelper,
  flexRender,
  getCoreRowModel,
  useReactTable,
  type ColumnDef,
} from '@tanstack/react-table';
import type { RunSummary } from '@shared/experiment';
import type { RunListItem } from '@shared/runs';
import { formatScore } from '../../components/charts/categoryRows';
import { StatusBadge } from '../experiments/RunCard';
import { formatDateTime, formatDuration } from './shape';
import './runIdentity.css';

export interface RunRow extends RunListItem {
  /** Undefined while loading; null when it could not be read. */
  summary: RunSummary | null | undefined;
}

const column = createColumnHelper<RunRow>();
const pending = <span className="muted">…</span>;

// Module scope: the columns depend on nothing but the row, so the table never rebuilds them.
const columns = [
  column.accessor('id', {
    header: 'Run',
    // The row handles the click; the button gives it a name and keyboard focus.
    cell: (info) => (
      <button type="button" className="link-button mono">
        {info.getValue()}
      </button>
    ),
  }),
  column.accessor('name', {
    header: 'Name',
    cell: (info) => (
      <span className="run-label-cell">
        {info.getValue() || <span className="muted">—</span>}
        {info.row.original.tags.map((tag) => (
          <span key={tag} className="badge run-tag-chip">
            {tag}
          </span>
        ))}
      </span>
    ),
  }),
  column.accessor('status', {
    header: 'Status',
    cell: (info) => <StatusBadge status={info.getValue()} />,
  }),
  column.accessor('preset', { header: 'Preset' }),
  column.accessor('samples', { header: 'Samples', meta: { num: true } }),
  column.accessor('topK', {
    header: 'Top-k',
    meta: { num: true },
    cell: (info) => info.getValue() ?? '—',
  }),
  column.accessor('seed', {
    header: 'Seed',
    meta: { num: true },
    cell: (info) => info.getValue() ?? '—',
  }),
  column.accessor('answerer', { header: 'Answerer', cell: (info) => info.getValue() ?? '—' }),
  column.accessor('judgeProtocol', {
    header: 'Judge',
    cell: (info) => info.getValue() ?? <span className="muted">none</span>,
  }),
  column.accessor('createdAt', {
    header: 'Created',
    cell: (info) => formatDateTime(info.getValue()),
  }),
  column.accessor((row) => formatDuration(row.createdAt, row.endedAt), {
    id: 'duration',
    header: 'Duration',
    meta: { num: true },
  }),
  column.accessor((row) => row.summary, {
    id: 'questions',
    header: 'Questions',
    meta: { num: true },
    // Answered once the summary is in; until then (or unreadable) the questions planned.
    cell: (info) => {
      const s = info.getValue();
      return s === undefined || s === null ? info.row.original.questions : s.questions;
    },
  }),
  column.accessor((row) => row.summary, {
    id: 'f1',
    header: 'Overall F1',
    meta: { num: true },
    cell: (info) => {
      const s = info.getValue();
      return s === undefined ? pending : formatScore(s?.overall.all.officialF1.mean);
    },
  }),
  column.accessor((row) => row.insertErrors + row.answerErrors, {
    id: 'errors',
    header: 'Errors',
    meta: { num: true },
    cell: (info) => (
      <span className={info.getValue() > 0 ? 'has-errors' : 'muted'}>{info.getValue()}</span>
    ),
  }),
] as ColumnDef<RunRow, unknown>[];

function isNum(meta: unknown): boolean {
  return typeof meta === 'object' && meta !== null && 'num' in meta;
}

export function RunsTable({
  rows,
  selected,
  onSelect,
}: {
  rows: RunRow[];
  selected: string | null;
  onSelect: (runId: string) => void;
}) {
  const data = useMemo(() => rows, [rows]);
  // eslint-disable-next-line react-hooks/incompatible-library -- TanStack Table returns fresh functions by design; this component is not memoised by the compiler.
  const table = useReactTable({
    data,
    columns,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (row) => row.id,
  });
  return (
    <div className="table-scroll runs-table-scroll">
      <table className="runs-table" aria-label="Runs">
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => (
                <th
                  key={header.id}
                  scope="col"
                  className={isNum(header.column.columnDef.meta) ? 'num' : undefined}
                >
                  {flexRender(header.column.columnDef.header, header.getContext())}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map((row) => (
            <tr
              key={row.id}
              className="clickable"
              aria-current={row.id === selected ? 'true' : undefined}
              onClick={() => onSelect(row.id)}
            >
              {row.getVisibleCells().map((cell) => (
                <td key={cell.id} className={isNum(cell.column.columnDef.meta) ? 'num' : undefined}>
                  {flexRender(cell.column.columnDef.cell, cell.getContext())}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
