import type { HumanLabel } from '../../../src-shared/labels';
import { judgeKey } from '../../../src-shared/judges';
import { RUN_JUDGE, type JudgeOfRun, type LabelAgreement } from '../../../src-shared/labels';
import { agreementReport, type Rating, type Verdict } from '../../../src-shared/scoring/agreement';
import {
  judgeVsHuman,
  selfConsistency,
  type JudgeVsHuman,
} from '../../../src-shared/scoring/judgeError';
import type { BootstrapOptions } from '../../../src-shared/scoring/stats';
import { humanLabels, judgedCategories } from './labels';
import type { RunStore } from './store';

/**
 * The human labels of a run as statistics (issue 37 item 2): agreement between labellers and
 * each judge of the run against them. Every statistic is src-shared/scoring's (agreement.ts,
 * judgeError.ts); this file only lines the stored verdicts and labels up for it.
 *
 * A judge is named by `judgeIdentity`: RUN_JUDGE for the judge the run was scored with (the
 * answers' own verdicts), or `judgeKey` of a `rescore --judge` judge (protocol, model, origin,
 * repeats: src-shared/judges.ts).
 */

export { RUN_JUDGE };

const verdictOf = (label: number): Verdict => (label === 1 ? 'correct' : 'wrong');

const keyOf = (sampleId: string, testIndex: number, questionIndex: number): string =>
  `${sampleId}\u0000${testIndex}\u0000${questionIndex}`;

interface JudgedAnswer {
  key: string;
  cluster: string;
  /** Per repeat; empty when the judge gave no verdict. */
  labels: number[];
}

/**
 * The final answers a judge scored in the categories the headline's J covers, with its labels
 * per repeat (none where it failed).
 */
function judgedAnswers(store: RunStore, runId: string, judge: string): JudgedAnswer[] {
  const categories = judgedCategories(store, runId);
  if (judge === RUN_JUDGE) {
    return store
      .finalAnswers(runId)
      .filter((a) => a.judge !== null && categories.has(a.category))
      .map((a) => ({
        key: keyOf(a.sampleId, a.testIndex, a.questionIndex),
        cluster: a.sampleId,
        labels: a.judge?.error === null ? (a.judge?.labels ?? []) : [],
      }));
  }
  const identity = store.protocolJudges(runId).find((p) => judgeKey(p) === judge);
  if (identity === undefined) return [];
  // A protocol judge's verdicts are on the final answers: the labels key them by the final test.
  const finalTest = new Map(
    store.finalAnswers(runId).map((a) => [`${a.sampleId}\u0000${a.questionIndex}`, a.testIndex]),
  );
  return store.judgeVerdictsOf(runId, identity).flatMap((v) => {
    const testIndex = finalTest.get(`${v.sampleId}\u0000${v.questionIndex}`);
    if (testIndex === undefined || !categories.has(v.category)) return [];
    return [
      {
        key: keyOf(v.sampleId, testIndex, v.questionIndex),
        cluster: v.sampleId,
        // A verdict that failed has no mean: no labels, as for the run's own judge.
        labels: v.mean === null ? [] : v.labels,
      },
    ];
  });
}

/** The run's judges: its own (when its answers carry verdicts) and each `rescore --judge` protocol. */
export function judgesOfRun(store: RunStore, runId: string): JudgeOfRun[] {
  const judges: JudgeOfRun[] = [];
  const manifestJudge = store.getRun(runId).manifest.judge;
  if (manifestJudge)
    judges.push({
      id: RUN_JUDGE,
      protocol: manifestJudge.prompt.style,
      model: manifestJudge.model,
    });
  for (const p of store.protocolJudges(runId))
    judges.push({ id: judgeKey(p), protocol: p.protocol, model: p.model });
  return judges;
}

/**
 * One label per (answer, labeller) becomes, per answer, the majority of the labellers' correct /
 * wrong labels (a tie, or only unsure / skip labels, is no truth: `unsure`). The majority rule is
 * the one scoring/judgeError.ts applies to a judge's repeats.
 */
