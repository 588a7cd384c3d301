import { createHash } from 'node:crypto';
import {
  benchmarkCategory,
  categoryLabel,
  type BenchmarkProfile,
} from '../../../src-shared/benchmarks';
import { metricOf, metricScores } from '../../../src-shared/metrics';
import {
  DEFAULT_JUDGE_PROTOCOL,
  judgeScoreOf,
  type AnswerRecord,
  type JudgeConfig,
  type JudgeScore,
  type TokenCounts,
} from '../../../src-shared/experiment';
import type { PromptRecord } from '../../../src-shared/runs';
import { describeError } from '../timeout';
import type { ApiKeys } from '../keys';
import {
  UnparseableJudgeReply,
  judgeProtocolOf,
  parseLenientVerdict,
  type JudgeItem,
  type JudgeProtocol,
  type JudgeVerdict,
} from './judge-protocols';
import { requestWasSent } from '../http/retry';
import {
  BeamJudgeFailure,
  beamJudgeModel,
  beamJudgeScore,
  scoreBeamQuestion,
  type BeamJudgeProtocolName,
  type BeamQuestionResult,
} from './beam-judge';
import {
  LlmClient,
  NO_CALLS,
  type CallMeter,
  type ChatCallOptions,
  type ChatCompletion,
} from './llm-client';
import { referenceCallOptions } from './referenceRequest';
import { chatUrlOf, endpointOf } from './responseCache';

/**
 * The LLM judge: question, gold and generated answer in, a CORRECT/WRONG label out, `repeats`
 * times (repeat r is sent with seed r), under a named judge protocol (judge-protocols.ts).
 * Verdicts are cached by (question, gold, answer, judge model, protocol prompt hash, repeat):
 * re-scoring a run, or a later test that gives the same answer, costs nothing. A reply that
 * cannot be read is asked again up to `parseRetries` times; after that it is a WRONG label under
 * `mem0` (counted in the score's `unparseable`) and the answer's judge error under the others. A
 * failed call is the judge error, never a crash. Neither is cached (the next pass asks again).
 */

export type { JudgeItem, JudgeLabel, JudgeVerdict } from './judge-protocols';

export interface JudgeCacheEntry {
  model: string;
  promptSha256: string;
  repeat: number;
  verdict: JudgeVerdict;
  usage: TokenCounts | null;
}

/** Where verdicts are kept between passes (the runs DB's judge_cache table). */
export interface JudgeCache {
  get(key: string): JudgeVerdict | undefined;
  put(key: string, entry: JudgeCacheEntry): void;
}

/** A cache that lives as long as the object: for tests and one-off scoring. */
export class MemoryJudgeCache implements JudgeCache {
  readonly entries = new Map<string, JudgeCacheEntry>();
  get(key: string): JudgeVerdict | undefined {
    return this.entries.get(key)?.verdict;
  }
  put(key: string, entry: JudgeCacheEntry): void {
    this.entries.set(key, entry);
  }
}

/**
 * The judge cache's key: everything that can change a verdict, the endpoint asked included
 * (`endpointOf` its chat URL), so one server's verdicts never answer another's requests under the
 * same model name. Keys written before the endpoint was keyed (`legacyJudgeCacheKey`) are never
 * read to judge: a rescore against another server could have stored them, and the runs database
 * does not record which. They are read only to show a run's own judge's reasons.
 */
export function judgeCacheKey(
  item: JudgeItem,
  judge: { model: string; baseUrl: string },
  promptSha256: string,
  repeat: number,
  scope?: string,
): string {
  return keyOf([
    ...judgeKeyParts(item, judge.model, promptSha256, repeat, scope),
    JUDGE_KEY_FORMAT,
    endpointOf(chatUrlOf(judge.baseUrl)),
  ]);
}

/** The key before the endpoint was keyed (question … repeat, scope): read only to show reasons. */
export function legacyJudgeCacheKey(
  item: JudgeItem,
  model: string,
  promptSha256: string,
  repeat: number,
  scope?: string,
): string {
  return keyOf(judgeKeyParts(item, model, promptSha256, repeat, scope));
}

/** This key format's version: bumped when what the key covers changes. */
const JUDGE_KEY_FORMAT = 'judge-key-2';

function judgeKeyParts(
  item: JudgeItem,
  model: string,
  promptSha256: string,
  repeat: number,
  scope: string | undefined,
): unknown[] {
  const parts: unknown[] = [item.question, item.gold, item.answer, model, promptSha256, repeat];
  // Only protocols with a prompt per task set these; keys of the others stay as they were.
  if (item.task !== undefined || item.abstention !== undefined) {
    parts.push(item.task ?? null, item.abstention ?? false);
  }
  // A scope keeps independent runs of one experiment from sharing verdicts (see LlmJudge).
  return scope === undefined ? parts : [...parts, scope];
}

