import { describe, expect, it } from 'vitest';
import type { ChatCompletion } from '../answer/llm-client';
import { MEMORY_LLM_STATS, MemoryLlmWatch, memoryHealthOf } from './memoryHealth';

const reply = (over: Partial<ChatCompletion>): ChatCompletion => ({
  content: '{"memory":[]}',
  model: 'm',
  usage: { promptTokens: 10, completionTokens: 5 },
  latencyMs: 1,
  attempts: 1,
  finishReason: 'stop',
  ...over,
});

function watchOf(replies: ChatCompletion[]): MemoryLlmWatch {
  let i = 0;
  return new MemoryLlmWatch(
    { model: 'm', complete: () => Promise.resolve(replies[i++] as ChatCompletion) },
    300,
  );
}

describe('MemoryLlmWatch', () => {
  it('counts replies cut off at max_tokens (finish_reason, or a cached reply that used them all) and unreadable JSON', async () => {
    const watch = watchOf([
      reply({ finishReason: 'length', content: '{"memory":[{"te' }),
      // A cached reply carries no finish_reason: its usage says it hit the cap.
      reply({
        finishReason: undefined,
        attempts: 0,
        usage: { promptTokens: 1, completionTokens: 300 },
      }),
      reply({ content: '```json\n{"memory":[]}\n```' }),
      reply({ content: 'plain text' }),
    ]);
    const json = { responseFormat: { type: 'json_object' as const } };
    await watch.complete([{ role: 'user', content: 'a' }], json);
    await watch.complete([{ role: 'user', content: 'b' }], json);
    await watch.complete([{ role: 'user', content: 'c' }], json);
    // Not asked as JSON: plain text is no departure.
    await watch.complete([{ role: 'user', content: 'd' }]);
    expect(watch.stats()).toEqual({
      [MEMORY_LLM_STATS.replies]: 4,
      [MEMORY_LLM_STATS.truncated]: 2,
      [MEMORY_LLM_STATS.unparsable]: 1,
    });
  });
});

describe('memoryHealthOf', () => {
  const expectation = { storedStat: 'x.stored', stored: 'memories' };
  const sample = { preset: 'p', turnsInserted: 12, maxTokens: 300 };

  it('fails a sample that stored nothing from its turns with MEMORY_EMPTY, saying why', () => {
    const { warnings, failure } = memoryHealthOf(
      { 'x.stored': 0, [MEMORY_LLM_STATS.replies]: 6, [MEMORY_LLM_STATS.truncated]: 6 },
      sample,
      expectation,
    );
    expect(warnings).toEqual([
      'memory LLM: 6 of 6 replies cut off at max_tokens (max_tokens 300; raise it with --memory-llm-max-tokens or memory.llm.maxTokens)',
    ]);
    expect(failure?.code).toBe('MEMORY_EMPTY');
    expect(failure?.message).toContain('stored 0 memories from 12 turns');
    expect(failure?.message).toContain('6 of 6 replies cut off');
  });

  it('warns without failing while memories were stored, and says nothing of a healthy sample', () => {
    const partly = memoryHealthOf(
      { 'x.stored': 3, [MEMORY_LLM_STATS.replies]: 6, [MEMORY_LLM_STATS.unparsable]: 2 },
      sample,
      expectation,
    );
    expect(partly.failure).toBeNull();
    expect(partly.warnings).toEqual([
      'memory LLM: 2 of 6 replies asked as JSON did not parse, so the preset stored nothing from them',
    ]);
    expect(memoryHealthOf({ 'x.stored': 3 }, sample, expectation)).toEqual({
      warnings: [],
      failure: null,
    });
    // No turns given (every insert failed: those are insert errors already), or no declaration.
    expect(
      memoryHealthOf({ 'x.stored': 0 }, { ...sample, turnsInserted: 0 }, expectation).failure,
    ).toBeNull();
    expect(memoryHealthOf({ 'x.stored': 0 }, sample, undefined).failure).toBeNull();
  });
});
