import { finite, formatScore } from './compareTable';
import { HUMAN_LABELS, RUN_JUDGE, type LabelAgreement } from './labels';

/**
 * A run's human-label figures as text, one definition for the Runs view's labelling panel and
 * `cli report`: each column once, with its name and how its cell reads an agreement result.
 */

/** An estimate with its interval: "0.612 [0.590, 0.634]"; "—" where it is undefined. */
export function formatEstimate(e: { estimate: number; low: number; high: number }): string {
  if (!finite(e.estimate)) return '—';
  const interval =
    finite(e.low) && finite(e.high) ? ` [${formatScore(e.low)}, ${formatScore(e.high)}]` : '';
  return `${formatScore(e.estimate)}${interval}`;
}

type JudgeRow = LabelAgreement['judges'][number];

/** The judge-vs-human table's columns after the judge's name. */
export const JUDGE_VS_HUMAN_COLUMNS: ReadonlyArray<{
  name: string;
  cell: (j: JudgeRow) => string;
}> = [
  { name: 'Labelled', cell: (j) => String(j.vsHuman.labelled) },
  { name: 'Unsure/skip', cell: (j) => String(j.vsHuman.excludedUnsureOrSkip) },
  { name: 'Accuracy', cell: (j) => formatEstimate(j.vsHuman.accuracy) },
  { name: 'κ', cell: (j) => formatEstimate(j.vsHuman.kappa) },
  {
    name: 'True acceptance',
    cell: (j) =>
      `${formatEstimate(j.vsHuman.trueAcceptance)} (${j.vsHuman.trueAcceptance.successes}/${j.vsHuman.trueAcceptance.n})`,
  },
  {
    name: 'False acceptance',
    cell: (j) =>
      `${formatEstimate(j.vsHuman.falseAcceptance)} (${j.vsHuman.falseAcceptance.successes}/${j.vsHuman.falseAcceptance.n})`,
  },
  { name: 'J judged', cell: (j) => formatEstimate(j.vsHuman.observed) },
  {
    name: 'J corrected (Rogan-Gladen)',
    cell: (j) =>
      j.vsHuman.corrected.valid
        ? formatEstimate(j.vsHuman.corrected)
        : 'none (the judge does not accept correct answers more often than wrong ones)',
  },
];

/** A judge's name in the table: "run judge mem0 · gpt-4o-mini" or a rescore protocol's. */
export function judgeName(j: Pick<JudgeRow, 'id' | 'protocol' | 'model'>): string {
  return `${j.id === RUN_JUDGE ? 'run judge ' : ''}${j.protocol} · ${j.model}`;
}

/** "ann: 12 correct, 6 wrong, 2 unsure, 1 skip", one per labeller. */
export function labellerCountLines(a: LabelAgreement): string[] {
  return a.labellers.map((name) => {
    const counts = a.counts[name];
    return `${name}: ${HUMAN_LABELS.map((l) => `${counts?.[l] ?? 0} ${l}`).join(', ')}`;
  });
}

/**
 * The figures as plain text (`cli report`): who labelled what, their agreement, and each judge
 * against the labels, one line per column. Empty when nobody labelled the run.
 */
export function labelFiguresText(a: LabelAgreement): string {
  if (a.labelled === 0) return '';
  const out = [`Human labels (answers labelled: ${a.labelled})`];
  for (const line of labellerCountLines(a)) out.push(`  ${line}`);
  for (const line of labellerAgreementLines(a)) out.push(`  ${line}`);
  if (a.judges.length > 0)
    out.push(
      "Judge vs human labels (the labellers' majority; unsure and skip excluded), 95% intervals:",
    );
  const width = Math.max(...JUDGE_VS_HUMAN_COLUMNS.map((c) => c.name.length));
  for (const j of a.judges) {
    out.push(`  ${judgeName(j)}`);
    for (const c of JUDGE_VS_HUMAN_COLUMNS) out.push(`    ${c.name.padEnd(width)}  ${c.cell(j)}`);
  }
  return `${out.join('\n')}\n`;
}

/** The labellers' agreement lines: per pair, then over all when there are more than two. */
export function labellerAgreementLines(a: LabelAgreement): string[] {
  if (a.humans === null) return [];
  const name = (i: number) => a.labellers[i] ?? `#${i}`;
  const lines = a.humans.pairs.map(
    (p) =>
      `${name(p.raterA)} – ${name(p.raterB)}: agreement ${formatEstimate(p.percentAgreement)}, Cohen's κ ${formatEstimate(p.cohenKappa)} (n ${p.cohenKappa.n})`,
  );
  if (a.labellers.length > 2)
    lines.push(
      `all ${a.labellers.length}: Fleiss' κ ${formatEstimate(a.humans.fleissKappa)}, Krippendorff's α ${formatEstimate(a.humans.krippendorffAlpha)}`,
    );
  return lines;
}
