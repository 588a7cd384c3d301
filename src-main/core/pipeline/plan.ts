import { benchmarkCategory, benchmarkProfile } from '../../../src-shared/benchmarks';
import type { Sample } from '../../../src-shared/dataset';
import { metricOf, metricScores } from '../../../src-shared/metrics';
import type { DatasetLoadResult } from '../../../src-shared/dataset/types';
import {
  answerProtocolOf,
  type ExperimentConfig,
  type LlmAnswererConfig,
} from '../../../src-shared/experiment';
import type { ExperimentEstimate, RunEstimate } from '../../../src-shared/runs';
import type { AxisValue, SweepCell } from '../../../src-shared/sweeps';
import { JUDGE_TEMPLATE } from '../answer/prompts';
import { promptChars, tokensOfChars } from '../answer/llm-client';
import { buildLocomoBatchPrompt } from '../answer/locomoBatch';
import { answerMaxTokensOf, answerProtocol, type AnswerProtocol } from '../answer/protocols';
import type { AnswerRequest, MemoryHit } from '../answer/types';
import { turnText } from '../memory/retrieval/turns';
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
import { answerRequestOf, conversationSoFar } from './askQuestion';

/**
 * What a sweep will ask of its LLM endpoints before anything runs: per cell, the answer calls
 * (every question re-asked at every test), the judge calls (categories 1-4 at every test, times
 * repeats: an upper bound, identical rows are judged once) and a token and cost estimate from the
 * prices the config carries. Memory-LLM calls depend on the preset and are not estimated.
 */

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

/**
 * The retrieved memories of a test's questions: as many as were inserted by then (a top-k larger
 * than that gets fewer), each adding `charsPerHit` to each of the `questions` prompts.
 */
interface HitSlots {
  available: number;
  questions: number;
  charsPerHit: number;
  /** A notes stage's prompt for one memory (longmemeval-con-separate); null: no notes stage. */
  charsPerNote: number | null;
}

/**
 * A cell's plan summed over its samples one at a time, so a streamed file (a LongMemEval M file)
 * is planned without holding its samples: every sum is additive.
 *
 * Answer prompts are the ones the run builds (the answerer's protocol over `answerRequestOf`,
 * the conversation so far where the protocol reads it), counted in characters as the client's
 * own estimate counts them (`tokensOfChars`). Only the retrieved memories are modelled: each is
 * the sample's mean turn, and a question at a test gets `min(topK, turns inserted)` of them.
 */
class CellTally {
  readonly #config: ExperimentConfig;
  readonly #format: string;
  readonly #judge = metricOf('judge');
  samples = 0;
  #tests = 0;
  #questions = 0;
  /** Answer calls: one a question, or one a batch of a test's questions (LoCoMo's batch prompt). */
  #answerCalls = 0;
  #judgeable = 0;
  /** The answer prompts' characters without their retrieved memories (added by `plan`). */
  #answerPromptChars = 0;
  readonly #hitSlots: HitSlots[] = [];
  #judgePromptChars = 0;
  /** The answer protocol's, when the answerer is an LLM (what its requests send). */
  readonly #protocol: AnswerProtocol | null;

  constructor(config: ExperimentConfig, format: string) {
    this.#config = config;
    this.#format = format;
    this.#protocol =
      config.answerer.kind === 'llm'
        ? answerProtocol(
            answerProtocolOf(config.answerer, benchmarkProfile(format).defaultAnswerProtocol),
          )
        : null;
  }

