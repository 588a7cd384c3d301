import {
  categoryLabel as profileCategoryLabel,
  schemeLabelOf,
  type BenchmarkProfile,
  type CategoryId,
  type SchemeId,
} from './benchmarks';
import {
  CORRECT_AT,
  type CategoryComparison,
  type Flip,
  type QuestionSets,
  type RunComparison,
  type RunCost,
} from './compare';
import { csvField } from './csv';
import { rankingDepthMark, type MeanN, type RankingDepthMark } from './experiment';
import type { FairnessWarning } from './fairness';
import { METRICS } from './metrics';
import { MDE_DEFAULTS } from './scoring/significance';
import type { BootstrapResult } from './scoring/stats';
import { TABLE2_HEADER, TABLE2_NOTE, table2Cells } from './table2';
import type { ComparedJudge } from './compareJudges';
import { judgeColumnNames } from './judges';
import { FEW_CONVERSATIONS, categoryLabel, finite } from './compareLabels';
import {
  columnTabular,
  comparisonColumnLatex,
  judgesColumnLatex,
  table2ColumnLatex,
  texText,
} from './columnLatex';

// Moved beside the column LaTeX (compareLabels.ts); re-exported for the views that import them here.
export { FEW_CONVERSATIONS, categoryLabel, finite };
import { formatInterval, measuredErrorText } from './judgePanel';

/**
 * A comparison's numbers as text, one definition for the Compare view and `cli compare`: a delta
 * with its paired and conversation-cluster intervals, McNemar and the minimum detectable effect,
 * and the per-category table rows in a chosen naming scheme.
 */

export function formatScore(value: number | null | undefined): string {
  return finite(value) ? value.toFixed(3) : '—';
}

export function formatSigned(value: number): string {
  // -0.0004 rounds to "-0.000"; a sign on zero would claim a direction the data does not have.
  const fixed = value.toFixed(3);
  if (Number(fixed) === 0) return '0.000';
  return value > 0 ? `+${fixed}` : `−${fixed.slice(1)}`;
}

export type Significance = 'improved' | 'regressed' | 'not-significant' | 'none';

/** An interval that excludes 0 is a significant change; one that touches 0 is not. */
export function significance(delta: BootstrapResult | null | undefined): Significance {
  if (!delta || delta.n === 0 || !finite(delta.low) || !finite(delta.high)) return 'none';
  if (delta.low > 0) return 'improved';
  if (delta.high < 0) return 'regressed';
  return 'not-significant';
}

export interface DeltaText {
  /** "+0.042", or "—" when the runs share no question. */
  diff: string;
  /** "[+0.010, +0.075]", or "" with no interval. */
  interval: string;
  significance: Significance;
  /** Screen readers and tooltips: the whole statement in words. */
  description: string;
  /** The interval with whole conversations resampled: "[−0.020, +0.090] by conversation". */
  conversations: string;
  /** McNemar's exact test on correct/wrong flips: "McNemar p=0.031 (12 up, 5 down)". */
  mcnemar: string;
  /** The smallest difference this n detects (alpha 0.05, power 0.8): "detectable ±0.021". */
  detectable: string;
}

/** What the significance columns add beside the question-level interval. */
export interface DeltaExtras {
  cluster?: (BootstrapResult & { clusters: number }) | null;
  mcnemar?: { baselineOnly: number; candidateOnly: number; pValue: number } | null;
  minimumDetectable?: number | null;
}

/** "p<0.001" or "p=0.031": the relation belongs to the number. */
function formatP(p: number): string {
  return p < 0.001 ? 'p<0.001' : `p=${p.toFixed(3)}`;
}

