import {
  categoryLabel,
  type BenchmarkProfile,
  type OverallName,
} from '../../../src-shared/benchmarks';
import {
  rankingDepthFootnotes,
  rankingDepthLabel,
  type MeanN,
  type RunSummary,
  type ScorePair,
} from '../../../src-shared/experiment';
import type { ProtocolJudgeSummary } from '../../../src-shared/rescore';
import { judgeColumnNames, judgeLabel } from '../../../src-shared/judges';
import type { SkippedSample } from '../../../src-shared/runs';
import {
  metricList,
  metricScores,
  type MetricDefinition,
  type MetricMean,
} from '../../../src-shared/metrics';
import type { ErrataRecord, ErrataScores } from '../../../src-shared/errata';
import { formatMeanStd, type RepeatPair, type RepeatSummary } from '../../../src-shared/repeats';
import type { Percentiles, Table2Columns } from '../../../src-shared/compare';

/** Plain-text renderings of run results for the CLI (the UI draws its own). */

const fmt = (m: MeanN | undefined): string =>
  m === undefined || m.mean === null ? '-' : m.mean.toFixed(3);

/** An overall's row label in its benchmark's words: "overall (all, official)". */
export function overallLabel(name: OverallName): string {
  return `overall (${name.label})`;
}

/**
 * The rows of a summary's overalls the run's benchmark names: every question, then its headline
 * subset ("overall (categories 1-4)") unless it has none.
 */
export function overallRows<P>(
  overall: { all: P; answerable?: P | undefined },
  profile: BenchmarkProfile,
): Array<[label: string, pair: P | undefined]> {
  const { all, answerable } = profile.overallNames;
  const rows: Array<[string, P | undefined]> = [[overallLabel(all), overall.all]];
  if (answerable) rows.push([overallLabel(answerable), overall.answerable]);
  return rows;
}

export function schemeLabel(profile: BenchmarkProfile, scheme: string): string {
  return profile.schemes.find((s) => s.id === scheme)?.label ?? scheme;
}

/**
 * The table's metrics: those that score some category of the run's benchmark (BEAM's rubric
 * questions have no F1 column), less those hidden while nothing has a value (no judge ran).
 */
function shownMetrics(summary: RunSummary, profile: BenchmarkProfile): MetricDefinition[] {
  return metricList().filter(
    (m) =>
      profile.categories.some((c) => metricScores(m, c)) &&
      (!m.hideWhenEmpty || (summary.overall.all[m.id]?.n ?? 0) > 0),
  );
}

function metricCells(m: MetricDefinition, s: MetricMean | undefined, withStd: boolean): string[] {
  return [
    fmt(s),
    ...(withStd ? [s?.std == null ? '-' : s.std.toFixed(3)] : []),
    ...(m.showN ? [`${s?.n ?? 0}`] : []),
  ];
}

export function summaryTable(
  summary: RunSummary,
  scheme: string,
  profile: BenchmarkProfile,
): string {
  const metrics = shownMetrics(summary, profile);
  // A metric with its own spread (J over repeats) gets a std column.
  const withStd = new Set(
    metrics.filter((m) => summary.overall.all[m.id]?.std !== undefined).map((m) => m.id),
  );
  const rows: string[][] = [
    [
      'category',
      ...metrics.flatMap((m) => [
        rankingDepthLabel(m.label, m, summary),
        ...(withStd.has(m.id) ? [`${m.label} std`] : []),
        ...(m.showN ? ['n'] : []),
      ]),
    ],
  ];
  const row = (label: string, s: ScorePair | undefined): string[] => [
    label,
    ...metrics.flatMap((m) => metricCells(m, s?.[m.id], withStd.has(m.id))),
  ];
  for (const c of profile.categories)
    rows.push(row(`${c.id} ${categoryLabel(profile, c.id, scheme)}`, summary.byCategory[c.id]));
  const { taskAveraged, abstention } = summary.overall;
  for (const [label, pair] of overallRows(summary.overall, profile)) rows.push(row(label, pair));
  if (taskAveraged) rows.push(row('task-averaged (mean over question types)', taskAveraged));
  if (abstention) rows.push(row('abstention (abstention questions only)', abstention));
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]): string =>
    r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const out = [
    `Final answers, categories named by ${schemeLabel(profile, scheme)} scheme`,
    line(rows[0]!),
  ];
  for (const r of rows.slice(1)) out.push(line(r));
  out.push(`questions ${summary.questions}, errors ${summary.errors}`);
  out.push(...rankingDepthFootnotes(metrics, summary));
  return `${out.join('\n')}\n`;
}

