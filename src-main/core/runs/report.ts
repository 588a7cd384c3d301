import {
  LOCOMO_PROFILE,
  categoryLabel,
  type BenchmarkProfile,
} from '../../../src-shared/benchmarks';
import type { MeanN, RunSummary, ScorePair } from '../../../src-shared/experiment';
import type { SkippedSample } from '../../../src-shared/runs';
import { metricList, type MetricDefinition, type MetricMean } from '../../../src-shared/metrics';

/** Plain-text renderings of run results for the CLI (the UI draws its own). */

const fmt = (m: MeanN | undefined): string =>
  m === undefined || m.mean === null ? '-' : m.mean.toFixed(3);

/** "1-4" for a run of consecutive numbers, else "1, 3, 4". */
function numberList(ids: readonly number[]): string {
  const sorted = [...ids].sort((a, b) => a - b);
  const consecutive = sorted.every((id, i) => i === 0 || id === sorted[i - 1]! + 1);
  return consecutive && sorted.length > 2
    ? `${sorted[0]}-${sorted[sorted.length - 1]}`
    : sorted.join(', ');
}

/** The label of the overall row over the profile's non-adversarial categories. */
export function answerableLabel(profile: BenchmarkProfile): string {
  return `categories ${numberList(profile.categories.filter((c) => !c.adversarial).map((c) => c.id))}`;
}

export function schemeLabel(profile: BenchmarkProfile, scheme: string): string {
  return profile.schemes.find((s) => s.id === scheme)?.label ?? scheme;
}

/** The table's metrics: all registered, less those hidden while nothing has a value (no judge ran). */
function shownMetrics(summary: RunSummary): MetricDefinition[] {
  return metricList().filter((m) => !m.hideWhenEmpty || (summary.overall.all[m.id]?.n ?? 0) > 0);
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
  profile: BenchmarkProfile = LOCOMO_PROFILE,
): string {
  const metrics = shownMetrics(summary);
  // A metric with its own spread (J over repeats) gets a std column.
  const withStd = new Set(
    metrics.filter((m) => summary.overall.all[m.id]?.std !== undefined).map((m) => m.id),
  );
  const rows: string[][] = [
    [
      'category',
      ...metrics.flatMap((m) => [
        m.label,
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
  const { all, categories1to4 } = summary.overall;
  rows.push(row('overall (all, official)', all));
  rows.push(row(`overall (${answerableLabel(profile)})`, categories1to4));
  const { taskAveraged } = summary.overall;
  if (taskAveraged) rows.push(row('task-averaged (mean over question types)', taskAveraged));
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]): string =>
    r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const out = [
    `Final answers, categories named by ${schemeLabel(profile, scheme)} scheme`,
    line(rows[0]!),
  ];
  for (const r of rows.slice(1)) out.push(line(r));
  out.push(`questions ${summary.questions}, errors ${summary.errors}`);
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
