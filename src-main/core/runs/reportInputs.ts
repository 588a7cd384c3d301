import { readFileSync, statSync } from 'node:fs';
import type {
  QuestionAcrossRuns,
  QuestionRunSide,
  RunComparisonResult,
} from '../../../src-shared/api';
import type { Sample } from '../../../src-shared/dataset/types';
import type { AnswerRecord } from '../../../src-shared/experiment';
import type { ReportDataset } from '../../../src-shared/htmlReportParts';
import { reportedFlips, type CompareReportExtras } from '../../../src-shared/htmlCompareReport';
import { runLabel, type RunManifest } from '../../../src-shared/runs';
import { repeatCacheScope } from '../../../src-shared/sweeps';
import { judgeCacheKey, legacyJudgeCacheKey } from '../answer/judge';
import { datasetByteLimit, loadDatasetBytes } from '../dataset/load';
import type { RunReader } from './reader';

/**
 * What a report reads beside the runs DB: each question's answer in every compared run (the
 * Compare view's `runs.question`, for many questions at once) and the dataset the runs read, for
 * the turns a flip's evidence names and the gold of adversarial questions as the file has it.
 */

type QuestionKey = { sampleId: string; questionIndex: number };

/**
 * Each question's answer at the last test that asked it, in every run, with the judge's reasons:
 * one read of a run's answers per sample, however many of its questions are asked for.
 */
export function questionsAcrossRuns(
  reader: RunReader,
  runIds: readonly string[],
  questions: readonly QuestionKey[],
): QuestionAcrossRuns[] {
  const sides = runIds.map((id) => {
    const info = reader.getRun(id);
    const last = new Map<string, AnswerRecord>();
    for (const sampleId of new Set(questions.map((q) => q.sampleId))) {
      for (const a of reader.answersByTest(id, { sampleId })) {
        const key = `${a.sampleId}\u0000${a.questionIndex}`;
        const seen = last.get(key);
        if (seen === undefined || a.testIndex > seen.testIndex) last.set(key, a);
      }
    }
    return { info, last };
  });
  return questions.map(({ sampleId, questionIndex }) => ({
    sampleId,
    questionIndex,
    runs: sides.map(({ info, last }): QuestionRunSide => {
      const answer = last.get(`${sampleId}\u0000${questionIndex}`) ?? null;
      return {
        runId: info.id,
        label: runLabel(info),
        datasetSha256: info.manifest.dataset.sha256,
        topK: info.manifest.config.retrieval.topK,
        judgeProtocol: info.manifest.judge?.prompt.style ?? null,
        answer,
        judgeReasons: judgeReasons(reader, info.manifest, answer),
      };
    }),
  }));
}

/**
 * The reasons the run's judge gave for this answer, looked up in the judge cache by the key the
 * judge stored them under (question, gold, prediction, model, endpoint, prompt, repeat, the run's
 * repeat scope); verdicts stored before the endpoint was keyed are found by their old key.
 */
function judgeReasons(
  reader: RunReader,
  manifest: RunManifest,
  answer: AnswerRecord | null,
): Array<string | null> | null {
  const judge = manifest.judge ?? null;
  if (judge === null || answer?.judge == null || answer.gold === null || answer.error !== null)
    return null;
  const item = { question: answer.question, gold: answer.gold, answer: answer.prediction };
  const scope = repeatCacheScope(manifest.sweep);
  const baseUrl = manifest.config.judge?.baseUrl;
  const repeats = Array.from({ length: judge.repeats }, (_, repeat) => repeat);
  const keys = repeats.map((repeat) =>
    baseUrl === undefined
      ? null
      : judgeCacheKey(item, { model: judge.model, baseUrl }, judge.prompt.sha256, repeat, scope),
  );
  const legacyKeys = repeats.map((repeat) =>
    legacyJudgeCacheKey(item, judge.model, judge.prompt.sha256, repeat, scope),
  );
  const verdicts = reader.judgeVerdicts([
    ...keys.filter((k): k is string => k !== null),
    ...legacyKeys,
  ]);
  const reasons = repeats.map(
    (r) =>
      (keys[r] && verdicts.get(keys[r])?.reason) ||
      verdicts.get(legacyKeys[r] as string)?.reason ||
      null,
  );
  return reasons.some((r) => r !== null) ? reasons : null;
}

/**
 * The samples a report needs from the dataset the run read, found at the path its manifest
 * records and used only when the file's sha256 is still the one the run read: a changed or moved
 * file says so in the report instead of showing another file's turns as this run's.
 */
export function reportDataset(manifest: RunManifest, sampleIds: Iterable<string>): ReportDataset {
  const { path, sha256 } = manifest.dataset;
  const wanted = new Set(sampleIds);
  try {
    if (statSync(path).size > datasetByteLimit())
      return { samples: new Map(), note: `the dataset ${path} is larger than a report reads` };
    const loaded = loadDatasetBytes(readFileSync(path), path);
    if (sha256 !== null && loaded.info.sha256 !== sha256) {
      return {
        samples: new Map(),
        note: `the dataset at ${path} has changed since the run read it (sha256 ${loaded.info.sha256?.slice(0, 12) ?? '?'}, the run's ${sha256.slice(0, 12)})`,
      };
    }
    const samples = new Map<string, Sample>();
    for (const s of loaded.samples) if (wanted.has(s.sampleId)) samples.set(s.sampleId, s);
    return { samples, note: null };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { samples: new Map(), note: `the dataset could not be read: ${reason}` };
  }
}

/**
 * What the comparison report adds to `runs.compare`: each run's manifest and curve, every reported
 * flip's answers across the runs (its explanation) and the baseline's dataset for the turns and
 * the adversarial questions' gold.
 */
export function compareReportExtras(
  reader: RunReader,
  result: RunComparisonResult,
  runIds: readonly string[],
): CompareReportExtras {
  const infos = runIds.map((id) => reader.getRun(id));
  const flips = reportedFlips(result.comparison).shown;
  const baseline = infos[result.comparison.baselineIndex] ?? infos[0]!;
  return {
    manifests: infos.map((info) => info.manifest),
    curves: runIds.map((id) => reader.curve(id)),
    explanations: questionsAcrossRuns(reader, runIds, flips),
    dataset: reportDataset(
      baseline.manifest,
      flips.map((row) => row.sampleId),
    ),
  };
}
