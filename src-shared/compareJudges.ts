/**
 * Several runs compared under each judge they share (issue 37 item 1, `cli compare`): per judge
 * (protocol, model, endpoint origin, repeats) that scored every compared run, each run's J with its
 * interval over conversations and its paired difference to the baseline on the questions that
 * judge scored in every run, with the judge's measured error beside it. Pure: the intervals are
 * significance.ts's clustered bootstrap, the Compare view's and the judge panel's.
 */
import type { JudgeErrorLookup, JudgePanelInput, MeasuredJudgeErrorNote } from './judgePanel';
import { judgeKey, type JudgeIdentity } from './judges';
import { clusterBootstrapCI, type ClusterBootstrapResult } from './scoring/significance';
import type { BootstrapOptions } from './scoring/stats';

export interface ComparedJudge {
  judge: JudgeIdentity;
  /** Questions this judge scored in every run (the paired n). */
  questions: number;
  /** Per run, in the comparison's order: J (mean share CORRECT) with its clustered interval. */
  perRun: ClusterBootstrapResult[];
  /** Per run: J − the baseline's J, paired by question, clustered; null for the baseline. */
  vsBaseline: Array<ClusterBootstrapResult | null>;
  /** As measured for the baseline run (its human labels, else the judge's audit). */
  measuredError: MeasuredJudgeErrorNote | null;
}

/** One run's judged questions (`cluster`: the conversation) and its judges' labels by key. */
export interface RunJudgesInput {
  questions: ReadonlyArray<{ key: string; cluster: string }>;
  judges: JudgePanelInput['judges'];
}

const meanOf = (labels: readonly number[] | undefined): number | null =>
  labels === undefined || labels.length === 0
    ? null
    : labels.reduce((sum, x) => sum + x, 0) / labels.length;

export function compareJudges(
  runs: readonly RunJudgesInput[],
  baselineIndex: number,
  measuredError: JudgeErrorLookup = () => null,
  options: BootstrapOptions = {},
): ComparedJudge[] {
  const baseline = runs[baselineIndex];
  if (baseline === undefined) return [];
  const clusterOf = new Map(baseline.questions.map((q) => [q.key, q.cluster]));
  const compared: ComparedJudge[] = [];
  for (const judge of baseline.judges) {
    const key = judgeKey(judge.identity);
    const columns = runs.map((run) => run.judges.find((j) => judgeKey(j.identity) === key));
    if (columns.some((c) => c === undefined)) continue;
    // The questions every run's judge gave a verdict, in the baseline's order.
    const shared = baseline.questions.filter((q) =>
      columns.every((c) => meanOf(c?.labels.get(q.key)) !== null),
    );
    const clusters = shared.map((q) => clusterOf.get(q.key) ?? q.cluster);
    const scores = columns.map((c) => shared.map((q) => meanOf(c?.labels.get(q.key))));
    const zeros = shared.map(() => 0);
    const base = scores[baselineIndex] ?? [];
    compared.push({
      judge: judge.identity,
      questions: shared.length,
      // The mean difference to zero is the mean: its clustered interval is J's.
      perRun: scores.map((s) => clusterBootstrapCI(zeros, s, clusters, options)),
      vsBaseline: scores.map((s, i) =>
        i === baselineIndex ? null : clusterBootstrapCI(base, s, clusters, options),
      ),
      measuredError: measuredError(judge.identity, judge.own),
    });
  }
  return compared;
}