export function formatDelta(
  delta: BootstrapResult | null | undefined,
  extras: DeltaExtras = {},
): DeltaText {
  const sig = significance(delta);
  if (!delta || sig === 'none' || !finite(delta.meanDiff)) {
    return {
      diff: '—',
      interval: '',
      significance: 'none',
      description: 'no shared questions',
      conversations: '',
      mcnemar: '',
      detectable: '',
    };
  }
  const { cluster, mcnemar, minimumDetectable } = extras;
  const conversations =
    cluster && finite(cluster.low) && finite(cluster.high)
      ? `[${formatSigned(cluster.low)}, ${formatSigned(cluster.high)}] by ${cluster.clusters} conversation${cluster.clusters === 1 ? '' : 's'}`
      : '';
  const mcnemarText = mcnemar
    ? `McNemar ${formatP(mcnemar.pValue)} (${mcnemar.candidateOnly} up, ${mcnemar.baselineOnly} down)`
    : '';
  const detectable =
    minimumDetectable !== null && minimumDetectable !== undefined && finite(minimumDetectable)
      ? `detectable ±${minimumDetectable.toFixed(3)}`
      : '';
  const interval = `[${formatSigned(delta.low)}, ${formatSigned(delta.high)}]`;
  const verdict =
    sig === 'improved'
      ? 'significant improvement'
      : sig === 'regressed'
        ? 'significant regression'
        : 'not significant (interval includes 0)';
  return {
    diff: formatSigned(delta.meanDiff),
    interval,
    significance: sig,
    description: [
      `${formatSigned(delta.meanDiff)} ${interval}, ${verdict}, n=${delta.n} paired questions`,
      conversations,
      mcnemarText,
      detectable ? `${detectable} at this n (alpha 0.05, power 0.8)` : '',
    ]
      .filter((part) => part !== '')
      .join('; '),
    conversations,
    mcnemar: mcnemarText,
    detectable,
  };
}

export interface CategoryTableRow {
  key: string;
  category: CategoryId | null;
  /** "All" or "1 multi-hop" in the chosen scheme. */
  label: string;
  /** Questions in this category across the union of the runs. */
  questions: number;
  perRun: MeanN[];
  deltas: DeltaText[];
}

/** The engine's per-category comparison, labelled in the chosen scheme with question counts. */
export function categoryTableRows(
  comparison: RunComparison,
  scheme: SchemeId,
  profile: BenchmarkProfile,
): CategoryTableRow[] {
  const questions = new Map<CategoryId | null, number>([[null, comparison.rows.length]]);
  for (const row of comparison.rows)
    questions.set(row.category, (questions.get(row.category) ?? 0) + 1);
  return comparison.categories.map((c) => ({
    key: c.category === null ? 'all' : String(c.category),
    category: c.category,
    label: categoryLabel(c.category, scheme, profile),
    questions: questions.get(c.category) ?? 0,
    perRun: c.perRun,
    deltas: c.deltas.map((delta, i) =>
      formatDelta(delta, {
        cluster: c.clusterDeltas?.[i] ?? null,
        mcnemar: c.mcnemar?.[i] ?? null,
        minimumDetectable: c.minimumDetectable?.[i] ?? null,
      }),
    ),
  }));
}

// ---------------------------------------------------------------------------------------------
// The whole comparison as a table: the terminal, Markdown or LaTeX

export const COMPARE_MARKUPS = ['text', 'md', 'latex'] as const;
export type CompareMarkup = (typeof COMPARE_MARKUPS)[number];

/** What a comparison table needs of the `runs.compare` result. */
export interface CompareTableInput {
  comparison: RunComparison;
  fairness: readonly FairnessWarning[];
  questionSets: QuestionSets;
  benchmark: BenchmarkProfile;
  /** Each run's cost and speed: with them, Mem0 Table 2's columns follow the table. */
  costs?: readonly RunCost[];
  /** J under each judge every run shares: with them, a table per judge follows. */
  judges?: readonly ComparedJudge[];
}

export interface CompareTableOptions {
  markup: CompareMarkup;
  scheme: SchemeId;
  /** What each run is called, in the comparison's order (a run's name, else its label). */
  names: readonly string[];
}

/** The baseline, what each run is called (its given name, else its label) and the other runs. */
function tableRuns(
  comparison: RunComparison,
  names: readonly string[],
): { base: number; name: (i: number) => string; others: number[] } {
  const base = comparison.baselineIndex;
  const name = (i: number): string => names[i] ?? comparison.runs[i]?.label ?? `run ${i}`;
  return { base, name, others: comparison.runs.map((_, i) => i).filter((i) => i !== base) };
}

const FLIP_ORDER: readonly Flip[] = ['improved', 'regressed', 'unchanged', 'missing'];

/**
 * The Compare view's category table as text: per category the questions, each run's mean and, per
 * run against the baseline, the delta with its paired interval, the conversation-cluster interval,
 * McNemar and the minimum detectable effect; then the flips, the question sets and the fairness
 * warnings, so a comparison on unequal terms says so beside its numbers.
 */
