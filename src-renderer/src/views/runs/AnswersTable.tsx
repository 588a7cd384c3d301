import { useMemo } from 'react';
import { createColumnHelper, type ColumnDef } from '@tanstack/react-table';
import { type BenchmarkProfile, type SchemeId } from '@shared/benchmarks';
import { ERROR_PREDICTION, type AnswerRecord } from '@shared/experiment';
import { metricList } from '@shared/metrics';
import { CategoryBadge } from '../../components/Badge/Badge';
import { formatScore } from '../../components/charts/categoryRows';
import { Table } from '../../components/Table/Table';
import { formatSort, parseSort } from '../../components/Table/sortParam';
import { answerKey, isCorrect } from './shape';

const column = createColumnHelper<AnswerRecord>();

/** The score columns' metric ids: a run shows only the metrics it has (the judge's column stays). */
const METRIC_IDS = new Set<string>(
  metricList()
    .filter((m) => m.source !== 'judge')
    .map((m) => m.id),
);

// One column per registered metric that is scored with the answer (the judge has its own column,
// with its labels and errors). Official F1 is coloured by the table's correct/incorrect rule.
const scoreColumns = metricList()
  .filter((m) => m.source !== 'judge')
  .map((m) =>
    column.accessor((a) => a.scores[m.id] ?? undefined, {
      id: m.id,
      header: m.short,
      // F1 is what a row is read by; recall says whether retrieval found the evidence.
      meta: {
        width: '70px',
        min: 70,
        numeric: true,
        priority: m.id === 'officialF1' ? 1 : m.id === 'evidenceRecall' ? 2 : 3,
      },
      cell: (info) =>
        m.id === 'officialF1' ? (
          <span className={isCorrect(info.row.original) ? 'score-ok' : 'score-bad'}>
            {formatScore(info.getValue() ?? null)}
          </span>
        ) : (
          formatScore(info.getValue() ?? null)
        ),
    }),
  );

// Fixed columns at module scope; only the category column depends on state (the scheme).
const before = [
  column.accessor('sampleId', {
    header: 'Sample',
    cell: (info) => <code>{info.getValue()}</code>,
    meta: { width: '76px', min: 76, priority: 3 },
  }),
  column.accessor('questionIndex', {
    header: 'Q#',
    // Room for three digits and the sort mark: a 4-digit LoCoMo index must not wrap.
    meta: { width: '56px', min: 56, numeric: true, priority: 2 },
  }),
] as ColumnDef<AnswerRecord, unknown>[];

const after = [
  column.accessor('question', {
    header: 'Question',
    meta: { width: 'minmax(150px, 2fr)', min: 150 },
    // The row handles the click; the button gives it a name and keyboard focus.
    cell: (info) => (
      <button type="button" className="link-button question-button">
        {info.getValue()}
      </button>
    ),
  }),
  column.accessor((a) => a.gold ?? undefined, {
    id: 'gold',
    header: 'Gold',
    meta: { width: 'minmax(90px, 1fr)', min: 90 },
    cell: (info) => info.getValue() ?? <span className="muted">(adversarial, no answer)</span>,
  }),
  column.accessor('prediction', {
    header: 'Prediction',
    meta: { width: 'minmax(110px, 1.2fr)', min: 110 },
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
  column.accessor((a) => (a.judge?.error === null ? a.judge.mean : undefined), {
    id: 'judge',
    header: 'Judge',
    meta: { width: '66px', min: 66, numeric: true, priority: 2 },
    cell: (info) => {
      const judge = info.row.original.judge;
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
  column.accessor(
    (a) => (a.usage === null ? undefined : a.usage.promptTokens + a.usage.completionTokens),
    {
      id: 'tokens',
      header: 'Tokens',
      meta: { width: '72px', min: 72, numeric: true, priority: 3 },
      cell: (info) => {
        const usage = info.row.original.usage;
        return usage === null ? (
          <span className="muted">–</span>
        ) : (
          <span title={`${usage.promptTokens} prompt + ${usage.completionTokens} completion`}>
            {usage.promptTokens + usage.completionTokens}
          </span>
        );
      },
    },
  ),
  column.accessor((a) => a.retrieveMs + a.answerMs, {
    id: 'latency',
    // The unit in the header, not only in a tooltip.
    header: 'Latency ms',
    meta: { width: '80px', min: 80, numeric: true, priority: 2 },
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
  scheme: SchemeId,
  profile: BenchmarkProfile,
): ColumnDef<AnswerRecord, unknown> {
  return column.accessor('category', {
    header: 'Category',
    cell: (info) => <CategoryBadge id={info.getValue()} scheme={scheme} profile={profile} />,
    meta: { width: '116px', min: 116, priority: 2 },
  }) as ColumnDef<AnswerRecord, unknown>;
}

/**
 * Final answers, one row each, sortable by every column (the sort lives in the URL). Filtering
 * is the caller's (filterAnswers); the text search is there too, as it covers the error text.
 */
export function AnswersTable({
  answers,
  scheme,
  profile,
  metrics,
  selected,
  onSelect,
  onClose,
  sort,
  onSortChange,
}: {
  /** Already filtered. */
  answers: AnswerRecord[];
  scheme: SchemeId;
  /** The run's benchmark, which names the categories. */
  profile: BenchmarkProfile;
  /** The metrics the run has; a registered metric not among them gets no column. */
  metrics: readonly string[];
  selected: string | null;
  onSelect: (key: string) => void;
  /** Puts the open question's panel away (Escape). */
  onClose: () => void;
  /** As sortParam writes it. */
  sort: string | null;
  onSortChange: (sort: string | null) => void;
}) {
  // Keyed by the metrics' names, not the array: the caller derives a fresh one each render, and
  // new columns make the table rebuild every row (a sort of 1,986 answers did, twice over).
  const metricsKey = metrics.join('\n');
  const columns = useMemo(() => {
    const shown = new Set(metricsKey.split('\n'));
    const kept = after.filter(
      (c) => c.id === undefined || !METRIC_IDS.has(c.id) || shown.has(c.id),
    );
    return [...before, categoryColumn(scheme, profile), ...kept];
  }, [scheme, profile, metricsKey]);
  return (
    <Table
      label="Questions"
      rows={answers}
      columns={columns}
      rowId={answerKey}
      sort={parseSort(sort)}
      onSortChange={(next) => onSortChange(formatSort(next))}
      selected={selected}
      onRowClick={(a) => onSelect(answerKey(a))}
      stepKeys={{ onOpen: (a) => onSelect(answerKey(a)), onClose }}
      isErrorRow={(a) => a.error !== null}
      empty="No question matches the filters."
      maxHeight="min(62vh, 620px)"
    />
  );
}
