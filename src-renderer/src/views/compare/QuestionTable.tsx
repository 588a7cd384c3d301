import { memo, useMemo, useRef } from 'react';
import {
  createColumnHelper,
  flexRender,
  getCoreRowModel,
  useReactTable,
  type ColumnDef,
} from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { CompareCell, Flip } from '@shared/compare';
import { LOCOMO_PROFILE, categoryLabel, type BenchmarkProfile } from '@shared/benchmarks';
import type { CategoryScheme } from '@shared/dataset/categories';
import { RunTag } from './RunPicker';
import { formatScore, isErrorCell, runLetter, type QuestionRow } from './shape';

const column = createColumnHelper<QuestionRow>();

// Fixed columns live at module scope so the table does not rebuild them on every render; the
// category (naming scheme) and per-run columns depend on state and are built in useMemo below.
const leadingColumns = [
  column.accessor('sampleId', {
    header: 'Sample',
    cell: (info) => <code>{info.getValue()}</code>,
    meta: { width: '80px', min: 80 },
  }),
  column.accessor('questionIndex', {
    header: 'Q#',
    cell: (info) => info.getValue(),
    meta: { width: '40px', min: 40, numeric: true },
  }),
];

const textColumns = [
  column.accessor('question', {
    header: 'Question',
    cell: (info) => info.getValue(),
    meta: { width: 'minmax(180px, 2fr)', min: 180 },
  }),
  column.accessor('gold', {
    header: 'Gold',
    // Category 5 mostly carries no gold answer: official scoring wants "not mentioned".
    cell: (info) =>
      info.getValue() ?? (
        <span className="muted" title="adversarial question: correct if it says not mentioned">
          (not mentioned)
        </span>
      ),
    meta: { width: 'minmax(100px, 1fr)', min: 100 },
  }),
];

interface ColumnMeta {
  /** The column's grid track. */
  width: string;
  /** Its narrowest width in px: below the sum the table scrolls sideways instead of squeezing. */
  min: number;
  numeric?: boolean;
}

function metaOf(def: unknown): ColumnMeta {
  const meta = (def as { meta?: ColumnMeta }).meta;
  return meta ?? { width: '1fr', min: 80 };
}

function categoryColumn(scheme: CategoryScheme, profile: BenchmarkProfile) {
  return column.accessor('category', {
    header: 'Category',
    cell: (info) => (
      <span className={`badge cat cat-${info.getValue()}`}>
        {info.getValue()} {categoryLabel(profile, info.getValue(), scheme)}
      </span>
    ),
    meta: { width: '116px', min: 116 },
  });
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
  return runs.flatMap((run, i) => [
    column.display({
      id: `prediction-${i}`,
      header: () => (
        <span className="run-head" title={run.label}>
          <RunTag index={i} />
          {runLetter(i)} prediction
        </span>
      ),
      cell: (info) => <PredictionCell cell={info.row.original.cells[i] ?? null} />,
      meta: { width: 'minmax(140px, 1.4fr)', min: 140 },
    }),
    column.display({
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
      meta: { width: '100px', min: 100, numeric: true },
    }),
  ]);
}

/**
 * Every question aligned across the runs. Virtualised (two full LoCoMo runs are ~2,000 rows of
 * wrapped text) and laid out as a CSS grid so absolutely positioned rows keep their columns;
 * explicit ARIA roles keep it a table for assistive technology.
 */
export const QuestionTable = memo(function QuestionTable({
  rows,
  totalRows,
  runs,
  baselineIndex,
  scheme,
  profile = LOCOMO_PROFILE,
  metricShort,
}: {
  rows: QuestionRow[];
  totalRows: number;
  runs: ReadonlyArray<{ runId: string; label: string }>;
  baselineIndex: number;
  scheme: CategoryScheme;
  /** The baseline run's benchmark, which names the categories. */
  profile?: BenchmarkProfile;
  metricShort: string;
}) {
  const columns = useMemo(
    () =>
      [
        ...leadingColumns,
        categoryColumn(scheme, profile),
        ...textColumns,
        ...runColumns(runs, baselineIndex, metricShort),
      ] as ColumnDef<QuestionRow, unknown>[],
    [scheme, profile, runs, baselineIndex, metricShort],
  );
  const gridTemplateColumns = columns.map((c) => metaOf(c).width).join(' ');
  const minWidth = columns.reduce((sum, c) => sum + metaOf(c).min, 0);

  // eslint-disable-next-line react-hooks/incompatible-library -- TanStack Table returns fresh functions by design; this component is memoised by props instead.
  const table = useReactTable({
    data: rows,
    columns,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (row) => row.key,
  });
  const tableRows = table.getRowModel().rows;

  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: tableRows.length,
    getScrollElement: () => scrollRef.current,
    // Most rows are one or two lines; measuring after render corrects the rest.
    estimateSize: () => 52,
    getItemKey: (index) => tableRows[index]?.id ?? index,
    overscan: 10,
  });
  const items = virtualizer.getVirtualItems();

  return (
    <div ref={scrollRef} className="qt-scroll" tabIndex={0}>
      <div
        role="table"
        aria-label="Questions compared"
        aria-rowcount={rows.length + 1}
        className="qt-grid"
        style={{ minWidth }}
      >
        <div role="rowgroup" className="qt-head">
          {table.getHeaderGroups().map((group) => (
            <div key={group.id} role="row" aria-rowindex={1} style={{ gridTemplateColumns }}>
              {group.headers.map((header) => (
                <div
                  key={header.id}
                  role="columnheader"
                  className={metaOf(header.column.columnDef).numeric ? 'num' : undefined}
                >
                  {flexRender(header.column.columnDef.header, header.getContext())}
                </div>
              ))}
            </div>
          ))}
        </div>
        <div role="rowgroup" className="qt-body" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const row = tableRows[item.index];
            if (row === undefined) return null;
            return (
              <div
                key={item.key}
                role="row"
                aria-rowindex={item.index + 2}
                data-index={item.index}
                ref={virtualizer.measureElement}
                className="qt-row"
                style={{ gridTemplateColumns, transform: `translateY(${item.start}px)` }}
              >
                {row.getVisibleCells().map((cell) => (
                  <div
                    key={cell.id}
                    role="cell"
                    className={metaOf(cell.column.columnDef).numeric ? 'num' : undefined}
                  >
                    {flexRender(cell.column.columnDef.cell, cell.getContext())}
                  </div>
                ))}
              </div>
            );
          })}
        </div>
        {rows.length === 0 ? (
          <p className="muted empty">
            {totalRows === 0 ? 'The runs have no answers.' : 'No question matches the filters.'}
          </p>
        ) : null}
      </div>
    </div>
  );
});