/**
 * J per judge protocol that `rescore --judge` ran, one column per protocol, beside the run's own J
 * (which the summary table shows); empty when none ran, so reports of other runs are unchanged.
 */
export function protocolJudgeTable(
  protocols: readonly ProtocolJudgeSummary[],
  scheme: string,
  profile: BenchmarkProfile,
): string {
  if (protocols.length === 0) return '';
  const cell = (s: { mean: number; n: number } | undefined): string =>
    s === undefined ? '-' : `${s.mean.toFixed(3)} (${s.n})`;
  const rows: string[][] = [
    ['category', ...judgeColumnNames(protocols).map((name) => `J ${name}`)],
  ];
  for (const c of profile.categories) {
    const cells = protocols.map((p) => p.byCategory[String(c.id)]);
    if (cells.some((x) => x !== undefined))
      rows.push([`${c.id} ${categoryLabel(profile, c.id, scheme)}`, ...cells.map(cell)]);
  }
  rows.push(['overall', ...protocols.map((p) => cell(p.overall))]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]): string =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const out = ['J per judge protocol (rescore --judge), final answers: mean (n)'];
  for (const r of rows) out.push(line(r));
  for (const p of protocols) {
    const notes = [
      ...(p.errors > 0 ? [`${p.errors} without a verdict`] : []),
      ...(p.unparseable > 0 ? [`${p.unparseable} unreadable replies`] : []),
    ];
    out.push(
      `  ${judgeLabel(p)}: prompt sha256 ${p.promptSha256.slice(0, 12)}` +
        `${notes.length > 0 ? `; ${notes.join(', ')}` : ''}`,
    );
  }
  return `${out.join('\n')}\n`;
}

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** The invalid samples a run left out (`--skip-invalid`), one line each; empty when none were. */
export function skippedReport(skipped: readonly SkippedSample[]): string {
  if (skipped.length === 0) return '';
  const lines = skipped.map(
    (s) =>
      `  ${s.sampleId === null ? `#${s.sampleIndex}` : `${s.sampleId} (#${s.sampleIndex})`}: ${s.problems.join('; ')}`,
  );
  return `skipped ${skipped.length} invalid sample(s) (--skip-invalid):\n${lines.join('\n')}\n`;
}

/**
 * `experiment --repeats N`: each metric as mean ± std over the N complete runs (sample std of the
 * runs' means), per category and overall; J's within-run judge-repeat spread stays a separate,
 * labelled column.
 */
