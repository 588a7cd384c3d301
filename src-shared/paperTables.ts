import { LOCOMO_PROFILE, categoryLabel, type BenchmarkProfile } from './benchmarks';
import { WorkbenchError } from './errors';
import type { RunSummary } from './experiment';
import type { MetricMean } from './metrics';

/**
 * A run's final scores laid out as the papers print them (issue 11 item 10), for pasting beside
 * them: LoCoMo's QA table (official F1 ×100 per category and overall) and Mem0's Table 1 (set F1,
 * BLEU-1 and J ×100 per category). Each names the categories by its own paper's scheme
 * (DESIGN.md §4), so the same stored category sits in a different column in each.
 */

export const PAPER_FORMATS = ['locomo', 'mem0', 'longmemeval'] as const;
export type PaperFormat = (typeof PAPER_FORMATS)[number];
export const PAPER_MARKUPS = ['md', 'latex'] as const;
export type PaperMarkup = (typeof PAPER_MARKUPS)[number];

interface Column {
  /** Category name in the paper's scheme; null = overall. */
  category: string | null;
  metric: string;
  /** Sub-header under the category (Mem0: F1, B1, J). */
  sub: string | null;
}

interface Layout {
  scheme: string;
  /** Category names in `scheme`, an overall's name in `overalls`, or null for every question. */
  groups: readonly (string | null)[];
  /** Groups that read a summary overall rather than a category (LongMemEval's task average). */
  overalls?: Readonly<Record<string, 'taskAveraged' | 'abstention'>>;
  /** A category reads its task (`RunSummary.byTask`: the categories counting for it included). */
  tasks?: boolean;
  metrics: ReadonlyArray<{ id: string; sub: string | null }>;
  decimals: number;
  caption: string;
}

const LAYOUTS: Record<PaperFormat, Layout> = {
  locomo: {
    scheme: 'official',
    groups: ['single-hop', 'multi-hop', 'temporal', 'open-domain', 'adversarial', null],
    metrics: [{ id: 'officialF1', sub: null }],
    decimals: 1,
    caption: 'official F1 ×100 (LoCoMo task_eval/evaluation.py); categories named as in LoCoMo',
  },
  mem0: {
    scheme: 'mem0',
    groups: ['single-hop', 'multi-hop', 'open-domain', 'temporal'],
    metrics: [
      { id: 'setF1', sub: 'F1' },
      { id: 'bleu1', sub: 'B1' },
      { id: 'judge', sub: 'J' },
    ],
    decimals: 2,
    caption:
      'F1 = set F1, B1 = BLEU-1, J = LLM judge, ×100 (Mem0 evaluation/); categories named as in Mem0',
  },
  longmemeval: {
    scheme: 'official',
    // print_qa_metrics.py's order: its type2acc rows, then task-averaged, overall, abstention.
    groups: [
      'single-session-user',
      'single-session-preference',
      'single-session-assistant',
      'multi-session',
      'temporal-reasoning',
      'knowledge-update',
      'task-averaged',
      null,
      'abstention',
    ],
    overalls: { abstention: 'abstention', 'task-averaged': 'taskAveraged' },
    tasks: true,
    metrics: [{ id: 'judge', sub: null }],
    decimals: 1,
    caption:
      'QA accuracy ×100 by the LLM judge (LongMemEval print_qa_metrics.py); each question type counts its abstention questions, which "abstention" also scores alone',
  },
};

const EMPTY = '–';

function cellOf(summary: RunSummary, profile: BenchmarkProfile, layout: Layout, col: Column) {
  if (col.category === null) return summary.overall.all[col.metric];
  const overall = layout.overalls?.[col.category];
  if (overall) return summary.overall[overall]?.[col.metric];
  const category = profile.categories.find(
    (c) => categoryLabel(profile, c.id, layout.scheme) === col.category,
  );
  if (!category) return undefined;
  const pairs = layout.tasks === true ? summary.byTask : summary.byCategory;
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
function nLine(summary: RunSummary, profile: BenchmarkProfile, layout: Layout): string {
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
  options: { format: PaperFormat; as: PaperMarkup; label: string; profile?: BenchmarkProfile },
): string {
  const profile = options.profile ?? LOCOMO_PROFILE;
  // Another benchmark's layout names categories this run does not have: a row of empty cells.
  if (!profile.reportFormats.includes(options.format)) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `--format ${options.format} lays out another benchmark's table; a ${profile.label} run's formats: ${profile.reportFormats.join(', ') || 'none'}`,
    );
  }
  const layout = LAYOUTS[options.format];
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
