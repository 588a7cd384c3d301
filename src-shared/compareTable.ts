import type { CategoryComparison, RunComparison } from './compare';
import { LOCOMO_PROFILE, categoryLabel, type BenchmarkProfile } from './benchmarks';
import { csvField } from './csv';
import { latexEscape } from './paperTables';

/**
 * Compare's per-category table for a paper (issue 26 item 10): each run's mean and each run's
 * difference from the baseline with its 95% paired-bootstrap interval, as Markdown, LaTeX or CSV.
 * Pure, so the desktop app and `cli compare` print the same table. Runs are headed by their names.
 */

export const COMPARE_TABLE_FORMATS = ['md', 'latex', 'csv'] as const;
export type CompareTableFormat = (typeof COMPARE_TABLE_FORMATS)[number];

export interface CompareTableOptions {
  as: CompareTableFormat;
  /** Category naming scheme id ('official', 'mem0', …); the caption says which. */
  scheme: string;
  profile?: BenchmarkProfile;
  /** What the means are of, e.g. "official F1"; the caption says it. */
  metricLabel: string;
  /** The bootstrap's resamples and seed, for the caption. */
  resamples: number;
  seed: number;
}

/**
 * The short name of each run, distinct among them: the part of its label before " · " (its name,
 * or its preset), or the whole label where two runs would share it.
 */
export function distinctRunNames(runs: ReadonlyArray<{ label: string }>): string[] {
  const short = runs.map(({ label }) => {
    const cut = label.indexOf(' · ');
    return cut > 0 ? label.slice(0, cut) : label;
  });
  return short.map((name, i) =>
    short.indexOf(name) === short.lastIndexOf(name) ? name : (runs[i]?.label ?? name),
  );
}

const DECIMALS = 3;
const fixed = (x: number | null): string | null => (x === null ? null : x.toFixed(DECIMALS));
const signed = (x: number): string => `${x > 0 ? '+' : ''}${x.toFixed(DECIMALS)}`;
const excludesZero = (d: Delta): boolean => d.low > 0 || d.high < 0;

interface Delta {
  diff: number;
  low: number;
  high: number;
}

interface Cell {
  mean: number | null;
  /** Every run but the baseline. */
  delta?: Delta | null;
}

const round = (x: number): number => Number(x.toFixed(DECIMALS));

function cellsOf(c: CategoryComparison, baselineIndex: number): Cell[] {
  return c.perRun.map((m, i) => {
    const mean = m.mean !== null && Number.isFinite(m.mean) ? m.mean : null;
    if (i === baselineIndex) return { mean };
    const d = c.deltas[i] ?? null;
    const ok = d !== null && d.n > 0 && Number.isFinite(d.meanDiff);
    return { mean, delta: ok ? { diff: d.meanDiff, low: d.low, high: d.high } : null };
  });
}

/** The per-category Δ/CI table of a comparison, as `options.as` says. */
export function compareCategoryTable(
  comparison: RunComparison,
  options: CompareTableOptions,
): string {
  const profile = options.profile ?? LOCOMO_PROFILE;
  const base = comparison.baselineIndex;
  const names = distinctRunNames(comparison.runs);
  const baseName = names[base] ?? '';
  const others = names.map((name, i) => ({ name, i })).filter(({ i }) => i !== base);
  const rows = comparison.categories.map((c) => ({
    label:
      c.category === null
        ? 'All'
        : `${c.category} ${categoryLabel(profile, c.category, options.scheme)}`,
    n: Math.max(0, ...c.perRun.map((m) => m.n)),
    cells: cellsOf(c, base),
  }));
  const caption =
    `Mean ${options.metricLabel} per category (${options.scheme} category names); ` +
    `Δ = run − ${baseName} over the questions both answered, ` +
    `95% paired bootstrap interval (${options.resamples} resamples, seed ${options.seed}).`;

  if (options.as === 'csv') {
    const header = [
      'category',
      'n',
      ...names.map((name) => `mean[${name}]`),
      ...others.flatMap(({ name }) => [
        `delta[${name} - ${baseName}]`,
        `ciLow[${name} - ${baseName}]`,
        `ciHigh[${name} - ${baseName}]`,
      ]),
    ];
    const lines = [header.map(csvField).join(',')];
    for (const row of rows) {
      lines.push(
        [
          row.label,
          row.n,
          ...row.cells.map((c) => (c.mean === null ? null : round(c.mean))),
          ...others.flatMap(({ i }) => {
            const d = row.cells[i]?.delta ?? null;
            return d === null ? [null, null, null] : [round(d.diff), round(d.low), round(d.high)];
          }),
        ]
          .map(csvField)
          .join(','),
      );
    }
    return `${lines.join('\r\n')}\r\n`;
  }

  if (options.as === 'md') {
    const cell = (s: string) => s.replace(/\|/g, '\\|');
    const header = [
      'Category',
      'n',
      ...names.map((name, i) => `${cell(name)}${i === base ? ' (baseline)' : ''}`),
      ...others.map(({ name }) => `Δ ${cell(name)} [95% CI]`),
    ];
    const lines = [
      `| ${header.join(' | ')} |`,
      `|:--|${header
        .slice(1)
        .map(() => '--:')
        .join('|')}|`,
      ...rows.map((row) => {
        const deltas = others.map(({ i }) => {
          const d = row.cells[i]?.delta ?? null;
          if (d === null) return '–';
          const text = `${signed(d.diff)} [${signed(d.low)}, ${signed(d.high)}]`;
          return excludesZero(d) ? `**${text}**` : text;
        });
        return `| ${[row.label, String(row.n), ...row.cells.map((c) => fixed(c.mean) ?? '–'), ...deltas].join(' | ')} |`;
      }),
      '',
      `${caption} Bold: the interval excludes 0.`,
    ];
    return `${lines.join('\n')}\n`;
  }

  const columns = 2 + names.length + others.length;
  const math = (s: string) => `$${s}$`;
  const lines = [
    `\\begin{tabular}{l${'r'.repeat(columns - 1)}}`,
    '\\toprule',
    `Category & $n$ & ${[
      ...names.map((name, i) => `${latexEscape(name)}${i === base ? ' (baseline)' : ''}`),
      ...others.map(({ name }) => `$\\Delta$ ${latexEscape(name)} [95\\% CI]`),
    ].join(' & ')} \\\\`,
    '\\midrule',
    ...rows.map((row) => {
      const deltas = others.map(({ i }) => {
        const d = row.cells[i]?.delta ?? null;
        if (d === null) return '--';
        const text = `${math(signed(d.diff))} [${math(signed(d.low))}, ${math(signed(d.high))}]`;
        return excludesZero(d) ? `\\textbf{${text}}` : text;
      });
      return `${latexEscape(row.label)} & ${[String(row.n), ...row.cells.map((c) => fixed(c.mean) ?? '--'), ...deltas].join(' & ')} \\\\`;
    }),
    '\\bottomrule',
    `\\multicolumn{${columns}}{l}{\\footnotesize ${latexEscape(caption).replace(/Δ/g, '$\\Delta$').replace(/−/g, '$-$')} Bold: the interval excludes 0.} \\\\`,
    '\\end{tabular}',
  ];
  return `${lines.join('\n')}\n`;
}