export function repeatTable(
  summary: RepeatSummary,
  scheme: string,
  profile: BenchmarkProfile,
): string {
  const metrics = metricList().filter(
    (m) => !m.hideWhenEmpty || (summary.overall.all[m.id]?.runs ?? 0) > 0,
  );
  const judgeRepeats = summary.overall.all['judge']?.judgeRepeatStd != null;
  const header = [
    'category',
    ...metrics.map((m) => `${m.label} mean ± std`),
    ...(judgeRepeats ? ['J judge-repeat std'] : []),
  ];
  const row = (label: string, pair: RepeatPair | undefined): string[] => [
    label,
    ...metrics.map((m) => formatMeanStd(pair?.[m.id])),
    ...(judgeRepeats
      ? [pair?.['judge']?.judgeRepeatStd == null ? '-' : pair['judge'].judgeRepeatStd.toFixed(3)]
      : []),
  ];
  const rows = [header];
  for (const c of profile.categories)
    rows.push(row(`${c.id} ${categoryLabel(profile, c.id, scheme)}`, summary.byCategory[c.id]));
  for (const [label, pair] of overallRows(summary.overall, profile)) rows.push(row(label, pair));
  const widths = header.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]): string =>
    r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return [
    `Mean ± std over ${summary.runs} complete runs (sample std, n - 1), categories named by ${schemeLabel(profile, scheme)} scheme`,
    ...rows.map(line),
    ...(judgeRepeats
      ? [
          'J judge-repeat std: the same answers judged several times, mean over runs (not run-to-run)',
        ]
      : []),
    '',
  ].join('\n');
}

/**
 * A run with errata: per category, each answer metric against the original gold, against the
 * corrected gold, and the ceiling (the most any system scores against the original gold).
 */
export function errataTable(
  scores: ErrataScores,
  record: Pick<ErrataRecord, 'file' | 'sha256' | 'entries'>,
  scheme: string,
  profile: BenchmarkProfile,
): string {
  const metrics = metricList().filter((m) => m.source === 'answer');
  const header = ['category', ...metrics.map((m) => `${m.label} original / corrected / ceiling`)];
  const cell = (a: MeanN | undefined, b: MeanN | undefined, c: MeanN | undefined): string =>
    `${fmt(a)} / ${fmt(b)} / ${fmt(c)}`;
  const rows = [header];
  for (const c of profile.categories) {
    rows.push([
      `${c.id} ${categoryLabel(profile, c.id, scheme)}`,
      ...metrics.map((m) =>
        cell(
          scores.original.byCategory[c.id]?.[m.id],
          scores.corrected.byCategory[c.id]?.[m.id],
          scores.ceiling[String(c.id)]?.[m.id],
        ),
      ),
    ]);
  }
  rows.push([
    overallLabel(profile.overallNames.all),
    ...metrics.map((m) =>
      cell(
        scores.original.overall.all[m.id],
        scores.corrected.overall.all[m.id],
        scores.ceiling['all']?.[m.id],
      ),
    ),
  ]);
  const widths = header.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]): string =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [
    `Errata ${record.file} (sha256 ${record.sha256.slice(0, 12)}…): ${record.entries.length} entries, ${scores.applied} final answers rescored against the corrected gold`,
    ...rows.map(line),
    'ceiling: the most any system scores against the original gold (the corrected answer where the gold is wrong); J is not re-asked against the corrected gold',
    '',
  ].join('\n');
}

/** Mem0 Table 2's columns for one run, one line (seconds, as the paper prints them). */
export function table2Line(columns: Table2Columns): string {
  const seconds = (p: Percentiles | null): string =>
    p === null ? '-' : `p50 ${(p.p50 / 1000).toFixed(3)} s, p95 ${(p.p95 / 1000).toFixed(3)} s`;
  const ingest = columns.ingest
    ? `${Math.round(columns.ingest.callsPerConversation).toLocaleString('en-US')} memory LLM calls and ${Math.round(columns.ingest.tokensPerConversation).toLocaleString('en-US')} tokens per conversation (${columns.ingest.conversations} conversations)`
    : 'no memory LLM';
  const tokens = columns.memoryTokens;
  const memory = tokens
    ? `mean ${Math.round(tokens.mean).toLocaleString('en-US')}, p50 ${Math.round(tokens.p50).toLocaleString('en-US')}`
    : 'unknown (not counted for this run)';
  return `Mem0 Table 2 columns: search ${seconds(columns.searchMs)}; total (search + answer) ${seconds(columns.totalMs)}; memory tokens / question ${memory}; ingest ${ingest}\n`;
}
