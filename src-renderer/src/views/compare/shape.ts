import {
  isCompareMetric,
  type CompareMetric,
  type CompareRow,
  type Flip,
  type RunComparison,
} from '@shared/compare';
import {
  DEFAULT_SCHEME,
  allCategoryIds,
  categoryLabel as profileCategoryLabel,
  isSchemeId,
  type BenchmarkProfile,
  type CategoryId,
  type SchemeId,
} from '@shared/benchmarks';
import { ERROR_PREDICTION } from '@shared/experiment';
import { metricIds, metricList } from '@shared/metrics';
import type { RunListItem } from '@shared/runs';
import { finite } from '@shared/compareTable';
import { bootstrapMeanCI } from '@shared/scoring/stats';
import type { CategoryChartRow } from '../../components/charts/categoryRows';
import { runHaystack } from '../runs/runSets';

/** Every registered benchmark's category numbers: the URL's category is read before the runs are. */
const FILTER_CATEGORY_IDS: readonly CategoryId[] = allCategoryIds();

/**
 * Pure data shaping for the Compare view: URL state, which runs can be compared, the category
 * table and chart, and the per-question rows with their filters. Kept out of the components so
 * it is tested under plain Node and so the 2 x 1,986-question case can be timed without a DOM.
 */

// ---------------------------------------------------------------------------------------------
// URL state

export const FLIPS: readonly Flip[] = ['improved', 'regressed', 'unchanged', 'missing'];
export const METRICS: readonly CompareMetric[] = metricIds();
/** Each registered metric's label (src-shared/metrics), by id. */
export const METRIC_LABELS: Readonly<Record<CompareMetric, string>> = Object.fromEntries(
  metricList().map((m) => [m.id, m.label]),
);
/** The API allows 2..8 runs per comparison. */
export const MAX_COMPARED_RUNS = 8;
/** What the server uses; the caption says so, so the numbers can be reproduced. */
export const BOOTSTRAP_SEED = 0;
export const BOOTSTRAP_RESAMPLES = 2000;

export interface CompareParams {
  /** In the order the user picked them; their position is their letter (A, B, …). */
  runs: string[];
  baseline: string | null;
  metric: CompareMetric;
  scheme: SchemeId;
  /** Flip filter: empty means every row. */
  flips: Flip[];
  /** null: every category. */
  category: CategoryId | null;
  /** null: every sample (conversation). Any id is kept: the URL is read before the rows are. */
  sample: string | null;
  search: string;
  /** The question row expanded to "why did it flip" (flipDetail.ts openKey); null: none. */
  open: string | null;
  /** The questions table's sort, as sortParam writes it; null: dataset order. */
  sort: string | null;
}

export type CompareParamsPatch = Partial<CompareParams>;

function isFlip(value: string): value is Flip {
  return (FLIPS as readonly string[]).includes(value);
}

export function parseCompareParams(params: URLSearchParams): CompareParams {
  const runs = [...new Set((params.get('runs') ?? '').split(',').filter(Boolean))].slice(
    0,
    MAX_COMPARED_RUNS,
  );
  const metric = params.get('metric');
  const scheme = params.get('scheme');
  const category = Number(params.get('cat'));
  const flips = new Set((params.get('flips') ?? '').split(','));
  return {
    runs,
    baseline: params.get('base') || null,
    metric: isCompareMetric(metric) ? metric : 'officialF1',
    scheme: isSchemeId(scheme) ? scheme : DEFAULT_SCHEME,
    // Kept in canonical order so the same filter is the same URL.
    flips: FLIPS.filter((f) => flips.has(f)),
    category: params.has('cat') && FILTER_CATEGORY_IDS.includes(category) ? category : null,
    sample: params.get('sample') || null,
    search: params.get('q') ?? '',
    open: params.get('open') || null,
    sort: params.get('sort') || null,
  };
}

