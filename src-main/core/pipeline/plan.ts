import { benchmarkCategory, benchmarkProfile } from '../../../src-shared/benchmarks';
import type { Sample } from '../../../src-shared/dataset';
import { metricOf, metricScores } from '../../../src-shared/metrics';
import type { DatasetLoadResult } from '../../../src-shared/dataset/types';
import type { ExperimentConfig, LlmAnswererConfig } from '../../../src-shared/experiment';
import type { ExperimentEstimate, RunEstimate } from '../../../src-shared/runs';
import type { AxisValue, SweepCell } from '../../../src-shared/sweeps';
import { ANSWER_TEMPLATES, JUDGE_TEMPLATE } from '../answer/prompts';
import { LOCOMO_PER_QA_TOKEN_BUDGET } from '../answer/protocols';
import { costOf } from '../http/pricing';
import { loadDatasetFile } from '../dataset/load';
import {
  indexLongMemEvalFile,
  stampOf,
  streamsDataset,
  type LongMemEvalFileIndex,
} from '../dataset/longmemevalFile';
import { selectSamples } from './runner';
import { selectFrom, testPlanOf } from './runDataset';

/**
 * What a sweep will ask of its LLM endpoints before anything runs: per cell, the answer calls
 * (every question re-asked at every test), the judge calls (categories 1-4 at every test, times
 * repeats: an upper bound, identical rows are judged once) and a token and cost estimate from the
 * prices the config carries. Memory-LLM calls depend on the preset and are not estimated.
 */

/** Words per token for English text (the usual rule of thumb for BPE tokenizers). */
const WORDS_PER_TOKEN = 0.75;

/** One cell's estimate (tokens over its answer and judge calls; cost null without prices). */
export interface CellPlan extends ExperimentEstimate {
  index: number;
  key: string;
  values: Record<string, AxisValue>;
  repeat: number;
}

export interface SweepPlan {
  cells: CellPlan[];
  totals: Omit<CellPlan, 'index' | 'key' | 'values' | 'repeat'>;
}

const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;
const tokens = (wordCount: number): number => Math.ceil(wordCount / WORDS_PER_TOKEN);

/**
 * A cell's plan summed over its samples one at a time, so a streamed file (a LongMemEval M file)
 * is planned without holding its samples: every sum is additive, the mean turn length included.
 */
class CellTally {
  readonly #config: ExperimentConfig;
  readonly #format: string;
  readonly #answerTemplate: number;
  readonly #judgeTemplate = words(JUDGE_TEMPLATE);
  readonly #judge = metricOf('judge');
  samples = 0;
  #turns = 0;
  #turnWords = 0;
  #tests = 0;
  #questions = 0;
  /** Answer calls: one a question, or one a batch of a test's questions (LoCoMo's batch prompt). */
  #answerCalls = 0;
  #judgeable = 0;
  /** The answer prompts' words without the retrieved turns (topK mean turns each, added at the end). */
  #answerPromptWords = 0;
  #judgePromptWords = 0;

  constructor(config: ExperimentConfig, format: string) {
    this.#config = config;
    this.#format = format;
    this.#answerTemplate = words(Object.values(ANSWER_TEMPLATES[promptStyleOf(config)]).join(' '));
  }

