import { useMemo, type ReactNode } from 'react';
import {
  createColumnHelper,
  flexRender,
  getCoreRowModel,
  useReactTable,
  type ColumnDef,
} from '@tanstack/react-table';
import {
  LOCOMO_PROFILE,
  allCategoryIds,
  categoryLabel,
  type BenchmarkProfile,
} from '@shared/benchmarks';
import type { CategoryScheme } from '@shared/dataset/categories';
import type { DatasetStats, SampleStats } from '@shared/dataset/stats';
import { formatCount } from './shape';

export interface SampleRow extends SampleStats {
  /** Null until the samples' speakers have been fetched. */
  speakers: string | null;
}

type Totals = DatasetStats['totals'];

const column = createColumnHelper<SampleRow>();
const count = (n: number) => formatCount(n);

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
  }),
  column.accessor('speakers', {
    header: 'Speakers',
    cell: (info) => info.getValue() ?? <span className="muted">…</span>,
  }),
  column.accessor('sessions', { header: 'Sessions', cell: (info) => count(info.getValue()) }),
  column.accessor('turns', { header: 'Turns', cell: (info) => count(info.getValue()) }),
  column.accessor('imageTurns', {
    header: 'Image turns',
    cell: (info) => count(info.getValue()),
  }),
  column.accessor('qa', { header: 'QA', cell: (info) => count(info.getValue()) }),
  column.accessor('packets', { header: 'Packets', cell: (info) => count(info.getValue()) }),
  column.accessor('plannedTests', {
    header: 'Planned tests',
    cell: (info) => count(info.getValue()),
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

const TEXT_COLUMNS = new Set(['sampleId', 'speakers']);

function categoryColumns(
  scheme: CategoryScheme,
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
    }),
  );
}

export function SamplesTable({
  rows,
  totals,
  scheme,
  profile = LOCOMO_PROFILE,
  selected,
  onSelect,
}: {
  rows: SampleRow[];
  totals: Totals;
  scheme: CategoryScheme;
  /** The dataset's benchmark: one column per category it declares. */
  profile?: BenchmarkProfile;
  selected: string | null;
  onSelect: (sampleId: string) => void;
}) {
  const columns = useMemo(
    // The helper's accessor columns differ in value type; the table only needs them as a list.
    () => [...fixedColumns, ...categoryColumns(scheme, profile)] as ColumnDef<SampleRow, unknown>[],
    [scheme, profile],
  );
  // eslint-disable-next-line react-hooks/incompatible-library -- TanStack Table returns fresh functions by design; this component is not memoised by the compiler.
  const table = useReactTable({
    data: rows,
    columns,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (row) => row.sampleId,
  });

  return (
    <div className="table-scroll">
      <table className="samples-table">
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => (
                <th
                  key={header.id}
                  scope="col"
                  className={TEXT_COLUMNS.has(header.column.id) ? undefined : 'num'}
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
              aria-current={row.id === selected ? 'true' : undefined}
              className="clickable"
              onClick={() => onSelect(row.id)}
            >
              {row.getVisibleCells().map((cell) => (
                <td key={cell.id} className={TEXT_COLUMNS.has(cell.column.id) ? undefined : 'num'}>
                  {flexRender(cell.column.columnDef.cell, cell.getContext())}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            {table.getVisibleLeafColumns().map((col) => (
              <td key={col.id} className={TEXT_COLUMNS.has(col.id) ? undefined : 'num'}>
                {TOTALS[col.id]?.(totals)}
              </td>
            ))}
          </tr>
        </tfoot>
      </table>
    </div>
  );
}