/** The inverse of parseCompareParams; defaults are left out so URLs stay short. */
export function compareParamsToRecord(state: CompareParams): Record<string, string> {
  const out: Record<string, string> = {};
  if (state.runs.length > 0) out.runs = state.runs.join(',');
  if (state.baseline) out.base = state.baseline;
  if (state.metric !== 'officialF1') out.metric = state.metric;
  if (state.scheme !== DEFAULT_SCHEME) out.scheme = state.scheme;
  const flips = state.flips.filter(isFlip);
  if (flips.length > 0) out.flips = flips.join(',');
  if (state.category !== null) out.cat = String(state.category);
  if (state.sample) out.sample = state.sample;
  if (state.search) out.q = state.search;
  if (state.open) out.open = state.open;
  if (state.sort) out.sort = state.sort;
  return out;
}

/**
 * Applies a patch; when it changes which runs are compared or the baseline, the question filters
 * and the open question are reset too: a "regressed" filter or an open row picked for one pair
 * means something else (or nothing) for the next, and would silently hide rows.
 */
export function applyComparePatch(
  current: CompareParams,
  patch: CompareParamsPatch,
): CompareParams {
  const next = { ...current, ...patch };
  const samePair =
    next.baseline === current.baseline &&
    next.runs.length === current.runs.length &&
    next.runs.every((id, i) => id === current.runs[i]);
  if (samePair) return next;
  return { ...next, flips: [], category: null, sample: null, search: '', open: null };
}

// ---------------------------------------------------------------------------------------------
// Picking runs

/**
 * Runs still going or that failed before answering anything have nothing stable to compare. A
 * degraded run finished (its errors count as wrong answers), so it compares like a completed one.
 */
export function isComparableStatus(status: RunListItem['status']): boolean {
  return status === 'completed' || status === 'degraded' || status === 'cancelled';
}

/** A run that ran its course: every question has its final answer. */
export function isFinishedStatus(status: RunListItem['status']): boolean {
  return status === 'completed' || status === 'degraded';
}

/**
 * Toggles a run in the selection. The baseline follows: the first run picked becomes it, and
 * removing the baseline hands the role to the first remaining run, so a valid pair never needs
 * an extra click.
 */
export function toggleRun(
  state: Pick<CompareParams, 'runs' | 'baseline'>,
  runId: string,
): Pick<CompareParams, 'runs' | 'baseline'> {
  if (state.runs.includes(runId)) {
    const runs = state.runs.filter((id) => id !== runId);
    const baseline =
      state.baseline === runId || state.baseline === null ? (runs[0] ?? null) : state.baseline;
    return { runs, baseline };
  }
  if (state.runs.length >= MAX_COMPARED_RUNS) return state;
  const runs = [...state.runs, runId];
  return { runs, baseline: state.baseline ?? runId };
}

/**
 * The picker's rows: the picked runs first (in pick order, whatever the search, so the selection
 * never scrolls or filters out of view), then the others that match every word of the search in
 * what the Runs list finds them by (runs/runSets.ts runHaystack: name, sweep, samples, tags…).
 */
export function pickerRuns<T extends Parameters<typeof runHaystack>[0]>(
  runs: readonly T[],
  selected: readonly string[],
  search: string,
): T[] {
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  const picked = selected.flatMap((id) => runs.filter((r) => r.id === id));
  const rest = runs.filter((run) => {
    if (selected.includes(run.id)) return false;
    const text = runHaystack(run).toLowerCase();
    return words.every((w) => text.includes(w));
  });
  return [...picked, ...rest];
}

/** The API input, or null while the selection cannot be compared yet. */
export function compareRequest(
  params: Pick<CompareParams, 'runs' | 'baseline' | 'metric'>,
): { runIds: string[]; baselineRunId: string; metric: CompareMetric; seed: number } | null {
  if (params.runs.length < 2 || params.baseline === null) return null;
  if (!params.runs.includes(params.baseline)) return null;
  return {
    runIds: params.runs,
    baselineRunId: params.baseline,
    metric: params.metric,
    seed: BOOTSTRAP_SEED,
  };
}

/**
 * The engine labels runs "preset · run id"; the id is in the tables already, and a legend with
 * it would wrap over the bars.
 */
export function shortRunLabel(label: string): string {
  // The id is last: a sweep cell's name has its own " · " (runName), kept whole.
  const cut = label.lastIndexOf(' · ');
  return cut > 0 ? label.slice(0, cut) : label;
}

