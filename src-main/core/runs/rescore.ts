import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Sample } from '../../../src-shared/dataset/types';
import { WorkbenchError } from '../../../src-shared/errors';
import {
  retrievedContext,
  retrievedTurnIds,
  type AnswerRecord,
  type JudgeConfig,
} from '../../../src-shared/experiment';
import type { RescoreJudgeResult, RescoreResult, RescoreSkip } from '../../../src-shared/rescore';
import {
  metricsOf,
  metricOf,
  metricScores,
  type MetricDefinition,
} from '../../../src-shared/metrics';
import { benchmarkCategory, type BenchmarkProfile } from '../../../src-shared/benchmarks';
import { datasetFileSha256, loadDatasetFile } from '../dataset/load';
import { indexLongMemEvalFile, streamsDataset } from '../dataset/longmemevalFile';
import type { AnswerKey, RunStore } from './store';
import { rescoreJudge, type RescoreJudgeOptions } from './rescoreJudge';

/**
 * Rescoring a stored run (issue 11 item 8): every answer of every test gets the chosen metrics'
 * values written into `answer_scores`, from what the run stored (prediction, gold, category,
 * retrieved refs) and, for retrieval metrics, the evidence of the dataset file the run used. No
 * memory or answerer runs. Writing is idempotent: a row per (answer, metric) is replaced.
 *
 * It works one sample at a time and yields to the event loop between samples, so the server's
 * main thread (the only writer of the runs DB) keeps answering while a large run is rescored.
 */

/** The judge is an LLM call per answer: rescoring never makes one (a judge pass does). */
const JUDGE_SKIP =
  'judge metrics need a judge endpoint and are not re-asked by rescore (configure a judge and run a judge pass)';

/** The asked metrics, else every metric of the run's benchmark (LoCoMo runs get no LongMemEval rows). */
function chosenMetrics(
  ids: readonly string[] | undefined,
  profile: BenchmarkProfile,
): MetricDefinition[] {
  return ids === undefined || ids.length === 0 ? metricsOf(profile) : ids.map((id) => metricOf(id));
}

/**
 * The run's questions by sample id from its dataset file, or why they cannot be read. A streamed
 * LongMemEval file (over the whole-file limit) is read in one pass that hashes it and keeps only
 * the questions, never the haystacks.
 */
async function runSamples(
  path: string,
  sha256: string | null,
): Promise<{ samples: Map<string, Pick<Sample, 'qa'>> } | { problem: string }> {
  const changed = { problem: `the dataset ${path} changed since the run (sha256 differs)` };
  try {
    if (await streamsDataset(path)) {
      const samples = new Map<string, Pick<Sample, 'qa'>>();
      const index = await indexLongMemEvalFile(path, (s) => samples.set(s.sampleId, { qa: s.qa }));
      return sha256 !== null && index.info.sha256 !== sha256 ? changed : { samples };
    }
    if (sha256 !== null && (await datasetFileSha256(path)) !== sha256) return changed;
    const { samples } = await loadDatasetFile(path);
    return { samples: new Map(samples.map((s) => [s.sampleId, s])) };
  } catch (error) {
    return {
      problem: `the dataset ${path} cannot be read (${error instanceof Error ? error.message : String(error)})`,
    };
  }
}