export function compareTable(result: CompareTableInput, options: CompareTableOptions): string {
  const { comparison } = result;
  const profile = result.benchmark;
  const { base, name, others } = tableRuns(comparison, options.names);
  const marks = runDepthMarks(comparison);
  const header = [
    'category',
    'n',
    ...comparison.runs.map((_, i) => {
      const shown = marks[i] ? `${marks[i].mark} ${name(i)}` : name(i);
      return i === base ? `${shown} (baseline)` : shown;
    }),
    ...others.flatMap((i) => [`Δ ${name(i)} [95% CI]`, 'by conversation', 'McNemar', 'detectable']),
  ];
  const rows = categoryTableRows(comparison, options.scheme, profile).map((row) => [
    row.label,
    String(row.questions),
    ...row.perRun.map((m) => formatScore(m.mean)),
    ...others.flatMap((i) => {
      const d = row.deltas[i];
      return d === undefined || d.significance === 'none'
        ? ['—', '', '', '']
        : [`${d.diff} ${d.interval}`, d.conversations, d.mcnemar, d.detectable];
    }),
  ]);
  const metric = METRICS.get(comparison.metric)?.label ?? comparison.metric;
  const caption = `${metric}, mean per run; Δ = run − baseline over the questions both answered, paired bootstrap 95% CI; categories named by the ${schemeLabelOf(profile, options.scheme)} scheme`;
  const notes = [
    ...others.map(
      (i) =>
        `flips ${name(i)} vs ${name(base)}: ${FLIP_ORDER.map((f) => `${comparison.flipCounts[i]?.[f] ?? 0} ${f}`).join(', ')}`,
    ),
    ...questionSetsNote(result.questionSets, comparison.runs.length, name),
    ...rankingDepthNotes(comparison, name),
    ...result.fairness.map((w) => `not on equal terms: ${w.message}`),
  ];
  const costs = (markup: 'text' | 'md') =>
    table2Table(result.costs, name, markup) +
    judgesTable(result.judges, name, base, others, markup);
  if (options.markup === 'latex') {
    // For a paper's column: runs by letter with their names in a legend, one statistic a cell.
    const tex = comparisonColumnLatex(comparison, {
      scheme: options.scheme,
      profile,
      names: comparison.runs.map((_, i) => name(i)),
      notes: notes.map(texText),
    });
    const names = comparison.runs.map((_, i) => name(i));
    const judges =
      result.judges && result.judges.length > 0
        ? `\n${judgesColumnLatex(result.judges, names, base)}`
        : '';
    return `${tex}${result.costs && result.costs.length > 0 ? `\n${table2ColumnLatex(result.costs, names)}` : ''}${judges}`;
  }
  if (options.markup !== 'text') {
    const paper = paperTable(comparison, options.scheme, profile, name, others);
    const lines = [paper.caption, ...notes];
    return `${
      options.markup === 'md'
        ? markdownTable(paper.header, paper.rows, lines)
        : latexTable(paper.header, paper.rows, lines)
    }${costs(options.markup)}`;
  }
  return `${plainTable(header, rows, [caption, ...notes])}${costs('text')}`;
}

/** Mem0 Table 2's columns, one row per run, after the comparison (empty without costs). */
function table2Table(
  costs: readonly RunCost[] | undefined,
  name: (i: number) => string,
  markup: CompareMarkup,
): string {
  if (!costs || costs.length === 0) return '';
  const header = ['run', ...TABLE2_HEADER];
  const rows = costs.map((cost, i) => [name(i), ...table2Cells(cost.table2)]);
  if (markup === 'md') return `\n${markdownTable(header, rows, [TABLE2_NOTE])}`;
  if (markup === 'latex') return `\n${latexTable(header, rows, [TABLE2_NOTE])}`;
  return `\n${plainTable(header, rows, [TABLE2_NOTE])}`;
}

/**
 * J under each judge every compared run shares, one row per judge: each run's J with its interval
 * over conversations, the paired Δ to the baseline, and the judge's measured error (empty without
 * shared judges).
 */