export { RUN_COLORS, runColor, runLetter } from '../../../../src-shared/runPalette';

// ---------------------------------------------------------------------------------------------
// Numbers (the shared formatting lives in src-shared/compareTable.ts, which the CLI prints too)

export {
  categoryLabel,
  categoryTableRows,
  formatDelta,
  formatScore,
  formatSigned,
  significance,
  type CategoryTableRow,
  type DeltaExtras,
  type DeltaText,
  type Significance,
} from '@shared/compareTable';

export { formatCount } from '../../lib/format';

/**
 * The cost table's column heads. Two kinds of "memory tokens" sit side by side: what the memory
 * LLM spent (ingest, per model role) and the retrieved context a question hands the answerer
 * (Mem0 Table 2's "memory tokens"); each head says which it is.
 */
export const COST_HEADERS = {
  answer: 'Answer tokens',
  judge: 'Judge tokens',
  memory: 'Memory LLM tokens (ingest)',
  cost: 'Cost',
  retrieveMs: 'Retrieve ms',
  answerMs: 'Answer ms',
  search: 'Search p50 / p95 ms',
  total: 'Total p50 / p95 ms',
  memoryTokens: 'Retrieved memory tokens / question (mean / p50)',
  ingest: 'Memory LLM calls · tokens / conversation',
} as const;

// ---------------------------------------------------------------------------------------------
// Category chart

export function chartKey(runIndex: number): string {
  return `run${runIndex}`;
}

/**
 * Rows for the shared CategoryChart (components/charts): one group per category, one value per
 * run. The "All" row stays in the table only: the shared chart draws categories, and an overall
 * bar several times taller in n would dwarf them anyway. Each row's n is the baseline's, and the
 * tooltip lists every run's n.
 */
export function compareChartRows(
  comparison: RunComparison,
  scheme: SchemeId,
  profile: BenchmarkProfile,
): CategoryChartRow[] {
  const base = comparison.baselineIndex;
  return comparison.categories.flatMap((c) => {
    if (c.category === null) return [];
    const values: Record<string, number | null> = {};
    const ns: Record<string, number> = {};
    c.perRun.forEach((m, i) => {
      values[chartKey(i)] = finite(m.mean) ? m.mean : null;
      ns[chartKey(i)] = m.n;
    });
    return [
      {
        category: c.category,
        label: profileCategoryLabel(profile, c.category, scheme),
        n: c.perRun[base]?.n ?? 0,
        values,
        ns,
      },
    ];
  });
}

/**
 * The chart's whiskers: each run's 95% interval of its category mean, by the run view's bootstrap
 * (same seed and resamples as the table's deltas), over the questions this comparison holds.
 * Apart from compareChartRows because at LoCoMo's size it costs a few hundred ms: the view draws
 * the bars first and the whiskers after.
 */
