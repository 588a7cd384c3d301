import { schemeLabelOf, type BenchmarkProfile, type SchemeId } from './benchmarks';
import { CORRECT_AT, type RunComparison, type RunCost } from './compare';
import type { ComparedJudge } from './compareJudges';
import { FEW_CONVERSATIONS, categoryLabel, finite } from './compareLabels';
import { judgeColumnNames } from './judges';
import { measuredErrorText } from './judgePanel';
import { METRICS } from './metrics';
import { latexEscape } from './paperTables';
import { runLetter } from './runPalette';
import { MDE_DEFAULTS, type ClusterBootstrapResult } from './scoring/significance';
import { TABLE2_HEADER, TABLE2_NOTE, table2Cells } from './table2';

/**
 * Tables for a paper's column (issue 38 item 3): runs headed by their letter (A, B, … as the
 * Compare view and the reports letter them) with a legend under the table naming each, one
 * statistic per cell, and the tests split over tables narrow enough for one column of a
 * two-column paper. Numbers are set in math mode, so a minus is a minus and not a hyphen.
 */

/** The widest row (source characters) a table here may have: `columnLatex.test.ts` holds it. */
export const COLUMN_ROW_CHARS = 80;

/** Prose and labels for LaTeX: escaped, with the few symbols the tables use in math mode. */
export function texText(text: string): string {
  return latexEscape(text)
    .replace(/Δ/g, '$\\Delta$')
    .replace(/−/g, '$-$')
    .replace(/±/g, '$\\pm$')
    .replace(/≥/g, '$\\geq$')
    .replace(/†/g, '$^\\dagger$')
    .replace(/</g, '$<$')
    .replace(/—/g, '--');
}

/** A number cell: "+0.042", "−0.010", "[−0.041, +0.003]" in math mode; text cells escaped. */
export function texNumber(text: string): string {
  if (text === '' || text === '—' || text === '–') return '--';
  const body = text
    .replace(/−/g, '-')
    .replace(/±/g, '\\pm ')
    .replace(/†/g, '^\\dagger')
    .replace(/,(\d{3})/g, '{,}$1');
  return `$${body}$`;
}

/** "A: <name> (baseline); B: <name>": what each letter of the table stands for. */
export function runLegend(names: readonly string[], baselineIndex: number | null): string {
  return names
    .map((name, i) => `${runLetter(i)}: ${name}${i === baselineIndex ? ' (baseline)' : ''}`)
    .join('; ');
}

/** A booktabs tabular whose cells are LaTeX already; notes wrap under it at the column's width. */
export function columnTabular(
  header: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  notes: readonly string[],
): string {
  const line = (r: readonly string[]): string => `${r.join(' & ')} \\\\`;
  return `${[
    `\\begin{tabular}{l${'r'.repeat(header.length - 1)}}`,
    '\\toprule',
    line(header),
    '\\midrule',
    ...rows.map(line),
    '\\bottomrule',
    ...notes.map(
      (n) => `\\multicolumn{${header.length}}{p{\\linewidth}}{\\footnotesize ${n}} \\\\`,
    ),
    '\\end{tabular}',
  ].join('\n')}\n`;
}

const signed = (x: number): string => {
  const fixed = x.toFixed(3);
  if (Number(fixed) === 0) return '0.000';
  return x > 0 ? `+${fixed}` : fixed;
};
const interval = (low: number, high: number): string => `[${signed(low)}, ${signed(high)}]`;
const count = (n: number): string => n.toLocaleString('en-US');

/**
 * Compare's per-category comparison as LaTeX for a column: the runs' means per category, then per
 * compared run its Δ with both intervals, then its McNemar p and MDE; each table with the legend
 * of run letters and a caption that names every test and its settings.
 */
