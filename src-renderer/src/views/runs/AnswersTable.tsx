import { useMemo, useRef } from 'react';
import {
  createColumnHelper,
  flexRender,
  getCoreRowModel,
  useReactTable,
  type ColumnDef,
} from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { LOCOMO_PROFILE, categoryLabel, type BenchmarkProfile } from '@shared/benchmarks';
import type { CategoryScheme } from '@shared/dataset/categories';
import { ERROR_PREDICTION, type AnswerRecord } from '@shared/experiment';
import { metricList } from '@shared/metrics';
import { formatScore } from '../../components/charts/categoryRows';
import { answerKey, isCorrect } from './shape';

const column = createColumnHelper<AnswerRecord>();

// One column per registered metric that is scored with the answer (the judge has its own column,
// with its labels and errors). Official F1 is coloured by the table's correct/incorrect rule.
const scoreColumns = metricList()
  .filter((m) => m.source !== 'judge')
  .map((m) =>
    column.accessor((a) => a.scores[m.id] ?? null, {
      id: m.id,
      header: m.short,
      meta: { className: 'num' },
      cell: (info) =>
        m.id === 'officialF1' ? (
          <span className={isCorrect(info.row.original) ? 'score-ok' : 'score-bad'}>
            {formatScore(info.getValue())}
          </span>
        ) : (
          formatScore(info.getValue())
        ),
    }),
  );

// Fixed columns at module scope; only the category column depends on state (the scheme).
const before = [
  column.accessor('sampleId', { header: 'Sample', cell: (info) => <code>{info.getValue()}</code> }),
  column.accessor('questionIndex', { header: 'Q#', meta: { className: 'num' } }),
] as ColumnDef<AnswerRecord, unknown>[];

const after = [
  column.accessor('question', {
    header: 'Question',
    // The row handles the click; the button gives it a name and keyboard focus.
    cell: (info) => (
      <button type="button" className="link-button question-button">
        {info.getValue()}
      </button>
    ),
  }),
  column.accessor('gold', {
    header: 'Gold',
    cell: (info) => info.getValue() ?? <span className="muted">(adversarial, no answer)</span>,
  }),
  column.accessor('prediction', {
    header: 'Prediction',
    cell: (info) => {
      const a = info.row.original;
      return a.error !== null ? (
        <span className="prediction-error" title={a.error}>
          {ERROR_PREDICTION}
          <span className="sr-only"> {a.error}</span>
        </span>
      ) : (
        info.getValue()
      );
    },
  }),
  ...scoreColumns,
  column.accessor('judge', {
    header: 'Judge',
    meta: { className: 'num' },
    cell: (info) => {
      const judge = info.getValue();
      if (judge === null) return <span className="muted">–</span>;
      if (judge.error !== null)
        return (
          <span className="prediction-error" title={judge.error}>
            error
          </span>
        );
      // The labels say what the mean hides: 1 = CORRECT, 0 = WRONG, per repeat.
      return <span title={`labels ${judge.labels.join(', ')}`}>{formatScore(judge.mean)}</span>;
    },
  }),
  column.accessor('usage', {
    header: 'Tokens',
    meta: { className: 'num' },
    cell: (info) => {
      const usage = info.getValue();
      return usage === null ? (
        <span className="muted">–</span>
      ) : (
        <span title={`${usage.promptTokens} prompt + ${usage.completionTokens} completion`}>
          {usage.promptTokens + usage.completionTokens}
        </span>
      );
    },
  }),
  column.display({
    id: 'latency',
    header: 'Latency',
    meta: { className: 'num' },
    cell: (info) => {
      const a = info.row.original;
      return (
        <span title={`retrieve ${a.retrieveMs} ms + answer ${a.answerMs} ms`}>
          {Math.round(a.retrieveMs + a.answerMs)}
        </span>
      );
    },
  }),
] as ColumnDef<AnswerRecord, unknown>[];

function categoryColumn(
  scheme: CategoryScheme,
  profile: BenchmarkProfile,
): ColumnDef<AnswerRecord, unknown> {
  return column.accessor('category', {
    header: 'Category',
    cell: (info) => (
      <span className={`badge cat cat-${info.getValue()}`}>
        {info.getValue()} {categoryLabel(profile, info.getValue(), scheme)}
      </span>
    ),
  }) as ColumnDef<AnswerRecord, unknown>;
}

function cellClass(meta: unknown): string | undefined {
  return typeof meta === 'object' && meta !== null && 'className' in meta
    ? String(meta.className)
    : undefined;
}

/**
 * Final answers, one row each, virtualised (LoCoMo has 1,986 questions and rows wrap to several
 * lines). A real table's layout cannot position rows absolutely, so rows are CSS grids that share
 * one column template while keeping table roles for assistive tech and tests.
 */
export function AnswersTable({
  answers,
  total,
  scheme,
  profile = LOCOMO_PROFILE,
  selected,
  onSelect,
}: {
  /** Already filtered. */
  answers: AnswerRecord[];
  total: number;
  scheme: CategoryScheme;
  /** The run's benchmark, which names the categories. */
  profile?: BenchmarkProfile;
  selected: string | null;
  onSelect: (key: string) => void;
}) {
  const columns = useMemo(
    () => [...before, categoryColumn(scheme, profile), ...after],
    [scheme, profile],
  );
  // eslint-disable-next-line react-hooks/incompatible-library -- TanStack Table returns fresh functions by design; this component is not memoised by the compiler.
  const table = useReactTable({
    data: answers,
    columns,
    getCoreRowModel: getCoreRowModel(),
    getRowId: answerKey,
  });
  const rows = table.getRowModel().rows;
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 44,
    getItemKey: (index) => rows[index]?.id ?? index,
    overscan: 10,
  });

  return (
    <div ref={scrollRef} className="answers-scroll">
      <div
        role="table"
        aria-label="Questions"
        aria-rowcount={total + 1}
        className="answers-table with-llm"
      >
        <div role="rowgroup" className="answers-head">
          {table.getHeaderGroups().map((group) => (
            <div role="row" key={group.id} className="answers-row" aria-rowindex={1}>
              {group.headers.map((header) => (
                <div
                  role="columnheader"
                  key={header.id}
                  className={cellClass(header.column.columnDef.meta)}
                >
                  {flexRender(header.column.columnDef.header, header.getContext())}
                </div>
              ))}
            </div>
          ))}
        </div>
        <div
          role="rowgroup"
          className="answers-body"
          style={{ height: virtualizer.getTotalSize() }}
        >
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index];
            if (!row) return null;
            const error = row.original.error !== null;
            return (
              <div
                role="row"
                key={row.id}
                data-index={item.index}
                ref={virtualizer.measureElement}
                aria-rowindex={item.index + 2}
                aria-current={row.id === selected ? true : undefined}
                className={`answers-row clickable${error ? ' row-error' : ''}`}
                style={{ transform: `translateY(${item.start}px)` }}
                onClick={() => onSelect(row.id)}
              >
                {row.getVisibleCells().map((cell) => (
                  <div role="cell" key={cell.id} className={cellClass(cell.column.columnDef.meta)}>
                    {flexRender(cell.column.columnDef.cell, cell.getContext())}
                  </div>
                ))}
              </div>
            );
          })}
        </div>
        {rows.length === 0 ? <p className="muted empty">No question matches the filters.</p> : null}
      </div>
    </div>
  );
}