function judgesTable(
  judges: readonly ComparedJudge[] | undefined,
  name: (i: number) => string,
  base: number,
  others: readonly number[],
  // LaTeX has its own table for a column (columnLatex.ts judgesColumnLatex).
  markup: 'text' | 'md',
): string {
  if (!judges || judges.length === 0) return '';
  const columns = judgeColumnNames(judges.map((j) => j.judge));
  const header = [
    'judge',
    'n',
    ...judges[0]!.perRun.map((_, i) => `J ${name(i)}${i === base ? ' (baseline)' : ''} [95% CI]`),
    ...others.map((i) => `Δ J ${name(i)} [95% CI]`),
    'measured judge error',
  ];
  const rows = judges.map((j, row) => [
    columns[row] ?? j.judge.protocol,
    String(j.questions),
    ...j.perRun.map((r) => formatInterval(r)),
    ...others.map((i) => formatInterval(j.vsBaseline[i])),
    measuredErrorText(j.measuredError) ?? '–',
  ]);
  const note =
    'J per judge that scored every run, on the questions it judged in all of them (n); intervals: 95% percentile bootstrap over conversations, Δ paired by question';
  if (markup === 'md') return `\n${markdownTable(header, rows, [note])}`;
  return `\n${plainTable(header, rows, [note])}`;
}

const FEW_MARK = '†';

/**
 * The table for a paper: one statistic per cell, n the questions both runs scored for this metric
 * (per compared run), and a caption naming each test with its settings, so the table stands alone.
 */
function paperTable(
  comparison: RunComparison,
  scheme: SchemeId,
  profile: BenchmarkProfile,
  name: (i: number) => string,
  others: readonly number[],
): { header: string[]; rows: string[][]; caption: string } {
  const base = comparison.baselineIndex;
  const of = (i: number): string => (others.length > 1 ? ` ${name(i)}` : '');
  const header = [
    'category',
    ...comparison.runs.map((_, i) => (i === base ? `${name(i)} (baseline)` : name(i))),
    ...others.flatMap((i) => [
      `n${of(i)}`,
      `Δ${of(i)}`,
      `95% CI${of(i)}`,
      `CI by conversation${of(i)}`,
      `McNemar p${of(i)}`,
      `MDE${of(i)}`,
    ]),
  ];
  let fewConversations = false;
  const rows = comparison.categories.map((c) => [
    categoryLabel(c.category, scheme, profile),
    ...c.perRun.map((m) => formatScore(m.mean)),
    ...others.flatMap((i) => {
      const d = c.deltas[i];
      if (!d || d.n === 0 || !finite(d.meanDiff)) return ['0', '—', '', '', '', ''];
      const cluster = c.clusterDeltas[i];
      const few = cluster !== null && cluster !== undefined && cluster.clusters < FEW_CONVERSATIONS;
      fewConversations ||= few;
      const mcnemar = c.mcnemar[i];
      const mde = c.minimumDetectable[i];
      return [
        d.n.toLocaleString('en-US'),
        formatSigned(d.meanDiff),
        `[${formatSigned(d.low)}, ${formatSigned(d.high)}]`,
        cluster && finite(cluster.low) && finite(cluster.high)
          ? `[${formatSigned(cluster.low)}, ${formatSigned(cluster.high)}]${few ? FEW_MARK : ''}`
          : '',
        mcnemar ? formatP(mcnemar.pValue).replace(/^p=/, '') : '',
        mde !== null && mde !== undefined && finite(mde) ? `±${mde.toFixed(3)}` : '',
      ];
    }),
  ]);
  const metric = METRICS.get(comparison.metric)?.label ?? comparison.metric;
  const { alpha, power } = MDE_DEFAULTS;
  const caption = [
    `${metric}, mean per run over the questions it scored; categories named by the ${schemeLabelOf(profile, scheme)} scheme.`,
    `n: questions both runs scored for this metric (the pairs every statistic after it uses).`,
    `Δ = run − baseline; 95% CI by paired bootstrap over questions (${comparison.resamples.toLocaleString('en-US')} resamples), and by conversation (whole conversations resampled, same count).`,
    `McNemar p: exact two-sided McNemar test on correct/wrong flips, a score ≥ ${CORRECT_AT} counting as correct.`,
    `MDE: the smallest Δ (either sign) a paired two-sided test detects at alpha ${alpha} with power ${power} at this n.`,
    ...(fewConversations
      ? [
          `${FEW_MARK} fewer than ${FEW_CONVERSATIONS} conversations: an interval from so few clusters does not hold its 95% coverage, read it as indicative only.`,
        ]
      : []),
  ].join(' ');
  return { header, rows, caption };
}