export function comparisonColumnLatex(
  comparison: RunComparison,
  options: {
    scheme: SchemeId;
    profile: BenchmarkProfile;
    names: readonly string[];
    /** LaTeX already: the flips, question sets and fairness warnings, under the means. */
    notes?: readonly string[];
  },
): string {
  const { scheme, profile } = options;
  const base = comparison.baselineIndex;
  const names = comparison.runs.map((run, i) => texText(options.names[i] ?? run.label));
  const legend = `${runLegend(names, base)}.`;
  const metric = texText(METRICS.get(comparison.metric)?.label ?? comparison.metric);
  const schemeName = texText(schemeLabelOf(profile, scheme));
  const label = (c: number | null): string => texText(categoryLabel(c, scheme, profile));
  const questions = new Map<number | null, number>([[null, comparison.rows.length]]);
  for (const row of comparison.rows)
    questions.set(row.category, (questions.get(row.category) ?? 0) + 1);

  const means = columnTabular(
    ['category', 'n', ...comparison.runs.map((_, i) => runLetter(i))],
    comparison.categories.map((c) => [
      label(c.category),
      texNumber(count(questions.get(c.category) ?? 0)),
      ...c.perRun.map((m) => (finite(m.mean) ? texNumber(m.mean.toFixed(3)) : '--')),
    ]),
    [
      `${metric}, mean per run over the questions it scored; n: questions in the category; categories named by the ${schemeName} scheme.`,
      legend,
      ...(options.notes ?? []),
    ],
  );
  const others = comparison.runs.map((_, i) => i).filter((i) => i !== base);
  const { alpha, power } = MDE_DEFAULTS;
  const tables = others.map((i) => {
    const vs = `${runLetter(i)} $-$ ${runLetter(base)}`;
    let few = false;
    const deltas = comparison.categories.map((c) => {
      const d = c.deltas[i];
      if (!d || d.n === 0 || !finite(d.meanDiff)) return [label(c.category), '--', '--', '--'];
      const cluster = c.clusterDeltas[i];
      const isFew = !!cluster && cluster.clusters < FEW_CONVERSATIONS;
      few ||= isFew;
      return [
        label(c.category),
        texNumber(signed(d.meanDiff)),
        texNumber(interval(d.low, d.high)),
        cluster && finite(cluster.low) && finite(cluster.high)
          ? texNumber(`${interval(cluster.low, cluster.high)}${isFew ? '†' : ''}`)
          : '--',
      ];
    });
    const tests = comparison.categories.map((c) => {
      const d = c.deltas[i];
      const mcnemar = c.mcnemar[i];
      const mde = c.minimumDetectable[i];
      return [
        label(c.category),
        texNumber(count(d?.n ?? 0)),
        mcnemar
          ? mcnemar.pValue < 0.001
            ? '$<0.001$'
            : texNumber(mcnemar.pValue.toFixed(3))
          : '--',
        mde !== null && mde !== undefined && finite(mde) ? texNumber(`±${mde.toFixed(3)}`) : '--',
      ];
    });
    const deltaCaption = [
      `$\\Delta$ = ${vs} in ${metric} over the questions both scored; 95\\% CI by paired bootstrap over questions (${count(comparison.resamples)} resamples) and by conversation (whole conversations resampled).`,
      ...(few
        ? [
            `$^\\dagger$ fewer than ${FEW_CONVERSATIONS} conversations: the interval does not hold its 95\\% coverage; read it as indicative only.`,
          ]
        : []),
      legend,
    ];
    return [
      columnTabular(['category', `$\\Delta$ ${vs}`, '95\\% CI', 'by conv.'], deltas, deltaCaption),
      columnTabular(['category', 'n', 'McNemar $p$', 'MDE'], tests, [
        `${vs}. n: questions both scored. McNemar $p$: exact two-sided test on correct/wrong flips, a score $\\geq$ ${CORRECT_AT} counting as correct. MDE: the smallest $\\Delta$ (either sign) a paired two-sided test detects at alpha ${alpha} with power ${power} at this n.`,
        legend,
      ]),
    ].join('\n');
  });
  return [means, ...tables].join('\n');
}

/** Mem0 Table 2's columns with the runs as columns (A, B, …), so seven measures fit a column. */
export function table2ColumnLatex(
  costs: ReadonlyArray<Pick<RunCost, 'table2'>>,
  names: readonly string[],
): string {
  const cells = costs.map((c) => table2Cells(c.table2));
  return columnTabular(
    ['measure', ...costs.map((_, i) => runLetter(i))],
    TABLE2_HEADER.map((h, row) => [latexEscape(h), ...cells.map((c) => texNumber(c[row] ?? ''))]),
    [texText(TABLE2_NOTE), `${runLegend(names.map(texText), null)}.`],
  );
}

/**
 * J under each judge every compared run shares, for a column: one block per judge (its name and
 * paired n on a row of its own, since a judge's name with its model takes a third of a column),
 * then a row per run by letter with its J and interval and, against the baseline, its Δ J and
 * interval; the legend names the runs and the notes give each judge's measured error.
 */
export function judgesColumnLatex(
  judges: readonly ComparedJudge[],
  names: readonly string[],
  baselineIndex: number,
): string {
  if (judges.length === 0) return '';
  const judgeNames = judgeColumnNames(judges.map((j) => j.judge));
  const header = ['run', 'J', '95\\% CI', `$\\Delta$ J vs ${runLetter(baselineIndex)}`, '95\\% CI'];
  let few = false;
  const ok = (x: ClusterBootstrapResult | null | undefined): x is ClusterBootstrapResult =>
    !!x && finite(x.meanDiff) && finite(x.low) && finite(x.high);
  const rows = judges.flatMap((j, row) => {
    // Every interval of a judge is over the same conversations, so its few-conversations mark is
    // the judge's: on its own row, where it costs no run's row any width.
    const isFew = [...j.perRun, ...j.vsBaseline].some(
      (r) => ok(r) && r.clusters < FEW_CONVERSATIONS,
    );
    few ||= isFew;
    const name = texText(judgeNames[row] ?? j.judge.protocol);
    return [
      [
        `\\multicolumn{${header.length}}{l}{${name}, n = ${texNumber(`${count(j.questions)}${isFew ? '†' : ''}`)}}`,
      ],
      ...j.perRun.map((r, i) => {
        const vs = i === baselineIndex ? null : j.vsBaseline[i];
        return [
          runLetter(i),
          ok(r) ? texNumber(r.meanDiff.toFixed(3)) : '--',
          ok(r) ? texNumber(`[${r.low.toFixed(3)}, ${r.high.toFixed(3)}]`) : '--',
          ok(vs) ? texNumber(signed(vs.meanDiff)) : '--',
          ok(vs) ? texNumber(interval(vs.low, vs.high)) : '--',
        ];
      }),
    ];
  });
  const errors = judges.flatMap((j, row) => {
    const text = measuredErrorText(j.measuredError);
    return text === null ? [] : [`${judgeNames[row] ?? j.judge.protocol}: ${text}`];
  });
  return columnTabular(header, rows, [
    `J: share of answers the judge labelled CORRECT, per judge that scored every run, on the n questions it judged in all of them; 95\\% CI by percentile bootstrap over conversations, $\\Delta$ paired by question.`,
    ...(few
      ? [
          `$^\\dagger$ fewer than ${FEW_CONVERSATIONS} conversations: the judge's intervals do not hold their 95\\% coverage; read them as indicative only.`,
        ]
      : []),
    ...(errors.length > 0
      ? [texText(`Measured judge error (baseline): ${errors.join('; ')}.`)]
      : []),
    `${runLegend(names.map(texText), baselineIndex)}.`,
  ]);
}
