import { WorkbenchError } from '../../../src-shared/errors';
import type { ChatCallOptions, ChatCompletion, ChatMessage } from '../answer/llm-client';
import type { ExperimentConfig } from '../../../src-shared/experiment';
import { memoryPresetHealth, type MemoryHealthExpectation } from '../memory/registry';
import type { MemoryLlm } from '../memory/types';

/**
 * What a sample's memory did beside what it was asked to do: the memory LLM's replies (cut off at
 * max_tokens, unreadable as the JSON they were asked for) and the memories
 * the preset stored, judged against what the preset declares a healthy run looks like
 * (`MemoryPresetDefinition.health`). A departure is a warning in the run's manifest; a sample
 * whose memory stored nothing from the turns it was given fails with MEMORY_EMPTY, since every
 * score of it would measure an empty memory.
 */

/** The outcome stats the watch adds (summed over samples by the run's tally). */
export const MEMORY_LLM_STATS = {
  replies: 'memoryLlm.replies',
  truncated: 'memoryLlm.truncated',
  unparsable: 'memoryLlm.unparsable',
} as const;

type Counts = Record<keyof typeof MEMORY_LLM_STATS, number>;

/** Counts a memory LLM's replies as they pass; everything else goes through untouched. */
export class MemoryLlmWatch implements MemoryLlm {
  readonly counts: Counts = { replies: 0, truncated: 0, unparsable: 0 };

  constructor(
    private readonly llm: MemoryLlm,
    /** The memory LLM's max_tokens: a cached reply (no finish_reason kept) that used it all was cut off. */
    private readonly maxTokens: number,
  ) {}

  get model(): string {
    return this.llm.model;
  }

  async complete(
    messages: readonly ChatMessage[],
    options: ChatCallOptions = {},
  ): Promise<ChatCompletion> {
    const reply = await this.llm.complete(messages, options);
    this.counts.replies++;
    if (cutOff(reply, options.maxTokens ?? this.maxTokens)) this.counts.truncated++;
    if (options.responseFormat?.type === 'json_object' && !readsAsJson(reply.content))
      this.counts.unparsable++;
    return reply;
  }

  stats(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [field, key] of Object.entries(MEMORY_LLM_STATS))
      out[key] = this.counts[field as keyof Counts];
    return out;
  }
}

function cutOff(reply: ChatCompletion, maxTokens: number): boolean {
  if (reply.finishReason !== undefined && reply.finishReason !== null)
    return reply.finishReason === 'length';
  return reply.usage !== null && reply.usage.completionTokens >= maxTokens;
}

/** JSON, or JSON in a ``` fence (what JSON-mode callers such as mem0ai strip before parsing). */
function readsAsJson(content: string): boolean {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(content);
  try {
    JSON.parse(fenced ? (fenced[1] as string) : content);
    return true;
  } catch {
    return false;
  }
}

/** What one sample's stats say about its health: warnings, and the error that fails it (if any). */
export function memoryHealthOf(
  stats: Readonly<Record<string, number>>,
  sample: { preset: string; turnsInserted: number; maxTokens: number | null },
  expectation: MemoryHealthExpectation | undefined,
): { warnings: string[]; failure: WorkbenchError | null } {
  const warnings: string[] = [];
  const replies = stats[MEMORY_LLM_STATS.replies] ?? 0;
  const truncated = stats[MEMORY_LLM_STATS.truncated] ?? 0;
  const unparsable = stats[MEMORY_LLM_STATS.unparsable] ?? 0;
  const raise =
    sample.maxTokens === null
      ? ''
      : ` (max_tokens ${sample.maxTokens}; raise it with --memory-llm-max-tokens or memory.llm.maxTokens)`;
  if (truncated > 0)
    warnings.push(`memory LLM: ${truncated} of ${replies} replies cut off at max_tokens${raise}`);
  if (unparsable > 0)
    warnings.push(
      `memory LLM: ${unparsable} of ${replies} replies asked as JSON did not parse, so the preset stored nothing from them`,
    );
  let failure: WorkbenchError | null = null;
  const stored = expectation ? stats[expectation.storedStat] : undefined;
  if (expectation && stored !== undefined && sample.turnsInserted > 0) {
    if (stored === 0) {
      const why = truncated > 0 || unparsable > 0 ? `; ${warnings.join('; ')}` : '';
      failure = new WorkbenchError(
        'MEMORY_EMPTY',
        `MEMORY_EMPTY: memory preset "${sample.preset}" stored 0 ${expectation.stored} from ${sample.turnsInserted} turns, so every answer would be scored against an empty memory${why}`,
      );
    }
  }
  return { warnings, failure };
}

/** A finished sample's departures, each `warn`ed (the run's manifest keeps them); MEMORY_EMPTY is thrown. */
export function checkSampleHealth(
  config: ExperimentConfig,
  stats: Readonly<Record<string, number>>,
  turnsInserted: number,
  warn: (message: string) => void,
): void {
  const { warnings, failure } = memoryHealthOf(
    stats,
    {
      preset: config.memory.preset,
      turnsInserted,
      maxTokens: config.memory.llm?.maxTokens ?? null,
    },
    memoryPresetHealth(config.memory.preset),
  );
  for (const warning of warnings) warn(warning);
  if (failure) throw failure;
}
