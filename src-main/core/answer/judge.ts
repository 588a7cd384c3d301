import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  LOCOMO_PROFILE,
  benchmarkCategory,
  type BenchmarkProfile,
} from '../../../src-shared/benchmarks';
import { WorkbenchError } from '../../../src-shared/errors';
import { metricOf, metricScores } from '../../../src-shared/metrics';
import {
  judgeScoreOf,
  type AnswerRecord,
  type JudgeConfig,
  type JudgeScore,
  type TokenCounts,
} from '../../../src-shared/experiment';
import type { PromptRecord } from '../../../src-shared/runs';
import { describeError } from '../pipeline/timeout';
import type { ApiKeys } from '../keys';
import { LlmClient } from './llm-client';
import { buildJudgeMessages, judgePromptRecord } from './prompts';

/**
 * The Mem0-style LLM judge: question, gold and generated answer in, `{"label": "CORRECT"|"WRONG",
 * "reason": "..."}` out, `repeats` times (repeat r is sent with seed r). Verdicts are cached by
 * (question, gold, answer, judge model, prompt hash, repeat): re-scoring a run, or a later test
 * that gives the same answer, costs nothing. A malformed verdict or a failed call becomes the
 * answer's judge error, never a crash, and is not cached (the next pass asks again).
 */

export type JudgeLabel = 'CORRECT' | 'WRONG';

export interface JudgeVerdict {
  label: JudgeLabel;
  reason: string;
}

export interface JudgeItem {
  question: string;
  gold: string;
  answer: string;
}

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

export function judgeCacheKey(
  item: JudgeItem,
  model: string,
  promptSha256: string,
  repeat: number,
): string {
  return createHash('sha256')
    .update(JSON.stringify([item.question, item.gold, item.answer, model, promptSha256, repeat]))
    .digest('hex');
}

const verdictSchema = z.object({
  label: z
    .string()
    .transform((l) => l.trim().toUpperCase())
    .pipe(z.enum(['CORRECT', 'WRONG'])),
  reason: z.string().optional(),
});

const EXCERPT = 120;

function shortened(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > EXCERPT ? `${flat.slice(0, EXCERPT)}...` : flat;
}

/**
 * Reads the judge's reply: a JSON object, possibly inside a ```json fence or after some words.
 * Anything else throws UPSTREAM naming what came back.
 */
export function parseJudgeOutput(content: string): JudgeVerdict {
  const start = content.indexOf('{');
  const end = content.lastIndexOf('}');
  const fail = (why: string): WorkbenchError =>
    new WorkbenchError('UPSTREAM', `judge: ${why}: "${shortened(content)}"`);
  if (start < 0 || end < start) throw fail('reply holds no JSON object');
  let json: unknown;
  try {
    json = JSON.parse(content.slice(start, end + 1));
  } catch {
    throw fail('reply is not valid JSON');
  }
  const parsed = verdictSchema.safeParse(json);
  if (!parsed.success) throw fail('reply needs "label": "CORRECT" or "WRONG"');
  return {
    label: parsed.data.label,
    reason: (parsed.data.reason ?? '').replace(/\s+/g, ' ').trim(),
  };
}

export interface LlmJudgeStats {
  /** Verdicts asked of the model (cache misses that got a usable answer or failed). */
  calls: number;
  cacheHits: number;
  errors: number;
}

export class LlmJudge {
  readonly model: string;
  readonly repeats: number;
  readonly prompt: PromptRecord;
  readonly client: LlmClient;
  readonly stats: LlmJudgeStats = { calls: 0, cacheHits: 0, errors: 0 };
  private readonly cache: JudgeCache;

  constructor(
    config: JudgeConfig,
    options: { cache?: JudgeCache; client?: LlmClient; keys?: ApiKeys } = {},
  ) {
    this.model = config.model;
    this.repeats = config.repeats;
    this.prompt = judgePromptRecord();
    this.client = options.client ?? new LlmClient(config, options.keys);
    this.cache = options.cache ?? new MemoryJudgeCache();
  }

  /** One answer, every repeat. Never rejects except on cancel: failures are the score's error. */
  async judge(item: JudgeItem, signal?: AbortSignal): Promise<JudgeScore> {
    const labels: number[] = [];
    for (let repeat = 0; repeat < this.repeats; repeat++) {
      try {
        const verdict = await this.verdict(item, repeat, signal);
        labels.push(verdict.label === 'CORRECT' ? 1 : 0);
      } catch (error) {
        if (signal?.aborted) throw error;
        this.stats.errors++;
        return { mean: null, std: null, labels: [], error: `judge: ${describeError(error)}` };
      }
    }
    return judgeScoreOf(labels);
  }

  private async verdict(
    item: JudgeItem,
    repeat: number,
    signal: AbortSignal | undefined,
  ): Promise<JudgeVerdict> {
    const key = judgeCacheKey(item, this.model, this.prompt.sha256, repeat);
    const cached = this.cache.get(key);
    if (cached) {
      this.stats.cacheHits++;
      return cached;
    }
    this.stats.calls++;
    const completion = await this.client.complete(
      buildJudgeMessages(item.question, item.gold, item.answer),
      { seed: repeat, ...(signal ? { signal } : {}) },
    );
    const verdict = parseJudgeOutput(completion.content);
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

/**
 * What a judge pass scores: answers with a gold in the categories the judge metric scores under
 * the benchmark profile (LoCoMo 1-4). An errored answer is WRONG on every repeat without asking
 * anyone; an adversarial category has no gold to judge against (Mem0 skips LoCoMo's 5).
 */
export function judgeable(
  answer: Pick<AnswerRecord, 'category' | 'gold'>,
  profile: BenchmarkProfile = LOCOMO_PROFILE,
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
  answer: Pick<AnswerRecord, 'category' | 'gold' | 'question' | 'prediction' | 'error'>,
  signal?: AbortSignal,
  profile: BenchmarkProfile = LOCOMO_PROFILE,
): Promise<JudgeScore | null> {
  if (!judgeable(answer, profile)) return null;
  if (answer.error !== null) return judgeScoreOf(new Array<number>(judge.repeats).fill(0));
  return judge.judge(
    { question: answer.question, gold: answer.gold, answer: answer.prediction },
    signal,
  );
}