function keyOf(parts: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** The workbench's lenient reader (kept under its old name). */
export const parseJudgeOutput = parseLenientVerdict;

export interface LlmJudgeStats {
  /** Verdicts asked of the model (cache misses that got a usable answer or failed). */
  calls: number;
  cacheHits: number;
  errors: number;
  /** Replies that could not be read, retries included. */
  unparseableReplies: number;
}

export class LlmJudge {
  readonly model: string;
  readonly repeats: number;
  readonly protocol: JudgeProtocol;
  readonly prompt: PromptRecord;
  readonly parseRetries: number;
  readonly client: LlmClient;
  readonly stats: LlmJudgeStats = { calls: 0, cacheHits: 0, errors: 0, unparseableReplies: 0 };
  private readonly cache: JudgeCache;
  private readonly cacheScope: string | undefined;
  private readonly meter: CallMeter | undefined;
  /** The model and server asked: both are part of every verdict's cache key. */
  private readonly endpoint: { model: string; baseUrl: string };

  constructor(
    /** Runs resolve the protocol against their profile (judgeConfigFor); none named here is LoCoMo's. */
    config: JudgeConfig,
    options: {
      cache?: JudgeCache;
      client?: LlmClient;
      keys?: ApiKeys;
      /**
       * Verdicts cached under this scope only: repeat r > 0 of a repeat group or sweep is an
       * independent run, so the judge is asked again rather than answered from repeat 0's cache
       * (which would make the run-to-run std of J zero by construction).
       */
      cacheScope?: string;
      /** The run's ledger, told each verdict read from the cache as it is read. */
      meter?: CallMeter;
    } = {},
  ) {
    this.model = config.model;
    this.repeats = config.repeats;
    this.protocol = judgeProtocolOf(config.protocol ?? DEFAULT_JUDGE_PROTOCOL);
    this.prompt = this.protocol.record;
    this.parseRetries = config.parseRetries;
    this.client = options.client ?? new LlmClient(config, options.keys);
    this.cache = options.cache ?? new MemoryJudgeCache();
    this.cacheScope = options.cacheScope;
    this.meter = options.meter;
    this.endpoint = { model: config.model, baseUrl: config.baseUrl };
  }

  /** One answer, every repeat. Never rejects except on cancel: failures are the score's error. */
  async judge(item: JudgeItem, signal?: AbortSignal): Promise<JudgeScore> {
    const labels: number[] = [];
    let unparseable = 0;
    for (let repeat = 0; repeat < this.repeats; repeat++) {
      try {
        const verdict = await this.verdict(item, repeat, signal);
        labels.push(verdict.label === 'CORRECT' ? 1 : 0);
      } catch (error) {
        if (signal?.aborted) throw error;
        if (error instanceof UnparseableJudgeReply && this.protocol.unparseableIsWrong) {
          unparseable++;
          labels.push(0);
          continue;
        }
        this.stats.errors++;
        return {
          mean: null,
          std: null,
          labels: [],
          error: `judge: ${describeError(error)}`,
          protocol: this.protocol.name,
          unparseable,
        };
      }
    }
    return { ...judgeScoreOf(labels), protocol: this.protocol.name, unparseable };
  }

  /** A mirrored reference's parameters exactly (its first repeat unseeded), else the workbench's. */
  private requestParams(repeat: number): ChatCallOptions {
    const { reference } = this.protocol;
    if (reference)
      return { ...referenceCallOptions(reference), ...(repeat > 0 ? { seed: repeat } : {}) };
    return {
      seed: repeat,
      ...(this.protocol.jsonMode ? { responseFormat: { type: 'json_object' as const } } : {}),
      ...(this.protocol.maxTokens !== undefined ? { maxTokens: this.protocol.maxTokens } : {}),
    };
  }

  private async verdict(
    item: JudgeItem,
    repeat: number,
    signal: AbortSignal | undefined,
  ): Promise<JudgeVerdict> {
    const key = judgeCacheKey(item, this.endpoint, this.prompt.sha256, repeat, this.cacheScope);
    const cached = this.cache.get(key);
    if (cached) {
      this.stats.cacheHits++;
      this.meter?.({ ...NO_CALLS, cacheHits: 1 });
      return cached;
    }
    const messages = this.protocol.messages(item);
    for (let attempt = 0; ; attempt++) {
      let completion: ChatCompletion;
      try {
        completion = await this.client.complete(messages, {
          step: 'judge',
          ...this.requestParams(repeat),
          ...(signal ? { signal } : {}),
        });
      } catch (error) {
        // Only a request that reached the endpoint is a call made.
        if (requestWasSent(error)) this.stats.calls++;
        throw error;
      }
      this.stats.calls++;
      let verdict: JudgeVerdict;
      try {
        verdict = this.protocol.parse(completion.content);
      } catch (error) {
        this.stats.unparseableReplies++;
        if (error instanceof UnparseableJudgeReply && attempt < this.parseRetries) continue;
        throw error;
      }
      this.cache.put(key, {
        model: this.model,
        promptSha256: this.prompt.sha256,
        repeat,
        verdict,
        usage: completion.usage,
      });
      return verdict;
    }
  }
}

/**
 * What a judge pass scores: answers with a gold in the categories the judge metric scores under
 * the benchmark profile (LoCoMo 1-4). An errored answer is WRONG on every repeat without asking
 * anyone; an adversarial category has no gold to judge against (Mem0 skips LoCoMo's 5).
 */
export function judgeable(
  answer: Pick<AnswerRecord, 'category' | 'gold'>,
  profile: BenchmarkProfile,
): answer is Pick<AnswerRecord, 'category'> & { gold: string } {
  return (
    metricScores(metricOf('judge'), benchmarkCategory(profile, answer.category)) &&
    answer.gold !== null &&
    answer.gold.trim() !== ''
  );
}

/** The judge score of one recorded answer (null: not judged, see `judgeable`). */
export async function judgeAnswer(
  judge: LlmJudge,
  answer: Pick<AnswerRecord, 'category' | 'gold' | 'question' | 'prediction' | 'error'> & {
    /** The question's rubric (BEAM `QA.rubric`), which a rubric judge scores against. */
    rubric?: readonly string[];
  },
  profile: BenchmarkProfile,
  signal?: AbortSignal,
): Promise<JudgeScore | null> {
  if (!judgeable(answer, profile)) return null;
  const rubricProtocol = judge.protocol.rubric;
  if (rubricProtocol !== undefined) {
    return judgeRubric(judge, rubricProtocol, answer, profile, signal);
  }
  if (answer.error !== null) {
    return {
      ...judgeScoreOf(new Array<number>(judge.repeats).fill(0)),
      protocol: judge.protocol.name,
    };
  }
  const category = benchmarkCategory(profile, answer.category);
  const task = categoryLabel(profile, category.task ?? category.id);
  return judge.judge(
    {
      question: answer.question,
      gold: answer.gold,
      answer: answer.prediction,
      // Only a protocol with a prompt per task (LongMemEval) is told the task, so the cache keys
      // of the others stay as they were.
      ...(judge.protocol.readsTask === true ? { task, abstention: category.adversarial } : {}),
    },
    signal,
  );
}

/**
 * BEAM's rubric judge over one answer: `scoreBeamQuestion` through the judge's client (its ledger,
 * response cache and rate budget), the result stored as the judge score by `beamJudgeScore`. The
 * ability is the category's official name (the profile's); the rubric comes from the question.
 * An errored answer is scored as the reference scores any response: its text is what was sent.
 */
async function judgeRubric(
  judge: LlmJudge,
  protocol: BeamJudgeProtocolName,
  answer: Pick<AnswerRecord, 'category' | 'question' | 'prediction'> & {
    rubric?: readonly string[];
  },
  profile: BenchmarkProfile,
  signal: AbortSignal | undefined,
): Promise<JudgeScore> {
  const ability = categoryLabel(profile, answer.category, 'official');
  if (answer.rubric === undefined) {
    judge.stats.errors++;
    return {
      mean: null,
      std: null,
      labels: [],
      error: `judge ${protocol}: the question has no rubric (is the run's dataset BEAM, and readable?)`,
      protocol,
    };
  }
  let outcome: BeamQuestionResult | BeamJudgeFailure;
  try {
    outcome = await scoreBeamQuestion(
      protocol,
      { ability, question: answer.question, rubric: answer.rubric, response: answer.prediction },
      beamJudgeModel(judge.client, signal),
    );
  } catch (error) {
    if (signal?.aborted) throw error;
    if (!(error instanceof BeamJudgeFailure)) throw error;
    outcome = error;
  }
  judge.stats.calls += outcome.calls;
  const score = beamJudgeScore(protocol, ability, outcome);
  if (score.error !== null) judge.stats.errors++;
  return score;
}