export async function rescoreRun(
  store: RunStore,
  runId: string,
  options: {
    metrics?: readonly string[];
    /** Also run these judges over the final answers, one after another (rescoreJudge.ts). */
    judges?: readonly JudgeConfig[];
  } & RescoreJudgeOptions = {},
): Promise<RescoreResult> {
  const run = store.getRun(runId);
  if (run.status === 'running') {
    throw new WorkbenchError('CONFLICT', `rescore: run ${runId} is running; wait for it to end`, {
      path: ['runId'],
    });
  }
  const profile = store.profileOf(runId);
  const topK = run.manifest.config.retrieval.topK;
  const skipped: RescoreSkip[] = [];
  // A judge protocol alone (no metrics named) rescores nothing else.
  const asked =
    options.judges?.length && !options.metrics?.length
      ? []
      : chosenMetrics(options.metrics, profile);
  let metrics = asked.filter((m) => {
    if (m.source === 'judge') skipped.push({ metric: m.id, reason: JUDGE_SKIP });
    else if (!m.score) skipped.push({ metric: m.id, reason: 'it has no per-answer formula' });
    else return true;
    return false;
  });
  let samples: Map<string, Pick<Sample, 'qa'>> | null = null;
  if (metrics.some((m) => m.source === 'retrieval')) {
    const loaded = await runSamples(run.manifest.dataset.path, run.manifest.dataset.sha256);
    if ('problem' in loaded) {
      metrics = metrics.filter((m) => {
        if (m.source !== 'retrieval') return true;
        skipped.push({ metric: m.id, reason: `evidence is needed and ${loaded.problem}` });
        return false;
      });
    } else samples = loaded.samples;
  }

  let written = 0;
  let answers = 0;
  for (const sampleId of run.manifest.samples) {
    const rows: Array<AnswerKey & { metric: string; value: number | null }> = [];
    const qaByIndex = new Map(samples?.get(sampleId)?.qa.map((q) => [q.index, q]) ?? []);
    for (const answer of store.answersByTest(runId, { sampleId })) {
      answers++;
      for (const metric of metrics) {
        rows.push({
          sampleId: answer.sampleId,
          testIndex: answer.testIndex,
          questionIndex: answer.questionIndex,
          metric: metric.id,
          value: scoreOf(metric, answer, qaByIndex.get(answer.questionIndex), profile, topK),
        });
      }
    }
    store.saveMetricScores(runId, rows);
    written += rows.length;
    await yieldToEventLoop();
  }
  // One pass after another: each has its own breaker, and the client bounds requests in flight.
  const judges: RescoreJudgeResult[] = [];
  for (const judge of options.judges ?? [])
    judges.push(await rescoreJudge(store, runId, judge, options));
  const [judge] = judges;
  return {
    runId,
    metrics: metrics.map((m) => m.id),
    skipped,
    written,
    answers,
    summary: store.writeSummary(runId),
    ...(judge ? { judge, judges } : {}),
  };
}

/** One metric's value for a stored answer, as the pipeline computed it when it was asked. */
function scoreOf(
  metric: MetricDefinition,
  answer: AnswerRecord,
  qa: Sample['qa'][number] | undefined,
  profile: ReturnType<RunStore['profileOf']>,
  topK: number,
): number | null {
  const category = benchmarkCategory(profile, answer.category);
  if (!metric.score || !metricScores(metric, category)) return null;
  // A failed retrieval found nothing; a failed answer still retrieved (see runSample).
  const retrieveFailed = answer.error?.startsWith('retrieve') === true;
  if (metric.source === 'retrieval' && !qa) return null;
  const retrieved = retrieveFailed ? [] : retrievedTurnIds(answer.retrieved, topK);
  const context = retrieveFailed ? undefined : retrievedContext(answer.retrieved, topK);
  return metric.score({
    prediction: answer.prediction,
    gold: answer.gold,
    category,
    evidence: qa?.evidence ?? [],
    ...(qa && !retrieveFailed ? { evidenceRaw: qa.evidenceRaw } : {}),
    retrieved,
    topK,
    // The ranking the run read past its top-k for such metrics (none stored: its top-k).
    ...(answer.scoringRanking && !retrieveFailed ? { ranking: answer.scoringRanking.turns } : {}),
    ...(qa?.retrievalCorpus ? { retrievalCorpus: qa.retrievalCorpus } : {}),
    ...(qa?.rubric ? { rubric: qa.rubric } : {}),
    ...(context ? { context } : {}),
    errored: answer.error !== null,
  });
}
