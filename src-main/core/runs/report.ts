import {
  CATEGORY_IDS,
  CATEGORY_SCHEME_LABELS,
  categoryName,
  type CategoryScheme,
} from '../../../src-shared/dataset/categories';
import type { MeanN, RunSummary, ScorePair } from '../../../src-shared/experiment';
import type { SkippedSample } from '../../../src-shared/runs';

/** Plain-text renderings of run results for the CLI (the UI draws its own). */

const fmt = (m: MeanN): string => (m.mean === null ? '-' : m.mean.toFixed(3));

export function summaryTable(summary: RunSummary, scheme: CategoryScheme): string {
  // Appended columns: Mem0-style metrics (categories 1-4), and J only when a judge ran.
  const judged = summary.overall.all.judge.n > 0;
  const rows: string[][] = [
    [
      'category',
      'official F1',
      'n',
      'evidence recall',
      'n',
      'set F1',
      'BLEU-1',
      ...(judged ? ['J', 'J std', 'n'] : []),
    ],
  ];
  const row = (label: string, s: ScorePair): string[] => [
    label,
    fmt(s.officialF1),
    `${s.officialF1.n}`,
    fmt(s.evidenceRecall),
    `${s.evidenceRecall.n}`,
    fmt(s.setF1),
    fmt(s.bleu1),
    ...(judged
      ? [fmt(s.judge), s.judge.std === null ? '-' : s.judge.std.toFixed(3), `${s.judge.n}`]
      : []),
  ];
  for (const c of CATEGORY_IDS)
    rows.push(row(`${c} ${categoryName(c, scheme)}`, summary.byCategory[c]));
  const { all, categories1to4 } = summary.overall;
  rows.push(row('overall (all, official)', all));
  rows.push(row('overall (categories 1-4)', categories1to4));
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]): string =>
    r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const out = [
    `Final answers, categories named by ${CATEGORY_SCHEME_LABELS[scheme]} scheme`,
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
