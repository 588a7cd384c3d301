import { judgeColumnNames, judgeKey, judgeLabel } from '@shared/judges';
import { formatInterval, measuredErrorText, type JudgePanel } from '@shared/judgePanel';

/**
 * The Runs view's judge panel as rows (issue 37 items 1 and 4): one per judge with its J and
 * interval, the paired difference to the first judge, its self-consistency and its measured
 * error; then the agreement statistics. Pure, tested under plain Node.
 */

export interface JudgeRow {
  key: string;
  /** Short name, unique among the run's judges ("mem0", "mem0/gpt-4o ×3"). */
  name: string;
  /** Protocol, model, repeats and endpoint origin in full. */
  title: string;
  own: boolean;
  j: string;
  vsFirst: string;
  n: number;
  missing: number;
  /** "3 repeats: majority-vote J 0.600, spread 0.580–0.630 (std 0.020)"; null for one repeat. */
  consistency: string | null;
  /** Item 4: "judge accepts 8% of known-wrong answers (audit, n 120)"; null when unmeasured. */
  measuredError: string | null;
}

export interface AgreementRow {
  label: string;
  value: string;
  n: number;
}

export interface JudgePanelView {
  questions: number;
  judges: JudgeRow[];
  /** Empty with fewer than two judges. */
  agreement: AgreementRow[];
}

const fixed = (x: number | null | undefined): string =>
  typeof x === 'number' && Number.isFinite(x) ? x.toFixed(3) : '–';

export function judgePanelView(panel: JudgePanel): JudgePanelView {
  const names = judgeColumnNames(panel.judges.map((j) => j.judge));
  const judges = panel.judges.map((row, i): JudgeRow => {
    const sc = row.selfConsistency;
    return {
      key: judgeKey(row.judge),
      name: names[i] ?? row.judge.protocol,
      title: judgeLabel(row.judge),
      own: row.own,
      j: formatInterval(row.headline),
      vsFirst: row.vsFirst === null ? '–' : formatInterval(row.vsFirst),
      n: row.headline.n,
      missing: row.missing,
      consistency:
        sc === null
          ? null
          : `${sc.repeats} repeats: majority-vote J ${fixed(sc.majorityAccuracy)}, spread ` +
            `${fixed(sc.spread.min)}–${fixed(sc.spread.max)} (std ${fixed(sc.spread.std)})`,
      measuredError: measuredErrorText(row.measuredError),
    };
  });
  const a = panel.agreement;
  const agreement: AgreementRow[] =
    a === null
      ? []
      : [
          { label: 'Percent agreement', value: a.percentAgreement },
          { label: "Fleiss' κ", value: a.fleissKappa },
          { label: "Krippendorff's α", value: a.krippendorffAlpha },
          ...a.pairs.flatMap((p) => {
            const pair = `${names[p.raterA]} × ${names[p.raterB]}`;
            return [{ label: `Cohen's κ, ${pair}`, value: p.cohenKappa }];
          }),
        ].map(({ label, value }) => ({ label, value: formatInterval(value), n: value.n }));
  return { questions: panel.questions, judges, agreement };
}
