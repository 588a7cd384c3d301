import { categoryLabel, type BenchmarkProfile, type ReportLayout } from './benchmarks';
import { WorkbenchError } from './errors';
import type { RunSummary } from './experiment';
import type { MetricMean } from './metrics';

/**
 * A run's final scores laid out as the papers print them (issue 11 item 10), for pasting beside
 * them. The layouts are the benchmark profiles' `reportFormats` (LoCoMo's QA table and Mem0's
 * Table 1 in benchmarks/locomo.ts, LongMemEval's accuracy table in benchmarks/longmemeval.ts);
 * each names the categories by its own paper's scheme (DESIGN.md §4), so the same stored
 * category sits in a different column in each.
 */

export const PAPER_MARKUPS = ['md', 'latex'] as const;
export type PaperMarkup = (typeof PAPER_MARKUPS)[number];

interface Column {
  /** Category name in the paper's scheme; null = overall. */
  category: string | null;
  metric: string;
  /** Sub-header under the category (Mem0: F1, B1, J). */
  sub: string | null;
}

const EMPTY = '–';

function cellOf(summary: RunSummary, profile: BenchmarkProfile, layout: ReportLayout, col: Column) {
  if (col.category === null) return summary.overall.all[col.metric];
  const overall = layout.overalls?.[col.category];
  if (overall) return summary.overall[overall]?.[col.metric];
  const category = profile.categories.find(
    (c) => categoryLabel(profile, c.id, layout.scheme) === col.category,
  );
  if (!category) return undefined;
  const pairs =
    layout.tasks === true
      ? summary.byTask
      : layout.sampleMeans === true
        ? summary.bySampleMean
        : summary.byCategory;
  return pairs?.[category.id]?.[col.metric];
}

const value = (m: MetricMean | undefined, decimals: number): string | null =>
  m === undefined || m.mean === null || m.n === 0 ? null : (m.mean * 100).toFixed(decimals);

/** Text set literally in LaTeX: its special characters escaped. */
export function latexEscape(text: string): string {
  return text.replace(/[\\&%$#_{}~^]/g, (ch) =>
    ch === '\\' ? '\\textbackslash{}' : ch === '~' || ch === '^' ? `\\${ch}{}` : `\\${ch}`,
  );
}

/** The footnote: n per column (Mem0: set F1's n, and J's where it differs). */
function nLine(summary: RunSummary, profile: BenchmarkProfile, layout: ReportLayout): string {
  const parts = layout.groups.map((group) => {
    const cols = layout.metrics.map((m) => ({ category: group, metric: m.id, sub: m.sub }));
    const counts = cols.map((c) => cellOf(summary, profile, layout, c)?.n ?? 0);
    const first = counts[0] ?? 0;
    const others = cols
      .map((c, i) => ({ sub: c.sub, n: counts[i] ?? 0 }))
      .slice(1)
      .filter((c) => c.n !== first)
      .map((c) => `${c.sub} ${c.n}`);
    return `${group ?? 'overall'} ${first}${others.length > 0 ? ` (${others.join(', ')})` : ''}`;
  });
  return `n: ${parts.join(', ')}. ${layout.caption}.`;
}

/** One run's row in a paper's table, as Markdown or LaTeX (a complete tabular). */
export function paperTable(
  summary: RunSummary,
  options: { format: string; as: PaperMarkup; label: string; profile: BenchmarkProfile },
): string {
  const { profile } = options;
  // Only the run's own profile lays out its categories: another's would be a row of empty cells.
  const format = profile.reportFormats.find((f) => f.id === options.format);
  if (!format) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `--format ${options.format} lays out another benchmark's table; a ${profile.label} run's formats: ${profile.reportFormats.map((f) => f.id).join(', ')}`,
    );
  }
  const { layout } = format;
  const columns: Column[] = layout.groups.flatMap((group) =>
    layout.metrics.map((m) => ({ category: group, metric: m.id, sub: m.sub })),
  );
  const cells = columns.map((c) => value(cellOf(summary, profile, layout, c), layout.decimals));
  const note = nLine(summary, profile, layout);
  const groupName = (g: string | null): string => g ?? 'overall';
  const perGroup = layout.metrics.length;

  if (options.as === 'md') {
    const header = columns.map((c) =>
      c.sub === null ? groupName(c.category) : `${groupName(c.category)} ${c.sub}`,
    );
    const lines = [
      `| method | ${header.join(' | ')} |`,
      `|:--|${header.map(() => '--:').join('|')}|`,
      `| ${options.label.replace(/\|/g, '\\|')} | ${cells.map((c) => c ?? EMPTY).join(' | ')} |`,
      '',
      note,
    ];
    return `${lines.join('\n')}\n`;
  }

  const lines = [`\\begin{tabular}{l${'c'.repeat(columns.length)}}`, '\\toprule'];
  if (perGroup > 1) {
    lines.push(
      ` & ${layout.groups.map((g) => `\\multicolumn{${perGroup}}{c}{${groupName(g)}}`).join(' & ')} \\\\`,
    );
    lines.push(
      layout.groups
        .map((_, i) => `\\cmidrule(lr){${2 + i * perGroup}-${1 + (i + 1) * perGroup}}`)
        .join(' '),
    );
    lines.push(`Method & ${columns.map((c) => c.sub ?? '').join(' & ')} \\\\`);
  } else {
    lines.push(`Method & ${columns.map((c) => groupName(c.category)).join(' & ')} \\\\`);
  }
  lines.push('\\midrule');
  // LaTeX's en dash for an empty cell.
  lines.push(`${latexEscape(options.label)} & ${cells.map((c) => c ?? '--').join(' & ')} \\\\`);
  lines.push('\\bottomrule');
  lines.push(
    `\\multicolumn{${columns.length + 1}}{l}{\\footnotesize ${latexEscape(note).replace(/×/g, '$\\times$')}} \\\\`,
  );
  lines.push('\\end{tabular}');
  return `${lines.join('\n')}\n`;
}
