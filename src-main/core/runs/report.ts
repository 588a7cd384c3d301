import {
  CATEGORY_IDS,
  CATEGORY_SCHEME_LABELS,
  categoryName,
  type CategoryScheme,
} from '../../../src-shared/dataset/categories';
import type { MeanN, RunSummary } from '../../../src-shared/experiment';

/** Plain-text renderings of run results for the CLI (the UI draws its own). */

const fmt = (m: MeanN): string => (m.mean === null ? '-' : m.mean.toFixed(3));

export function summaryTable(summary: RunSummary, scheme: CategoryScheme): string {
  const rows: string[][] = [['category', 'official F1', 'n', 'evidence recall', 'n']];
  for (const c of CATEGORY_IDS) {
    const s = summary.byCategory[c];
    rows.push([
      `${c} ${categoryName(c, scheme)}`,
      fmt(s.officialF1),
      `${s.officialF1.n}`,
      fmt(s.evidenceRecall),
      `${s.evidenceRecall.n}`,
    ]);
  }
  const { all, categories1to4 } = summary.overall;
  rows.push([
    'overall (all, official)',
    fmt(all.officialF1),
    `${all.officialF1.n}`,
    fmt(all.evidenceRecall),
    `${all.evidenceRecall.n}`,
  ]);
  rows.push([
    'overall (categories 1-4)',
    fmt(categories1to4.officialF1),
    `${categories1to4.officialF1.n}`,
    fmt(categories1to4.evidenceRecall),
    `${categories1to4.evidenceRecall.n}`,
  ]);
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
