import { useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import {
  flexRender,
  getCoreRowModel,
  getSortedRowModel,
  useReactTable,
  type Column,
  type ColumnDef,
  type RowData,
  type SortingState,
  type Updater,
} from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { isTypingOrModified, stepKey } from '../../lib/rowKeys';
import { hiddenColumns } from './priorities';
import styles from './Table.module.css';

declare module '@tanstack/react-table' {
  // The names must match TanStack's declaration; the fields do not use them.
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  interface ColumnMeta<TData extends RowData, TValue> {
    /** The column's grid track ('80px', 'minmax(180px, 2fr)'); default 'minmax(80px, 1fr)'. */
    width?: string;
    /** Its narrowest width in px (default 80): the sum decides what fits. */
    min?: number;
    /** Right-aligned, tabular figures. */
    numeric?: boolean;
    /** 1 (default) always shows; higher numbers are hidden first when the table is narrow. */
    priority?: number;
    /** The header's name where it is listed as text (hidden columns); default: the header. */
    label?: string;
  }
}

export interface TableProps<T> {
  /** The table's accessible name. */
  label: string;
  /** Already filtered by the view's own filters (category, flip, …). */
  rows: readonly T[];
  columns: ColumnDef<T, unknown>[];
  rowId: (row: T) => string;
  /** Controlled, so the view can keep it in the URL (see sortParam). */
  sort: SortingState;
  onSortChange: (sort: SortingState) => void;
  /** Text search over what `haystack` returns for a row (case-insensitive). */
  search?: { text: string; haystack: (row: T) => string };
  selected?: string | null;
  onRowClick?: (row: T) => void;
  /** Rows tinted as failed (an errored answer). */
  isErrorRow?: (row: T) => boolean;
  /** Content shown under a row, across every column (null: the row is not expanded). */
  renderExpanded?: (row: T) => ReactNode;
  /**
   * Keyboard stepping over the rows in the order shown: j/k anywhere but a text field (the arrows
   * with focus in the table) call onOpen with the next/previous row; Escape calls onClose.
   */
  stepKeys?: { onOpen: (row: T) => void; onClose: () => void };
  /** A row brought to the top of the scroll box whenever it changes (keyboard stepping). */
  scrollToRowId?: string | null;
  /** A last row after the data rows (totals), by column id; it is not sorted with them. */
  footer?: (columnId: string) => ReactNode;
  /**
   * Reorders the sorted, searched rows (a stable grouping: the view's groups, the sort within
   * each); it returns the same row objects.
   */
  arrange?: (rows: readonly T[]) => T[];
  /** Shown instead of rows when none is left. */
  empty: ReactNode;
  /** The scroll box's maximum height; rows are virtualised inside it. */
  maxHeight?: string;
  /** One-line rows are about this tall; measuring corrects the rest. */
  estimateRowHeight?: number;
}

const DEFAULT_MIN = 80;

function meta<T>(column: Column<T, unknown>) {
  const m = column.columnDef.meta;
  return {
    width: m?.width ?? `minmax(${m?.min ?? DEFAULT_MIN}px, 1fr)`,
    min: m?.min ?? DEFAULT_MIN,
    numeric: m?.numeric === true,
    priority: m?.priority ?? 1,
    label:
      m?.label ??
      (typeof column.columnDef.header === 'string' ? column.columnDef.header : column.id),
  };
}

const ARIA_SORT = { asc: 'ascending', desc: 'descending' } as const;

/**
 * The app's data table: TanStack Table for the model (sorting by any column), virtualised rows
 * (a LoCoMo run has 1,986 questions of wrapped text), CSS-grid rows so absolutely positioned rows
 * keep their columns, and ARIA table roles so it stays a table for assistive technology. Columns
 * carry a priority: in a narrow window the least important hide first and the table says which.
 */
export function Table<T>({
  label,
  rows,
  columns,
  rowId,
  sort,
  onSortChange,
  search,
  selected = null,
  onRowClick,
  isErrorRow,
  renderExpanded,
  stepKeys,
  scrollToRowId = null,
  footer,
  arrange,
  empty,
  maxHeight = 'min(70vh, 720px)',
  estimateRowHeight = 44,
}: TableProps<T>) {
  const needle = search?.text.trim().toLowerCase() ?? '';
  const haystack = search?.haystack;
  const data = useMemo(
    () =>
      needle === '' || haystack === undefined
        ? (rows as T[])
        : rows.filter((row) => haystack(row).toLowerCase().includes(needle)),
    [rows, needle, haystack],
  );

  const scrollRef = useRef<HTMLDivElement>(null);
  const width = useWidth(scrollRef);

  // eslint-disable-next-line react-hooks/incompatible-library -- TanStack Table returns fresh functions by design; this component is not memoised by the compiler.
  const table = useReactTable({
    data,
    columns,
    getRowId: (row) => rowId(row),
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    enableMultiSort: false,
    // A missing score sorts after every real one, whichever the direction.
    defaultColumn: { sortUndefined: 'last' },
    state: { sorting: sort },
    onSortingChange: (updater: Updater<SortingState>) =>
      onSortChange(typeof updater === 'function' ? updater(sort) : updater),
  });

  const leaves = table.getAllLeafColumns();
  const hidden = useMemo(
    () =>
      width === null
        ? []
        : hiddenColumns(
            leaves.map((c) => ({ id: c.id, ...meta(c) })),
            width,
          ),
    [leaves, width],
  );
  const visible = leaves.filter((c) => !hidden.includes(c.id));
  const gridTemplateColumns = visible.map((c) => meta(c).width).join(' ');
  const minWidth = visible.reduce((sum, c) => sum + meta(c).min, 0);

  const sortedRows = table.getRowModel().rows;
  const tableRows = useMemo(() => {
    if (arrange === undefined) return sortedRows;
    const byOriginal = new Map(sortedRows.map((row) => [row.original, row]));
    return arrange(sortedRows.map((row) => row.original)).flatMap((original) => {
      const row = byOriginal.get(original);
      return row === undefined ? [] : [row];
    });
  }, [sortedRows, arrange]);
  const virtualizer = useVirtualizer({
    count: tableRows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => estimateRowHeight,
    getItemKey: (index) => tableRows[index]?.id ?? index,
    overscan: 10,
  });
  const scrollIndex =
    scrollToRowId === null ? -1 : tableRows.findIndex((row) => row.id === scrollToRowId);
  useEffect(() => {
    if (scrollIndex >= 0) virtualizer.scrollToIndex(scrollIndex, { align: 'start' });
  }, [scrollIndex, virtualizer]);

  // Read by the key handler at the time of the key, so one listener serves every render.
  const live = useRef({ tableRows, selected, stepKeys });
  live.current = { tableRows, selected, stepKeys };
  const stepping = stepKeys !== undefined;
  useEffect(() => {
    if (!stepping) return undefined;
    const onKey = (event: KeyboardEvent) => {
      if (isTypingOrModified(event)) return;
      const { tableRows: shown, selected: open, stepKeys: keys } = live.current;
      if (keys === undefined) return;
      if (event.key === 'Escape') {
        if (open === null) return;
        keys.onClose();
        event.preventDefault();
        return;
      }
      const inTable = scrollRef.current?.contains(event.target as Node) === true;
      const step =
        event.key === 'j' || (inTable && event.key === 'ArrowDown')
          ? 1
          : event.key === 'k' || (inTable && event.key === 'ArrowUp')
            ? -1
            : null;
      if (step === null) return;
      event.preventDefault();
      const ids = shown.map((row) => row.id);
      const next = stepKey(ids, open, step);
      if (next === null || next === open) return;
      const index = ids.indexOf(next);
      const row = shown[index];
      if (row === undefined) return;
      keys.onOpen(row.original);
      virtualizer.scrollToIndex(index, { align: 'auto' });
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [stepping, virtualizer]);

  return (
    <div className={styles.wrap}>
      {/* Focusable, so the keyboard can scroll a long table (arrows, Page Down). */}
      <div ref={scrollRef} className={styles.scroll} style={{ maxHeight }} tabIndex={0}>
        <div
          role="table"
          aria-label={label}
          aria-rowcount={tableRows.length + 1}
          className={styles.table}
          style={{ minWidth }}
        >
          <div role="rowgroup" className={styles.head}>
            {table.getHeaderGroups().map((group) => (
              <div
                role="row"
                key={group.id}
                aria-rowindex={1}
                className={styles.row}
                style={{ gridTemplateColumns }}
              >
                {group.headers
                  .filter((h) => !hidden.includes(h.column.id))
                  .map((header) => {
                    const direction = header.column.getIsSorted();
                    const content = flexRender(header.column.columnDef.header, header.getContext());
                    return (
                      <div
                        role="columnheader"
                        key={header.id}
                        aria-sort={
                          header.column.getCanSort()
                            ? direction
                              ? ARIA_SORT[direction]
                              : 'none'
                            : undefined
                        }
                        className={meta(header.column).numeric ? styles.num : undefined}
                      >
                        {header.column.getCanSort() ? (
                          <button
                            type="button"
                            className={styles.sortButton}
                            title={`Sort by ${meta(header.column).label}`}
                            onClick={header.column.getToggleSortingHandler()}
                          >
                            {/* One flex item: a header of text and elements stays in reading order. */}
                            <span className={styles.sortLabel}>{content}</span>
                            <span className={styles.sortMark} aria-hidden="true">
                              {direction === 'asc' ? '▲' : direction === 'desc' ? '▼' : '↕'}
                            </span>
                          </button>
                        ) : (
                          content
                        )}
                      </div>
                    );
                  })}
              </div>
            ))}
          </div>
          <div
            role="rowgroup"
            className={styles.body}
            style={{ height: virtualizer.getTotalSize() }}
          >
            {virtualizer.getVirtualItems().map((item) => {
              const row = tableRows[item.index];
              if (row === undefined) return null;
              const expanded = renderExpanded?.(row.original) ?? null;
              const error = isErrorRow?.(row.original) === true;
              return (
                // One measured box per row and its expansion, so the rows below move with it.
                <div
                  role="none"
                  key={item.key}
                  data-index={item.index}
                  ref={virtualizer.measureElement}
                  className={styles.item}
                  style={{ transform: `translateY(${item.start}px)` }}
                >
                  <div
                    role="row"
                    aria-rowindex={item.index + 2}
                    aria-current={row.id === selected ? 'true' : undefined}
                    aria-expanded={renderExpanded ? expanded !== null : undefined}
                    className={[
                      styles.row,
                      onRowClick ? styles.clickable : '',
                      error ? styles.error : '',
                    ]
                      .filter(Boolean)
                      .join(' ')}
                    style={{ gridTemplateColumns }}
                    onClick={onRowClick ? () => onRowClick(row.original) : undefined}
                  >
                    {row
                      .getVisibleCells()
                      .filter((cell) => !hidden.includes(cell.column.id))
                      .map((cell) => (
                        <div
                          role="cell"
                          key={cell.id}
                          className={meta(cell.column).numeric ? styles.num : undefined}
                        >
                          {flexRender(cell.column.columnDef.cell, cell.getContext())}
                        </div>
                      ))}
                  </div>
                  {expanded !== null ? (
                    <div role="row" className={styles.expanded}>
                      {/* As wide as the visible box: a wide table scrolls sideways, its detail must not. */}
                      <div role="cell" style={width === null ? undefined : { width }}>
                        {expanded}
                      </div>
                    </div>
                  ) : null}
                </div>
              );
            })}
          </div>
          {footer ? (
            <div role="rowgroup" className={styles.foot}>
              <div role="row" className={styles.row} style={{ gridTemplateColumns }}>
                {visible.map((c) => (
                  <div role="cell" key={c.id} className={meta(c).numeric ? styles.num : undefined}>
                    {footer(c.id)}
                  </div>
                ))}
              </div>
            </div>
          ) : null}
          {tableRows.length === 0 ? <div className={styles.empty}>{empty}</div> : null}
        </div>
      </div>
      {hidden.length > 0 ? (
        <p className={styles.hiddenNote}>
          Hidden at this width:{' '}
          {leaves
            .filter((c) => hidden.includes(c.id))
            .map((c) => meta(c).label)
            .join(', ')}
        </p>
      ) : null}
    </div>
  );
}

/** The element's content width, kept current as the window or a side panel resizes it. */
function useWidth(ref: React.RefObject<HTMLElement | null>): number | null {
  const [width, setWidth] = useState<number | null>(null);
  useLayoutEffect(() => {
    const element = ref.current;
    if (element === null) return undefined;
    setWidth(element.clientWidth);
    const observer = new ResizeObserver(() => setWidth(element.clientWidth));
    observer.observe(element);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}
