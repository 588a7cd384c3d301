import { metricOf, metricScores } from '../../../src-shared/metrics';
import { endpointOrigin, type JudgeIdentity } from '../../../src-shared/judges';
import {
  judgePanelOf,
  type JudgeErrorLookup,
  type JudgePanel,
  type JudgePanelInput,
  type QuestionLabels,
} from '../../../src-shared/judgePanel';
import type { AnswerRecord } from '../../../src-shared/experiment';
import type { RunReader } from './reader';

/** A run's judges with their labels by question key (`questionKey`), and the judged answers. */
export interface RunJudgeColumns {
  /** The final answers of the categories the judge metric scores. */
  answers: AnswerRecord[];
  judges: Array<JudgePanelInput['judges'][number]>;
}

/** The key a judge's labels are filed under: one question of one conversation. */
export const questionKey = (sampleId: string, questionIndex: number): string =>
  JSON.stringify([sampleId, questionIndex]);

/**
 * The run's own judge (its answers' J) first, then every judge `--judge` added
 * (protocol_judge_scores), over the final answers of the categories the judge metric scores.
 */
export function runJudgeColumns(reader: RunReader, runId: string): RunJudgeColumns {
  const { manifest } = reader.getRun(runId);
  const profile = reader.profileOf(runId);
  const judgeMetric = metricOf('judge');
  const judged = new Set(
    profile.categories.filter((c) => metricScores(judgeMetric, c)).map((c) => c.id),
  );
  const answers = reader
    .finalAnswers(runId, { retrieved: false })
    .filter((a) => judged.has(a.category));
  const judges: RunJudgeColumns['judges'] = [];
  if (manifest.judge) {
    const own: JudgeIdentity = {
      protocol: manifest.judge.prompt.style,
      model: manifest.judge.model,
      origin:
        manifest.config.judge === undefined ? '' : endpointOrigin(manifest.config.judge.baseUrl),
      repeats: manifest.judge.repeats,
    };
    const labels = new Map<string, QuestionLabels>();
    for (const a of answers)
      if (a.judge && a.judge.error === null)
        labels.set(questionKey(a.sampleId, a.questionIndex), a.judge.labels);
    judges.push({ identity: own, own: true, labels });
  }
  for (const judge of reader.protocolJudges(runId)) {
    const labels = new Map<string, QuestionLabels>();
    for (const v of reader.judgeVerdictsOf(runId, judge))
      labels.set(questionKey(v.sampleId, v.questionIndex), v.labels);
    const { protocol, model, origin, repeats } = judge;
    judges.push({ identity: { protocol, model, origin, repeats }, own: false, labels });
  }
  return { answers, judges };
}

/**
 * A run's judge panel (src-shared/judgePanel.ts) from the runs DB (`runJudgeColumns`). Null when
 * the run has no judge at all.
 */
export function runJudgePanel(
  reader: RunReader,
  runId: string,
  measuredError?: JudgeErrorLookup,
): JudgePanel | null {
  const { answers, judges } = runJudgeColumns(reader, runId);
  if (judges.length === 0) return null;
  return judgePanelOf(
    {
      questions: answers.map((a) => ({
        key: questionKey(a.sampleId, a.questionIndex),
        cluster: a.sampleId,
      })),
      judges,
    },
    measuredError,
  );
}
