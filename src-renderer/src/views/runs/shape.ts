import {
  DEFAULT_SCHEME,
  allCategoryIds,
  isSchemeId,
  type CategoryId,
  type SchemeId,
} from '@shared/benchmarks';
import {
  type AnswerRecord,
  type CurvePoint,
  type JudgeMeanN,
  type RunSummary,
} from '@shared/experiment';
import { isMetricId, metricList } from '@shared/metrics';
import type { RunManifest } from '@shared/runs';
import type { ChartMetric } from '../../components/charts/categoryRows';
import { plural } from '../../lib/format';

/**
 * The category filter's universe: every registered benchmark's numbers, so the URL state can be
 * read before the view knows whose dataset or run it shows (its checkboxes list its own).
 */
const FILTER_CATEGORY_IDS: readonly CategoryId[] = allCategoryIds();

/**
 * Pure data shaping for the Runs view: URL state, the question table's filters, the curve's
 * aggregation and the retrieved-memories panel. Tested under plain Node.
 */

// ---------------------------------------------------------------------------------------------
// URL state

export const OUTCOMES = ['all', 'correct', 'incorrect'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** Curve mode: every sample's line, the mean per test index, or one sample. */
export type CurveMode =
  { kind: 'auto' } | { kind: 'mean' } | { kind: 'each' } | { kind: 'sample'; sampleId: string };

export interface RunsParams {
  run: string | null;
  metric: ChartMetric;
  scheme: SchemeId;
  curve: CurveMode;
  categories: CategoryId[];
  outcome: Outcome;
  errorsOnly: boolean;
  search: string;
  /** Only this sample's questions; null: every sample. */
  sample: string | null;
  /** The open question, as answerKey(). */
  question: string | null;
  /** The questions table's sort, as sortParam writes it; null: dataset order. */
  sort: string | null;
  /** The run list's sort and text search. */
  runSort: string | null;
  runSearch: string;
  /** The run list groups its rows by sample set (runSets.ts groupBySampleSet). */
  runGroupBySet: boolean;
  /** The labelling mode is open (LabellingPanel): a reload resumes it. */
  labelling: boolean;
}

export type RunsParamsPatch = Partial<RunsParams>;

function parseCurve(value: string | null): CurveMode {
  if (value === 'mean' || value === 'each') return { kind: value };
  if (value?.startsWith('sample:')) return { kind: 'sample', sampleId: value.slice(7) };
  return { kind: 'auto' };
}

function curveToString(mode: CurveMode): string | null {
  if (mode.kind === 'auto') return null;
  return mode.kind === 'sample' ? `sample:${mode.sampleId}` : mode.kind;
}

/** `recall` is the evidence-recall URL value (kept short and stable); the others are their ids. */
function parseMetric(value: string | null): ChartMetric {
  if (value === 'recall') return 'evidenceRecall';
  return value !== 'evidenceRecall' && isMetricId(value) ? value : 'officialF1';
}

/**
 * The metrics a run can be shown by, in registry order: those that score every category always,
 * the others (Mem0-style) once they scored an answer, a judge metric only when the run had a
 * judge (its manifest says so).
 */
export function runMetrics(
  summary: Pick<RunSummary, 'overall'>,
  manifest: Pick<RunManifest, 'judge'>,
): ChartMetric[] {
  return metricList()
    .filter((m) =>
      m.source === 'judge'
        ? Boolean(manifest.judge)
        : (m.categories === 'all' && !m.hideWhenEmpty) || (summary.overall.all[m.id]?.n ?? 0) > 0,
    )
    .map((m) => m.id);
}

/** "0.750 ± 0.071": J as Mem0 reports it; the std is left out when there is none. */
export function formatJudge(judge: Pick<JudgeMeanN, 'mean' | 'std'>): string {
  if (judge.mean === null) return '–';
  return judge.std === null
    ? judge.mean.toFixed(3)
    : `${judge.mean.toFixed(3)} ± ${judge.std.toFixed(3)}`;
}

/** "$0.0123"; small costs keep enough digits to be told apart. "–" without prices. */
export function formatCost(cost: number | null | undefined): string {
  if (cost === null || cost === undefined) return '–';
  if (cost === 0) return '$0';
  return cost < 0.01 ? `$${cost.toPrecision(2)}` : `$${cost.toFixed(2)}`;
}

export { formatCount as formatTokens } from '../../lib/format';

export function parseRunsParams(params: URLSearchParams): RunsParams {
  const scheme = params.get('scheme');
  const cats = params.get('cats');
  const outcome = params.get('outcome');
  return {
    run: params.get('run') || null,
    metric: parseMetric(params.get('metric')),
    scheme: isSchemeId(scheme) ? scheme : DEFAULT_SCHEME,
    curve: parseCurve(params.get('curve')),
    categories:
      cats === null
        ? [...FILTER_CATEGORY_IDS]
        : FILTER_CATEGORY_IDS.filter((id) => cats.split(',').includes(String(id))),
    outcome: (OUTCOMES as readonly string[]).includes(outcome ?? '') ? (outcome as Outcome) : 'all',
    errorsOnly: params.get('errors') === '1',
    search: params.get('q') ?? '',
    sample: params.get('sample') || null,
    question: params.get('question') || null,
    sort: params.get('sort') || null,
    runSort: params.get('rsort') || null,
    runSearch: params.get('rq') ?? '',
    runGroupBySet: params.get('rgroup') === 'set',
    labelling: params.get('label') === '1',
  };
}

/** The inverse of parseRunsParams; defaults are left out so URLs stay short. */
export function runsParamsToRecord(state: RunsParams): Record<string, string> {
  const out: Record<string, string> = {};
  if (state.run) out.run = state.run;
  if (state.metric === 'evidenceRecall') out.metric = 'recall';
  else if (state.metric !== 'officialF1') out.metric = state.metric;
  if (state.scheme !== DEFAULT_SCHEME) out.scheme = state.scheme;
  const curve = curveToString(state.curve);
  if (curve) out.curve = curve;
  if (state.categories.length !== FILTER_CATEGORY_IDS.length) out.cats = state.categories.join(',');
  if (state.outcome !== 'all') out.outcome = state.outcome;
  if (state.errorsOnly) out.errors = '1';
  if (state.search) out.q = state.search;
  if (state.sample) out.sample = state.sample;
  if (state.question) out.question = state.question;
  if (state.sort) out.sort = state.sort;
  if (state.runSort) out.rsort = state.runSort;
  if (state.runSearch) out.rq = state.runSearch;
  if (state.runGroupBySet) out.rgroup = 'set';
  if (state.labelling) out.label = '1';
  return out;
}

// ---------------------------------------------------------------------------------------------
// Question table

/** The rule the table's correct/incorrect filter uses; the UI states it next to the filter. */
export const CORRECT_F1 = 0.5;

export function isCorrect(answer: Pick<AnswerRecord, 'scores'>): boolean {
  return (answer.scores['officialF1'] ?? 0) >= CORRECT_F1;
}

export function answerKey(answer: Pick<AnswerRecord, 'sampleId' | 'questionIndex'>): string {
  return `${answer.sampleId}#${answer.questionIndex}`;
}

export interface AnswerFilters {
  categories: readonly CategoryId[];
  outcome: Outcome;
  errorsOnly: boolean;
  search: string;
  /** One sample's questions; null or absent: every sample. */
  sample?: string | null;
}

export function filterAnswers(
  answers: readonly AnswerRecord[],
  { categories, outcome, errorsOnly, search, sample = null }: AnswerFilters,
): AnswerRecord[] {
  const wanted = new Set(categories);
  const needle = search.trim().toLowerCase();
  return answers.filter((a) => {
    if (!wanted.has(a.category)) return false;
    if (sample !== null && a.sampleId !== sample) return false;
    if (errorsOnly && a.error === null) return false;
    if (outcome === 'correct' && !isCorrect(a)) return false;
    if (outcome === 'incorrect' && isCorrect(a)) return false;
    if (needle === '') return true;
    return [a.question, a.gold ?? '', a.prediction, a.error ?? '', a.sampleId].some((s) =>
      s.toLowerCase().includes(needle),
    );
  });
}

export function toggleCategory(current: readonly CategoryId[], id: CategoryId): CategoryId[] {
  const set = new Set(current);
  if (set.has(id)) set.delete(id);
  else set.add(id);
  return FILTER_CATEGORY_IDS.filter((c) => set.has(c));
}

// ---------------------------------------------------------------------------------------------
// Accuracy as the conversation grows

/** A point of a curve line: the per-test mean of every metric (null where nothing was scored). */
export type CurveLinePoint = Record<ChartMetric, number | null> & {
  /** dialogsInserted for one sample; the test index when samples are averaged. */
  x: number;
  /** Questions visible at this test (one sample), or samples averaged (mean). */
  n: number;
};

export interface CurveLine {
  key: string;
  label: string;
  points: CurveLinePoint[];
}

export interface CurveView {
  /** What x means. */
  x: 'dialogs' | 'test';
  /**
   * Which metrics are drawn: the chosen one, with evidence recall beside it as the retrieval
   * reference; 'each' draws the chosen metric only, so many lines stay readable.
   */
  metrics: ChartMetric[];
  lines: CurveLine[];
  /** The mode actually shown (auto resolved). */
  mode: Exclude<CurveMode, { kind: 'auto' }>;
}

/** Up to this many samples get a line each by default; more are averaged per test index. */
export const MAX_EACH_LINES = 4;

export function curveSampleIds(curve: readonly CurvePoint[]): string[] {
  return [...new Set(curve.map((p) => p.sampleId))].sort();
}

function meanOf(values: readonly (number | null)[]): number | null {
  const real = values.filter((v): v is number => v !== null);
  return real.length === 0 ? null : real.reduce((s, v) => s + v, 0) / real.length;
}

/**
 * Mean across samples per test index. Samples differ in length, so a test index stands for "the
 * k-th tenth of the questions became visible" rather than a dialog count; n says how many samples
 * reached it.
 */
export function meanCurveByTest(curve: readonly CurvePoint[]): CurveLinePoint[] {
  const byTest = new Map<number, CurvePoint[]>();
  for (const p of curve) {
    const list = byTest.get(p.testIndex) ?? [];
    list.push(p);
    byTest.set(p.testIndex, list);
  }
  return [...byTest.entries()]
    .sort(([a], [b]) => a - b)
    .map(([testIndex, points]) => {
      const out: CurveLinePoint = { x: testIndex, n: points.length };
      // Every general metric; a benchmark's own (LongMemEval's recalls) where its points carry it.
      for (const m of metricList()) {
        if (m.categories === 'declared' && !points.some((p) => m.id in p.means)) continue;
        out[m.id] = meanOf(points.map((p) => p.means[m.id] ?? null));
      }
      return out;
    });
}

function sampleLine(curve: readonly CurvePoint[], sampleId: string): CurveLine {
  return {
    key: sampleId,
    label: sampleId,
    points: curve
      .filter((p) => p.sampleId === sampleId)
      .sort((a, b) => a.dialogsInserted - b.dialogsInserted)
      .map((p) => ({ ...p.means, x: p.dialogsInserted, n: p.visibleCount })),
  };
}

export function curveView(
  curve: readonly CurvePoint[],
  mode: CurveMode,
  metric: ChartMetric = 'officialF1',
): CurveView {
  const withReference: ChartMetric[] =
    metric === 'evidenceRecall' ? [metric] : [metric, 'evidenceRecall'];
  const samples = curveSampleIds(curve);
  let resolved: CurveView['mode'];
  if (mode.kind === 'auto') {
    resolved =
      samples.length === 1 && samples[0] !== undefined
        ? { kind: 'sample', sampleId: samples[0] }
        : samples.length <= MAX_EACH_LINES
          ? { kind: 'each' }
          : { kind: 'mean' };
  } else if (mode.kind === 'sample' && !samples.includes(mode.sampleId)) {
    resolved = { kind: 'mean' };
  } else {
    resolved = mode;
  }
  switch (resolved.kind) {
    case 'sample':
      return {
        x: 'dialogs',
        metrics: withReference,
        lines: [sampleLine(curve, resolved.sampleId)],
        mode: resolved,
      };
    case 'each':
      return {
        x: 'dialogs',
        metrics: [metric],
        lines: samples.map((id) => sampleLine(curve, id)),
        mode: resolved,
      };
    case 'mean':
      return {
        x: 'test',
        metrics: withReference,
        lines: [
          {
            key: 'mean',
            label: `mean of ${plural(samples.length, 'sample')}`,
            points: meanCurveByTest(curve),
          },
        ],
        mode: resolved,
      };
  }
}

// ---------------------------------------------------------------------------------------------
// Retrieved memories

// One owner with the HTML report's flip explanations (src-shared/flipExplain.ts).
export {
  retrievedView,
  turnsById,
  type RetrievedRow,
  type RetrievedView,
} from '@shared/flipExplain';

// ---------------------------------------------------------------------------------------------
// Display

export function formatDuration(startIso: string, endIso: string | null, now?: number): string {
  const start = Date.parse(startIso);
  const end = endIso ? Date.parse(endIso) : now;
  if (!Number.isFinite(start) || end === undefined || !Number.isFinite(end)) return '—';
  const seconds = Math.max(0, Math.round((end - start) / 1000));
  if (seconds < 60) return `${seconds}s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m}m ${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/** Local date and time to the minute, in a fixed order so tables line up. */
export function formatDateTime(iso: string | null): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

export function shortHash(hash: string | null | undefined, length = 12): string {
  return hash ? hash.slice(0, length) : '—';
}