/** Per run, the mark its figure for the metric carries where it may be a lower bound. */
export function runDepthMarks(comparison: RunComparison): Array<RankingDepthMark | null> {
  const metric = METRICS.get(comparison.metric);
  return comparison.runs.map((run) =>
    metric && run.rankingDepth !== undefined
      ? rankingDepthMark(metric, run.rankingDepth ? { rankingDepth: run.rankingDepth } : {})
      : null,
  );
}

/** Each run whose figure for the metric may be a lower bound, and why. */
function rankingDepthNotes(comparison: RunComparison, name: (i: number) => string): string[] {
  return runDepthMarks(comparison).flatMap((mark, i) =>
    mark ? [`${mark.mark} ${name(i)}: ${mark.note}`] : [],
  );
}

function questionSetsNote(sets: QuestionSets, runs: number, name: (i: number) => string): string[] {
  if (sets.perRun.every((n) => n === sets.shared)) return [];
  return [
    `compared on the ${sets.shared} question${sets.shared === 1 ? '' : 's'} ${runs === 2 ? 'both runs' : `all ${runs} runs`} answered (${sets.perRun.map((n, i) => `${name(i)}: ${n}`).join(', ')}); the others are left out of every number`,
  ];
}

function plainTable(header: string[], rows: string[][], notes: string[]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]): string =>
    r
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[notes[0] ?? '', line(header), ...rows.map(line), ...notes.slice(1)].join('\n')}\n`;
}

function markdownTable(header: string[], rows: string[][], notes: string[]): string {
  const cell = (text: string): string => text.replace(/\|/g, '\\|');
  const line = (r: string[]): string => `| ${r.map(cell).join(' | ')} |`;
  return `${[
    line(header),
    `|:--|${header
      .slice(1)
      .map(() => '--:')
      .join('|')}|`,
    ...rows.map(line),
    '',
    ...notes.map((n) => `${n}  `),
  ].join('\n')}\n`;
}

/** A booktabs table of plain-text cells: columnTabular's layout, every cell escaped for LaTeX. */
function latexTable(header: string[], rows: string[][], notes: string[]): string {
  return columnTabular(
    header.map(texText),
    rows.map((r) => r.map(texText)),
    notes.map(texText),
  );
}

// The per-category table as CSV, for a spreadsheet or a plotting script

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

const CSV_DECIMALS = 3;
const rounded = (x: number): number => Number(x.toFixed(CSV_DECIMALS));

/** Each run's mean and, against the baseline, the delta and its interval; null where none. */
function csvCells(
  c: CategoryComparison,
  base: number,
): Array<{ mean: number | null; delta: [number, number, number] | null }> {
  return c.perRun.map((m, i) => {
    const mean = finite(m.mean) ? m.mean : null;
    const d = i === base ? null : (c.deltas[i] ?? null);
    const ok = d !== null && d.n > 0 && finite(d.meanDiff);
    return { mean, delta: ok ? [d.meanDiff, d.low, d.high] : null };
  });
}

/**
 * Compare's per-category table as CSV: per category the questions, each run's mean and each run's
 * delta from the baseline with its 95% paired-bootstrap interval, runs headed by their names.
 */
export function compareCategoryCsv(
  comparison: RunComparison,
  options: { scheme: SchemeId; profile: BenchmarkProfile; names: readonly string[] },
): string {
  const { profile } = options;
  const { base, name, others } = tableRuns(comparison, options.names);
  const header = [
    'category',
    'n',
    ...comparison.runs.map((_, i) => `mean[${name(i)}]`),
    ...others.flatMap((i) => [
      `delta[${name(i)} - ${name(base)}]`,
      `ciLow[${name(i)} - ${name(base)}]`,
      `ciHigh[${name(i)} - ${name(base)}]`,
    ]),
  ];
  const lines = [header.map(csvField).join(',')];
  for (const c of comparison.categories) {
    const cells = csvCells(c, base);
    lines.push(
      [
        c.category === null
          ? 'All'
          : `${c.category} ${profileCategoryLabel(profile, c.category, options.scheme)}`,
        Math.max(0, ...c.perRun.map((m) => m.n)),
        ...cells.map((cell) => (cell.mean === null ? null : rounded(cell.mean))),
        ...others.flatMap((i) => cells[i]?.delta?.map(rounded) ?? [null, null, null]),
      ]
        .map(csvField)
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}
