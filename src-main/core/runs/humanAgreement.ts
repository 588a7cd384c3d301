import { parseStoredJson } from './stored';
import type { HumanLabel } from '../../../src-shared/labels';
import { RUN_JUDGE, type JudgeOfRun, type LabelAgreement } from '../../../src-shared/labels';
import { agreementReport, type Rating, type Verdict } from '../../../src-shared/scoring/agreement';
import {
  judgeVsHuman,
  selfConsistency,
  type JudgeVsHuman,
} from '../../../src-shared/scoring/judgeError';
import type { BootstrapOptions } from '../../../src-shared/scoring/stats';
import { z } from 'zod';
import { humanLabels, judgedCategories } from './labels';
import type { RunStore } from './store';

/**
 * The human labels of a run as statistics (issue 37 item 2): agreement between labellers and
 * each judge of the run against them. Every statistic is src-shared/scoring's (agreement.ts,
 * judgeError.ts); this file only lines the stored verdicts and labels up for it.
 *
 * A judge is named by `judgeIdentity`: RUN_JUDGE for the judge the run was scored with (the
 * answers' own verdicts), or the protocol name of a `rescore --judge` pass.
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

const LabelListSchema = z.array(z.number());

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
  const rows = store.db
    .prepare(
      `SELECT p.sample_id, p.test_index, p.question_index, p.labels, p.error, a.category
       FROM protocol_judge_scores p
       JOIN answers a ON a.run_id = p.run_id AND a.sample_id = p.sample_id
         AND a.test_index = p.test_index AND a.question_index = p.question_index
       WHERE p.run_id = ? AND p.protocol = ? AND p.test_index = (
         SELECT MAX(f.test_index) FROM answers f WHERE f.run_id = p.run_id
           AND f.sample_id = p.sample_id AND f.question_index = p.question_index)
       ORDER BY p.sample_id, p.question_index`,
    )
    .all(runId, judge) as Array<{
    sample_id: string;
    test_index: number;
    question_index: number;
    labels: string;
    error: string | null;
    category: number;
  }>;
  return rows
    .filter((r) => categories.has(r.category))
    .map((r) => ({
      key: keyOf(r.sample_id, r.test_index, r.question_index),
      cluster: r.sample_id,
      labels:
        r.error === null
          ? parseStoredJson(LabelListSchema, r.labels, `${store.file} protocol_judge_scores.labels`)
          : [],
    }));
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
    judges.push({ id: p.protocol, protocol: p.protocol, model: p.model });
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