export function withCompareIntervals(
  chart: readonly CategoryChartRow[],
  comparison: RunComparison,
): CategoryChartRow[] {
  const steps = compareIntervalSteps(chart, comparison);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * withCompareIntervals one bootstrap (a category of a run) at a time: it pauses after each, so a
 * view can run one per task (all of LoCoMo's in one task were 80-500 ms of blocked page).
 */
export function* compareIntervalSteps(
  chart: readonly CategoryChartRow[],
  comparison: RunComparison,
): Generator<void, CategoryChartRow[]> {
  const rows: CategoryChartRow[] = [];
  for (const row of chart) {
    const inCategory = comparison.rows.filter((r) => r.category === row.category);
    const intervals: Record<string, readonly [number, number]> = {};
    for (let i = 0; i < comparison.runs.length; i++) {
      const scores = inCategory.flatMap((r) => {
        const score = r.cells[i]?.score;
        return typeof score === 'number' ? [score] : [];
      });
      if (scores.length === 0) continue;
      const ci = bootstrapMeanCI(scores, { resamples: BOOTSTRAP_RESAMPLES, seed: BOOTSTRAP_SEED });
      intervals[chartKey(i)] = [ci.low, ci.high];
      yield;
    }
    rows.push({ ...row, intervals });
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Per-question rows

export interface QuestionRow extends CompareRow {
  key: string;
  /** Lowercased question, gold and predictions: built once so a keystroke only scans strings. */
  haystack: string;
  /** Flips of the non-baseline runs, for the filter. */
  otherFlips: ReadonlySet<Flip>;
}

/** Built once per comparison; filtering then never re-derives anything per row. */
export function buildQuestionRows(comparison: RunComparison): QuestionRow[] {
  const base = comparison.baselineIndex;
  return comparison.rows.map((row) => ({
    ...row,
    key: `${row.sampleId}\u0000${row.questionIndex}`,
    haystack: [
      row.sampleId,
      row.question,
      row.gold ?? '',
      ...row.cells.map((cell) => cell?.prediction ?? ''),
    ]
      .join('\u0000')
      .toLowerCase(),
    otherFlips: new Set(row.flips.filter((_, i) => i !== base)),
  }));
}

export interface QuestionFilter {
  flips: readonly Flip[];
  category: CategoryId | null;
  sample: string | null;
  search: string;
}

/**
 * A row passes the flip filter when any non-baseline run flipped that way: with two runs that is
 * exactly the pair's flip; with more, "regressed" finds every question some run lost.
 */
export function filterQuestionRows(
  rows: readonly QuestionRow[],
  filter: QuestionFilter,
): QuestionRow[] {
  const needle = filter.search.trim().toLowerCase();
  const flips = filter.flips;
  return rows.filter(
    (row) =>
      (filter.category === null || row.category === filter.category) &&
      (filter.sample === null || row.sampleId === filter.sample) &&
      (flips.length === 0 || flips.some((f) => row.otherFlips.has(f))) &&
      (needle === '' || row.haystack.includes(needle)),
  );
}

/** Chip counts: how many rows each flip chip would show under the other filters. */
export function flipChipCounts(
  rows: readonly QuestionRow[],
  filter: Omit<QuestionFilter, 'flips'>,
): Record<Flip, number> {
  const counts: Record<Flip, number> = { improved: 0, regressed: 0, unchanged: 0, missing: 0 };
  for (const row of filterQuestionRows(rows, { ...filter, flips: [] }))
    for (const flip of row.otherFlips) counts[flip] += 1;
  return counts;
}

/** Questions per category, every category of the baseline's benchmark listed (0 when it has none). */
export function categoryCounts(
  rows: readonly QuestionRow[],
  profile: BenchmarkProfile,
): Record<CategoryId, number> {
  const out: Record<CategoryId, number> = Object.fromEntries(
    profile.categories.map((c) => [c.id, 0]),
  );
  for (const row of rows) out[row.category] = (out[row.category] ?? 0) + 1;
  return out;
}

/**
 * Questions per sample in the rows' (dataset) order. A selected sample the comparison has no row
 * for is listed with 0, so the select still shows what the URL filters on instead of a blank.
 */
export function sampleCounts(
  rows: readonly QuestionRow[],
  selected: string | null = null,
): Array<{ sampleId: string; questions: number }> {
  const counts = new Map<string, number>();
  for (const row of rows) counts.set(row.sampleId, (counts.get(row.sampleId) ?? 0) + 1);
  if (selected !== null && !counts.has(selected)) counts.set(selected, 0);
  return [...counts].map(([sampleId, questions]) => ({ sampleId, questions }));
}

export function toggleFlip(current: readonly Flip[], flip: Flip): Flip[] {
  const set = new Set(current);
  if (set.has(flip)) set.delete(flip);
  else set.add(flip);
  return FLIPS.filter((f) => set.has(f));
}

/**
 * The i / r keys: show only that kind of flip; pressed again, show every question. Unlike the
 * chips (toggleFlip), a key never adds to what is shown: `i` then `r` shows only regressions.
 */
export function onlyFlip(current: readonly Flip[], flip: Flip): Flip[] {
  return current.length === 1 && current[0] === flip ? [] : [flip];
}

/** An errored answer is stored as ERROR_PREDICTION; the cell says so instead of a score. */
export function isErrorCell(cell: CompareRow['cells'][number]): boolean {
  return cell !== null && (cell.error !== null || cell.prediction === ERROR_PREDICTION);
}