  add(sample: Sample): void {
    this.samples++;
    for (const session of sample.sessions) {
      for (const turn of session.turns) {
        this.#turns++;
        this.#turnWords += words(turn.text) + 2; // the speaker's name and a date prefix
      }
    }
    // The categories a judge scores come from the dataset's benchmark profile (LoCoMo: 1-4).
    const profile = benchmarkProfile(this.#format);
    const plan = testPlanOf(sample, this.#config);
    const byIndex = new Map(sample.qa.map((q) => [q.index, q]));
    this.#tests += plan.tests.length;
    const batchSize =
      this.#config.answerer.kind === 'llm' ? (this.#config.answerer.batchSize ?? 1) : 1;
    for (const test of plan.tests) {
      this.#answerCalls += Math.ceil(test.questionIndices.length / batchSize);
      for (const qi of test.questionIndices) {
        const qa = byIndex.get(qi);
        if (!qa) continue;
        this.#questions++;
        this.#answerPromptWords += this.#answerTemplate + words(qa.question);
        if (metricScores(this.#judge, benchmarkCategory(profile, qa.category))) {
          this.#judgeable++;
          this.#judgePromptWords +=
            this.#judgeTemplate + words(qa.question) + words(qa.answer ?? '');
        }
      }
    }
  }

  /** `cell.config` may differ from the tally's in what `tallyKey` leaves out (top-k, models, prices). */
  plan(cell: SweepCell): CellPlan {
    const { config } = cell;
    const turnWords = this.#turns === 0 ? 0 : this.#turnWords / this.#turns;
    const answerPromptWords =
      this.#answerPromptWords + this.#questions * config.retrieval.topK * turnWords;
    const answerer = config.answerer.kind === 'llm' ? config.answerer : null;
    const answerCalls = answerer ? this.#answerCalls : 0;
    const judgeCalls = config.judge ? this.#judgeable * config.judge.repeats : 0;
    // Completions: the answer's token cap (an upper bound) and a short JSON verdict for the judge.
    const answerUsage = {
      promptTokens: answerer ? tokens(answerPromptWords) : 0,
      completionTokens: answerer ? answerCalls * answerMaxTokens(answerer) : 0,
    };
    const judgeUsage = {
      promptTokens: config.judge ? tokens(this.#judgePromptWords) * config.judge.repeats : 0,
      completionTokens: judgeCalls * 40,
    };
    return {
      index: cell.index,
      key: cell.key,
      values: cell.values,
      repeat: cell.repeat,
      samples: this.samples,
      tests: this.#tests,
      questions: this.#questions,
      answerCalls,
      judgeCalls,
      promptTokens: answerUsage.promptTokens + judgeUsage.promptTokens,
      completionTokens: answerUsage.completionTokens + judgeUsage.completionTokens,
      cost: sumCosts([
        answerer ? costOf(answerUsage, answerer.prices) : 0,
        config.judge ? costOf(judgeUsage, config.judge.prices) : 0,
      ]),
    };
  }
}

/** The answer's token cap: a LoCoMo batch asks 50 tokens per question of the batch size. */
function answerMaxTokens(answerer: LlmAnswererConfig): number {
  const batchSize = answerer.batchSize ?? 1;
  return batchSize > 1 ? LOCOMO_PER_QA_TOKEN_BUDGET * batchSize : answerer.maxTokens;
}

export function planCell(cell: SweepCell, dataset: DatasetLoadResult): CellPlan {
  // The runner's selection, so a cell that names an invalid sample is refused here as it would be.
  const { samples } = selectSamples(dataset, cell.config);
  const tally = new CellTally(cell.config, dataset.info.format);
  for (const sample of samples) tally.add(sample);
  return tally.plan(cell);
}

/**
 * What `CellTally.add` reads of the config: two configs with the same key tally every sample
 * alike, and differ only in what `plan` applies to the sums (top-k, models, prices, the judge).
 */
function tallyKey(config: ExperimentConfig): string {
  return JSON.stringify([
    config.datasetPath,
    config.samples ?? null,
    config.includeNoEvidence,
    config.mode ?? null,
    config.haystackCurvePoints ?? null,
    config.questionCategories ?? null,
    config.answerer.kind === 'llm' ? (config.answerer.batchSize ?? 1) : 1,
    promptStyleOf(config),
  ]);
}

/**
 * The last streamed passes' sums, by file (size and mtime) and `tallyKey`: the Experiments form
 * asks for an estimate at every edit, and a pass over LongMemEval M reads 2.7 GB. Numbers and
 * question ids only; a file rewritten since is read again.
 */
const streamedTallies = new Map<
  string,
  Promise<{ tally: CellTally; index: LongMemEvalFileIndex }>
>();
const MAX_STREAMED_TALLIES = 8;

function streamedTally(
  config: ExperimentConfig,
  stamp: { size: number; mtimeMs: number },
): Promise<{ tally: CellTally; index: LongMemEvalFileIndex }> {
  const key = JSON.stringify([stamp.size, stamp.mtimeMs, tallyKey(config)]);
  const kept = streamedTallies.get(key);
  if (kept) return kept;
  const wanted = config.samples ? new Set(config.samples) : null;
  const tally = new CellTally(config, 'longmemeval');
  const pass = indexLongMemEvalFile(config.datasetPath, (sample) => {
    if (wanted === null || wanted.has(sample.sampleId)) tally.add(sample);
  }).then((index) => ({ tally, index }));
  streamedTallies.set(key, pass);
  pass.catch(() => streamedTallies.delete(key));
  while (streamedTallies.size > MAX_STREAMED_TALLIES) {
    streamedTallies.delete(streamedTallies.keys().next().value ?? key);
  }
  return pass;
}

/** A cell over a streamed LongMemEval file: one pass, holding one question at a time. */
async function planStreamedCell(cell: SweepCell): Promise<CellPlan> {
  const { config } = cell;
  const stamp = await stampOf(config.datasetPath);
  const { tally, index } = await streamedTally(config, stamp);
  // The pass read the file it stamped: else it was rewritten meanwhile, so read it again.
  if (index.stamp.size !== stamp.size || index.stamp.mtimeMs !== stamp.mtimeMs) {
    return planStreamedCell(cell);
  }
  // Refuses what the runner refuses (invalid or unknown samples).
  selectFrom(
    index.sampleIds.map((sampleId) => ({ sampleId })),
    index.problems,
    config,
  );
  return tally.plan(cell);
}

function promptStyleOf(config: ExperimentConfig): keyof typeof ANSWER_TEMPLATES {
  // An estimate: the workbench templates stand in for every answer protocol's prompt.
  return config.answerer.kind === 'llm' ? (config.answerer.promptStyle ?? 'locomo') : 'locomo';
}

function sumCosts(costs: ReadonlyArray<number | null>): number | null {
  let total = 0;
  for (const c of costs) {
    if (c === null) return null;
    total += c;
  }
  return total;
}

export function totalsOf(cells: readonly CellPlan[]): SweepPlan['totals'] {
  return {
    samples: cells.reduce((n, c) => n + c.samples, 0),
    tests: cells.reduce((n, c) => n + c.tests, 0),
    questions: cells.reduce((n, c) => n + c.questions, 0),
    answerCalls: cells.reduce((n, c) => n + c.answerCalls, 0),
    judgeCalls: cells.reduce((n, c) => n + c.judgeCalls, 0),
    promptTokens: cells.reduce((n, c) => n + c.promptTokens, 0),
    completionTokens: cells.reduce((n, c) => n + c.completionTokens, 0),
    cost: sumCosts(cells.map((c) => c.cost)),
  };
}

/**
 * Loads each dataset the cells name once and plans every cell; a LongMemEval file over the
 * whole-file limit is streamed once per cell instead.
 */
export async function planSweep(cells: readonly SweepCell[]): Promise<SweepPlan> {
  const datasets = new Map<string, DatasetLoadResult>();
  const streamed = new Map<string, boolean>();
  const planned: CellPlan[] = [];
  for (const cell of cells) {
    const path = cell.config.datasetPath;
    if (!streamed.has(path)) streamed.set(path, await streamsDataset(path));
    if (streamed.get(path) === true) {
      planned.push(await planStreamedCell(cell));
      continue;
    }
    let dataset = datasets.get(cell.config.datasetPath);
    if (!dataset) {
      dataset = await loadDatasetFile(cell.config.datasetPath);
      datasets.set(cell.config.datasetPath, dataset);
    }
    planned.push(planCell(cell, dataset));
  }
  return { cells: planned, totals: totalsOf(planned) };
}

/**
 * One run's plan totals (the planner's estimate for a single cell). `dataset`: the file as the
 * caller already parsed it (the service's open dataset); otherwise it is loaded from the config.
 */
export async function planRun(
  config: ExperimentConfig,
  dataset?: DatasetLoadResult,
): Promise<SweepPlan['totals']> {
  const cell: SweepCell = { index: 0, key: 'run', values: {}, repeat: 0, config };
  if (!dataset) return (await planSweep([cell])).totals;
  return totalsOf([planCell(cell, dataset)]);
}

/** The estimate a run keeps beside its actual usage; none for a run that calls no LLM. */
export async function estimateOf(
  config: ExperimentConfig,
  dataset?: DatasetLoadResult,
): Promise<RunEstimate | undefined> {
  if (config.answerer.kind !== 'llm' && !config.judge) return undefined;
  const t = await planRun(config, dataset);
  return {
    answerCalls: t.answerCalls,
    judgeCalls: t.judgeCalls,
    promptTokens: t.promptTokens,
    completionTokens: t.completionTokens,
    cost: t.cost,
  };
}