  add(sample: Sample): void {
    this.samples++;
    // The categories a judge scores come from the dataset's benchmark profile (LoCoMo: 1-4).
    const profile = benchmarkProfile(this.#format);
    const plan = testPlanOf(sample, this.#config);
    const byIndex = new Map(sample.qa.map((q) => [q.index, q]));
    this.#tests += plan.tests.length;
    const answerer = this.#config.answerer.kind === 'llm' ? this.#config.answerer : null;
    const batchSize = answerer?.batchSize ?? 1;
    const prompts = answerer
      ? new AnswerPrompts(answerer, sample, { seed: this.#config.seed, benchmark: this.#format })
      : null;
    for (const test of plan.tests) {
      this.#answerCalls += Math.ceil(test.questionIndices.length / batchSize);
      const asked = test.questionIndices.flatMap((qi) => byIndex.get(qi) ?? []);
      if (prompts) {
        const { chars, charsPerHit } = prompts.ofTest(asked, test.dialogsInserted);
        this.#answerPromptChars += chars;
        this.#hitSlots.push({
          available: test.dialogsInserted,
          questions: asked.length,
          charsPerHit,
          charsPerNote: prompts.charsPerNote(asked[0]),
        });
      }
      for (const qa of asked) {
        this.#questions++;
        if (metricScores(this.#judge, benchmarkCategory(profile, qa.category))) {
          this.#judgeable++;
          // The generated answer is about as long as the gold one.
          this.#judgePromptChars +=
            JUDGE_TEMPLATE.length + qa.question.length + 2 * (qa.answer ?? '').length;
        }
      }
    }
  }

  /** `cell.config` may differ from the tally's in what `tallyKey` leaves out (top-k, models, prices). */
  plan(cell: SweepCell): CellPlan {
    const { config } = cell;
    const topK = config.retrieval.topK;
    let answerPromptChars = this.#answerPromptChars;
    // A protocol with a notes stage (longmemeval-con-separate) asks once per retrieved memory too.
    let noteCalls = 0;
    for (const slots of this.#hitSlots) {
      const hits = Math.min(topK, slots.available) * slots.questions;
      answerPromptChars += hits * slots.charsPerHit;
      if (slots.charsPerNote === null) continue;
      noteCalls += hits;
      answerPromptChars += hits * slots.charsPerNote;
    }
    const answerer = config.answerer.kind === 'llm' ? config.answerer : null;
    const answerCalls = answerer ? this.#answerCalls + noteCalls : 0;
    const judgeCalls = config.judge ? this.#judgeable * config.judge.repeats : 0;
    // Completions: the answer's token cap (an upper bound) and a short JSON verdict for the judge.
    const answerUsage = {
      promptTokens: answerer ? tokensOfChars(answerPromptChars) : 0,
      completionTokens: answerer
        ? this.#answerCalls * answerMaxTokens(answerer, this.#protocol) +
          noteCalls * (this.#protocol?.notes?.maxTokens ?? 0)
        : 0,
    };
    const judgeUsage = {
      promptTokens: config.judge ? tokensOfChars(this.#judgePromptChars) * config.judge.repeats : 0,
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

/** One sample's answer prompts as its run builds them, measured per test. */
class AnswerPrompts {
  readonly #answerer: LlmAnswererConfig;
  readonly #sample: Sample;
  readonly #run: { seed: number; benchmark: string };
  readonly #protocol: AnswerProtocol;
  /** The sample's mean turn as a retrieved memory; null for a sample without turns. */
  readonly #meanHit: MemoryHit | null;

  constructor(
    answerer: LlmAnswererConfig,
    sample: Sample,
    run: { seed: number; benchmark: string },
  ) {
    this.#answerer = answerer;
    this.#sample = sample;
    this.#run = run;
    this.#protocol = answerProtocol(
      answerProtocolOf(answerer, benchmarkProfile(run.benchmark).defaultAnswerProtocol),
    );
    const turns = sample.sessions.flatMap((s) => s.turns.map((t) => ({ t, s })));
    const first = turns[0];
    if (!first) {
      this.#meanHit = null;
      return;
    }
    // A retriever matches more of a question's words in a longer turn, so a retrieved turn is
    // longer than the average one, though not as long as a pick in proportion to length: halfway
    // between the two means (on LoCoMo's default preset the estimate is then what
    // runs send within 2%; either mean alone is 7% off).
    const lengths = turns.map(({ t }) => turnText(t).length);
    const total = lengths.reduce((sum, n) => sum + n, 0);
    const weighted = lengths.reduce((sum, n) => sum + n * n, 0) / Math.max(1, total);
    const meanChars = Math.round((total / lengths.length + weighted) / 2);
    this.#meanHit = {
      id: 'mean',
      diaId: first.t.diaId,
      text: turnText(first.t).padEnd(meanChars, ' ').slice(0, meanChars),
      speaker: first.t.speaker,
      score: 0,
      sessionDateTime: first.s.dateTime,
    };
  }

  /** A notes stage's prompt for one mean memory of the question; null without a notes stage. */
  charsPerNote(qa: Sample['qa'][number] | undefined): number | null {
    const notes = this.#protocol.notes;
    const hit = this.#meanHit;
    if (!notes || !qa || !hit) return notes ? 0 : null;
    const whole = conversationSoFar(this.#sample, Number.MAX_SAFE_INTEGER);
    const request = answerRequestOf(this.#sample, qa, this.#run, [hit], whole);
    return notes.prompts(request).reduce((n, p) => n + p.length, 0);
  }

  /**
   * The test's prompts' characters without memories, and what one more memory adds to a
   * question's prompt (measured on its first question: two memories less none, halved).
   */
  ofTest(
    asked: readonly Sample['qa'][number][],
    dialogsInserted: number,
  ): { chars: number; charsPerHit: number } {
    const batchSize = this.#answerer.batchSize ?? 1;
    const { contextTokens } = this.#answerer;
    const conversation =
      this.#protocol.needsConversation || batchSize > 1
        ? conversationSoFar(this.#sample, dialogsInserted)
        : undefined;
    const request = (qa: Sample['qa'][number], memories: readonly MemoryHit[]): AnswerRequest =>
      answerRequestOf(this.#sample, qa, this.#run, memories, conversation);
    let chars = 0;
    if (batchSize > 1) {
      // LoCoMo's batch prompt reads the conversation, never the memories.
      const sorted = [...asked].sort((a, b) => a.index - b.index);
      for (let start = 0; start < sorted.length; start += batchSize) {
        const chunk = sorted.slice(start, start + batchSize).map((qa) => request(qa, []));
        chars += promptChars(buildLocomoBatchPrompt(chunk, batchSize, contextTokens).messages);
      }
      return { chars, charsPerHit: 0 };
    }
    const built = (qa: Sample['qa'][number], memories: readonly MemoryHit[]): number =>
      promptChars(this.#protocol.build(request(qa, memories), { contextTokens }).messages);
    for (const qa of asked) chars += built(qa, []);
    const first = asked[0];
    const hit = this.#meanHit;
    if (!first || !hit) return { chars, charsPerHit: 0 };
    return { chars, charsPerHit: (built(first, [hit, hit]) - built(first, [])) / 2 };
  }
}

/** The answer's token cap, as the answerer sends it. */
function answerMaxTokens(answerer: LlmAnswererConfig, protocol: AnswerProtocol | null): number {
  return protocol ? answerMaxTokensOf(answerer, protocol) : answerer.maxTokens;
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
    config.answerer.kind === 'llm'
      ? [
          config.answerer.batchSize ?? 1,
          answerProtocolOf(config.answerer),
          config.answerer.contextTokens,
        ]
      : null,
    // The two-option order: the same characters either way, but the prompts are the run's.
    config.seed,
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
