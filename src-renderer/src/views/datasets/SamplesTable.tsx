import { useMemo, type ReactNode } from 'react';
import { createColumnHelper, type ColumnDef } from '@tanstack/react-table';
import {
  allCategoryIds,
  categoryLabel,
  type BenchmarkProfile,
  type SchemeId,
} from '@shared/benchmarks';
import type { DatasetStats, SampleStats } from '@shared/dataset/stats';
import { Table } from '../../components/Table/Table';
import { formatSort, parseSort } from '../../components/Table/sortParam';
import { formatCount } from './shape';

export interface SampleRow extends SampleStats {
  /** Null until the samples' speakers have been fetched. */
  speakers: string | null;
}

type Totals = DatasetStats['totals'];

const column = createColumnHelper<SampleRow>();
const count = (n: number) => formatCount(n);
/** A count column; in a narrow window the per-category counts and QA outlast the rest. */
const countMeta = (priority: number) =>
  ({ width: 'minmax(66px, 1fr)', min: 66, numeric: true, priority }) as const;

// Fixed columns live at module scope so the table does not rebuild them on every render; only
// the category columns depend on state (the naming scheme) and are built in useMemo below.
const fixedColumns = [
  column.accessor('sampleId', {
    header: 'Sample',
    // The row itself handles the click; the button makes the row reachable by keyboard and gives
    // it an accessible name.
    cell: (info) => (
      <button type="button" className="link-button">
        {info.getValue()}
      </button>
    ),
    meta: { width: 'minmax(96px, 1fr)', min: 96 },
  }),
  column.accessor('speakers', {
    header: 'Speakers',
    cell: (info) => info.getValue() ?? <span className="muted">…</span>,
    meta: { width: 'minmax(110px, 1.4fr)', min: 110, priority: 2 },
  }),
  column.accessor('sessions', {
    header: 'Sessions',
    cell: (info) => count(info.getValue()),
    meta: countMeta(3),
  }),
  column.accessor('turns', {
    header: 'Turns',
    cell: (info) => count(info.getValue()),
    meta: countMeta(2),
  }),
  column.accessor('imageTurns', {
    header: 'Image turns',
    cell: (info) => count(info.getValue()),
    meta: countMeta(3),
  }),
  column.accessor('qa', {
    header: 'QA',
    cell: (info) => count(info.getValue()),
    meta: countMeta(1),
  }),
  column.accessor('packets', {
    header: 'Packets',
    cell: (info) => count(info.getValue()),
    meta: countMeta(3),
  }),
  column.accessor('plannedTests', {
    header: 'Planned tests',
    cell: (info) => count(info.getValue()),
    meta: countMeta(3),
  }),
];

/** The totals row, keyed by column id (the stats' totals are not a sum the table could do). */
const TOTALS: Record<string, (t: Totals) => ReactNode> = {
  sampleId: (t) => `Total (${t.samples})`,
  speakers: () => '',
  sessions: (t) => count(t.sessions),
  turns: (t) => count(t.turns),
  imageTurns: (t) => count(t.imageTurns),
  qa: (t) => count(t.qa),
  packets: (t) => count(t.packets),
  plannedTests: (t) => count(t.plannedTests),
  ...Object.fromEntries(
    allCategoryIds().map((id) => [`cat${id}`, (t: Totals) => count(t.byCategory[id] ?? 0)]),
  ),
};

function categoryColumns(
  scheme: SchemeId,
  profile: BenchmarkProfile,
): ColumnDef<SampleRow, number>[] {
  return profile.categories.map(({ id }) =>
    column.accessor((row) => row.byCategory[id] ?? 0, {
      id: `cat${id}`,
      // Long headings wrap at the space only ("multi-hop" must not split at its hyphen), so ten
      // samples with thirteen columns fit a laptop screen without a horizontal scrollbar.
      header: () => (
        <>
          {id} <span className="nowrap">{categoryLabel(profile, id, scheme)}</span>
        </>
      ),
      cell: (info) => count(info.getValue()),
      // Wide enough for the longest name's one word ("adversarial", "open-domain"), which
      // otherwise spills over the next header.
      meta: {
        ...countMeta(2),
        width: 'minmax(96px, 1fr)',
        min: 96,
        label: `${id} ${categoryLabel(profile, id, scheme)}`,
      },
    }),
  );
}

export function SamplesTable({
  rows,
  totals,
  scheme,
  profile,
  selected,
  onSelect,
  sort,
  onSortChange,
}: {
  rows: SampleRow[];
  totals: Totals;
  scheme: SchemeId;
  /** The dataset's benchmark: one column per category it declares. */
  profile: BenchmarkProfile;
  selected: string | null;
  onSelect: (sampleId: string) => void;
  /** As sortParam writes it. */
  sort: string | null;
  onSortChange: (sort: string | null) => void;
}) {
  const columns = useMemo(
    // The helper's accessor columns differ in value type; the table only needs them as a list.
    () => [...fixedColumns, ...categoryColumns(scheme, profile)] as ColumnDef<SampleRow, unknown>[],
    [scheme, profile],
  );
  return (
    <Table
      label="Samples"
      rows={rows}
      columns={columns}
      rowId={(row) => row.sampleId}
      sort={parseSort(sort)}
      onSortChange={(next) => onSortChange(formatSort(next))}
      selected={selected}
      onRowClick={(row) => onSelect(row.sampleId)}
      footer={(id) => TOTALS[id]?.(totals)}
      empty="No sample."
      // Ten LoCoMo samples: the page scrolls, not a box inside it.
      maxHeight="none"
      estimateRowHeight={38}
    />
  );
}
