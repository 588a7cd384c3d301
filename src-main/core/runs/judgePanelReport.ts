import { judgeColumnNames, judgeLabel } from '../../../src-shared/judges';
import type { IntervalEstimate } from '../../../src-shared/scoring/agreement';
import { formatInterval, measuredErrorText, type JudgePanel } from '../../../src-shared/judgePanel';

/**
 * The judge panel as plain text for `cli report` (the Runs view and the HTML report draw their
 * own): each judge's J with its interval and its measured error, then the agreement between
 * judges. Empty for a run without a judge, so other reports are unchanged.
 */
export function judgePanelTable(panel: JudgePanel | null | undefined): string {
  if (!panel || panel.judges.length === 0) return '';
  const names = judgeColumnNames(panel.judges.map((j) => j.judge));
  const rows: string[][] = [['judge', 'J [95% interval]', 'Δ vs first [95%]', 'n', 'no verdict']];
  panel.judges.forEach((j, i) =>
    rows.push([
      `${names[i]}${j.own ? ' (run)' : ''}`,
      formatInterval(j.headline),
      j.vsFirst === null ? '-' : formatInterval(j.vsFirst),
      String(j.headline.n),
      String(j.missing),
    ]),
  );
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const line = (r: string[]): string =>
    r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ');
  const out = [
    `Judges on ${panel.questions} judged final answers: J with its bootstrap interval over conversations; Δ paired by question`,
    ...rows.map(line),
  ];
  panel.judges.forEach((j, i) => {
    const notes = [judgeLabel(j.judge)];
    const error = measuredErrorText(j.measuredError);
    if (error !== null) notes.push(error);
    const sc = j.selfConsistency;
    if (sc !== null)
      notes.push(
        `${sc.repeats} repeats: majority-vote J ${fixed(sc.majorityAccuracy)}, repeats' J ` +
          `${fixed(sc.spread.min)}-${fixed(sc.spread.max)} (std ${fixed(sc.spread.std)}), ` +
          `unanimous on ${formatInterval(sc.unanimity)} of answers`,
      );
    out.push(`  ${names[i]}: ${notes.join('; ')}`);
  });
  const a = panel.agreement;
  if (a !== null) {
    out.push(`Agreement between judges (one verdict each: the label, or the repeats' majority)`);
    const stats: Array<[string, IntervalEstimate]> = [
      ['percent agreement', a.percentAgreement],
      ["Fleiss' κ", a.fleissKappa],
      ["Krippendorff's α", a.krippendorffAlpha],
    ];
    for (const p of a.pairs) {
      const pair = `${names[p.raterA]} × ${names[p.raterB]}`;
      stats.push([`Cohen's κ ${pair}`, p.cohenKappa], [`agreement ${pair}`, p.percentAgreement]);
    }
    const width = Math.max(...stats.map(([label]) => label.length));
    for (const [label, value] of stats)
      out.push(`  ${label.padEnd(width)}  ${formatInterval(value)}  (n ${value.n})`);
  }
  return `${out.join('\n')}\n`;
}

const fixed = (x: number | null | undefined): string =>
  typeof x === 'number' && Number.isFinite(x) ? x.toFixed(3) : '-';
