/**
 * A run's judges side by side (issue 37 items 1 and 4): each judge's J with its interval, the
 * paired difference to the first judge, a repeated judge's self-consistency, the agreement between
 * judges, and the judge's measured error where an audit or human labels give one. Pure: the
 * statistics are src-shared/scoring's (agreement.ts, judgeError.ts, significance.ts); this module
 * only lines verdicts up by question and names things. Built in core/runs/judgePanel.ts.
 */
import type { JudgeIdentity } from './judges';
import { agreementReport, type AgreementReport, type Verdict } from './scoring/agreement';
import { selfConsistency, type Proportion, type SelfConsistency } from './scoring/judgeError';
import { judgeErrorPhrase, type MeasuredErrorSource } from './judgeAudit';
import { clusterBootstrapCI, type ClusterBootstrapResult } from './scoring/significance';
import type { BootstrapOptions } from './scoring/stats';

/** One judge's labels on one question (1 CORRECT, 0 WRONG, one per repeat); none: no verdict. */
export type QuestionLabels = readonly number[];

export interface JudgePanelInput {
  /** The judged questions, `cluster` their conversation (sample id). */
  questions: ReadonlyArray<{ key: string; cluster: string }>;
  judges: ReadonlyArray<{
    identity: JudgeIdentity;
    /** The run's own judge (answers.judge_*), as opposed to one `--judge` added. */
    own: boolean;
    /** By question key; absent or empty: no verdict on that question. */
    labels: ReadonlyMap<string, QuestionLabels>;
  }>;
}

/**
 * A judge's false-acceptance rate as it was measured (issue 37 item 4): `audit`, the share of
 * known-wrong answers it accepts in `cli judge-audit` (any run that judge scored); `human`, the
 * share of this run's answers people labelled wrong that it accepted (its own human labels).
 */
export interface MeasuredJudgeErrorNote {
  source: MeasuredErrorSource;
  falseAcceptance: Proportion;
}

/**
 * Where item 4's measured error comes from, for a judge of the run (`own`: the run's own judge).
 * Null: this judge was never measured.
 */
export type JudgeErrorLookup = (
  judge: JudgeIdentity,
  own: boolean,
) => MeasuredJudgeErrorNote | null;

export interface JudgePanelRow {
  judge: JudgeIdentity;
  own: boolean;
  /** J: mean share of CORRECT per question, with its bootstrap interval over conversations. */
  headline: ClusterBootstrapResult;
  /** This judge's J minus the first judge's, paired by question; null for the first judge. */
  vsFirst: ClusterBootstrapResult | null;
  /** Judged questions this judge gave no verdict. */
  missing: number;
  /** With repeats > 1: majority vote and the spread of each repeat's J. */
  selfConsistency: Omit<SelfConsistency, 'majority'> | null;
  measuredError: MeasuredJudgeErrorNote | null;
}

export interface JudgePanel {
  questions: number;
  judges: JudgePanelRow[];
  /** Between the judges (each judge's majority verdict); null with fewer than two judges. */
  agreement: AgreementReport | null;
}

const verdictOf = (label: number): Verdict => (label >= 1 ? 'correct' : 'wrong');

/** Lines the judges' verdicts up by question and computes every figure of the panel. */
export function judgePanelOf(
  input: JudgePanelInput,
  measuredError: JudgeErrorLookup = () => null,
  options: BootstrapOptions = {},
): JudgePanel {
  const clusters = input.questions.map((q) => q.cluster);
  const columns = input.judges.map((j) => {
    const labels = input.questions.map((q) => j.labels.get(q.key) ?? []);
    const scores = labels.map((l) =>
      l.length === 0 ? null : l.reduce((sum, x) => sum + x, 0) / l.length,
    );
    const consistency =
      j.identity.repeats > 1
        ? selfConsistency(
            labels.map((l) => l.map(verdictOf)),
            clusters,
            options,
          )
        : null;
    // One verdict per question for agreement: the label, or the repeats' majority (null on a tie).
    const verdicts =
      consistency?.majority ?? labels.map((l) => (l.length === 0 ? null : verdictOf(l[0]!)));
    return { judge: j, scores, verdicts, consistency };
  });
  const first = columns[0];
  const judges = columns.map(({ judge, scores, consistency }, i): JudgePanelRow => {
    const { majority: _majority, ...spread } = consistency ?? { majority: null };
    return {
      judge: judge.identity,
      own: judge.own,
      headline: clusterBootstrapCI(
        scores.map((s) => (s === null ? null : 0)),
        scores,
        clusters,
        options,
      ),
      vsFirst:
        i === 0 || first === undefined
          ? null
          : clusterBootstrapCI(first.scores, scores, clusters, options),
      missing: scores.filter((s) => s === null).length,
      selfConsistency: consistency === null ? null : (spread as Omit<SelfConsistency, 'majority'>),
      measuredError: measuredError(judge.identity, judge.own),
    };
  });
  return {
    questions: input.questions.length,
    judges,
    agreement:
      columns.length < 2
        ? null
        : agreementReport(
            input.questions.map((_, q) => columns.map((c) => c.verdicts[q] ?? null)),
            clusters,
            options,
          ),
  };
}

/** "0.612 [0.590, 0.634]"; "-" where a figure is undefined (NaN, or null after JSON). */
export function formatInterval(
  x: { estimate?: number; meanDiff?: number; low: number; high: number } | null | undefined,
  digits = 3,
): string {
  const point = x?.estimate ?? x?.meanDiff;
  const f = (v: number | null | undefined): string =>
    typeof v === 'number' && Number.isFinite(v) ? v.toFixed(digits) : '-';
  if (x === null || x === undefined || typeof point !== 'number' || !Number.isFinite(point))
    return '-';
  return `${f(point)} [${f(x.low)}, ${f(x.high)}]`;
}

/** Item 4's words beside a headline, in judge-audit's own wording (judgeErrorPhrase). */
export function measuredErrorText(note: MeasuredJudgeErrorNote | null): string | null {
  return note === null ? null : judgeErrorPhrase(note.falseAcceptance, note.source);
}