function consensus(
  byAnswer: Map<string, { cluster: string; labels: HumanLabel[] }>,
): Map<string, HumanLabel> {
  const keys = [...byAnswer.keys()];
  const rows = keys.map((k) =>
    (byAnswer.get(k)?.labels ?? []).map((l) => (l === 'correct' || l === 'wrong' ? l : null)),
  );
  const { majority } = selfConsistency(
    rows,
    keys.map((k) => byAnswer.get(k)?.cluster ?? ''),
    { resamples: 1 },
  );
  return new Map(
    keys.map((k, i) => {
      const labels = byAnswer.get(k)?.labels ?? [];
      const vote = majority[i] ?? null;
      // Only skips: the labellers passed; anything else undecided is unsure.
      const undecided: HumanLabel = labels.every((l) => l === 'skip') ? 'skip' : 'unsure';
      return [k, vote ?? undecided];
    }),
  );
}

/**
 * A judge of the run against the human labels (their per-answer majority): accuracy, κ, true and
 * false acceptance rates with intervals, and the run's judged share corrected by Rogan-Gladen.
 * Null when the run has no human label or no verdict from that judge. This is the lookup
 * `cli report` and the headlines read.
 */
export function humanJudgeAgreement(
  store: RunStore,
  runId: string,
  judgeIdentity: string = RUN_JUDGE,
  options: BootstrapOptions = {},
): JudgeVsHuman | null {
  const labels = humanLabels(store, runId);
  if (labels.length === 0) return null;
  const answers = judgedAnswers(store, runId, judgeIdentity);
  if (answers.length === 0) return null;
  const byAnswer = new Map<string, { cluster: string; labels: HumanLabel[] }>();
  for (const l of labels) {
    const key = keyOf(l.sampleId, l.testIndex, l.questionIndex);
    const entry = byAnswer.get(key) ?? { cluster: l.sampleId, labels: [] };
    entry.labels.push(l.label);
    byAnswer.set(key, entry);
  }
  const human = consensus(byAnswer);
  const majority = selfConsistency(
    answers.map((a) => a.labels.map(verdictOf)),
    answers.map((a) => a.cluster),
    { resamples: 1 },
  ).majority;
  return judgeVsHuman(
    answers.map((a, i) => ({
      cluster: a.cluster,
      judge: majority[i] ?? null,
      human: human.get(a.key) ?? null,
    })),
    options,
  );
}

/**
 * Everything the labelling panel and `cli report` show: per labeller their counts, the agreement
 * between labellers (correct / wrong labels; unsure and skip count as no label) and each judge
 * against the labels.
 */
export function labelAgreement(
  store: RunStore,
  runId: string,
  options: BootstrapOptions = {},
): LabelAgreement {
  const labels = humanLabels(store, runId);
  const labellers = [...new Set(labels.map((l) => l.labeller))].sort();
  const counts = Object.fromEntries(
    labellers.map((name) => [name, { correct: 0, wrong: 0, unsure: 0, skip: 0 }]),
  );
  const rows = new Map<string, { cluster: string; ratings: Rating[] }>();
  for (const l of labels) {
    const c = counts[l.labeller];
    if (c) c[l.label]++;
    const key = keyOf(l.sampleId, l.testIndex, l.questionIndex);
    const row = rows.get(key) ?? {
      cluster: l.sampleId,
      ratings: labellers.map((): Rating => null),
    };
    row.ratings[labellers.indexOf(l.labeller)] =
      l.label === 'correct' || l.label === 'wrong' ? l.label : null;
    rows.set(key, row);
  }
  const matrix = [...rows.values()];
  return {
    runId,
    labellers,
    counts,
    labelled: rows.size,
    humans:
      labellers.length < 2
        ? null
        : agreementReport(
            matrix.map((r) => r.ratings),
            matrix.map((r) => r.cluster),
            options,
          ),
    judges: judgesOfRun(store, runId).flatMap((judge) => {
      const vsHuman = humanJudgeAgreement(store, runId, judge.id, options);
      return vsHuman === null ? [] : [{ ...judge, vsHuman }];
    }),
  };
}
