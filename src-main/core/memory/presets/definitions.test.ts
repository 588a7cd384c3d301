import { describe, expect, it } from 'vitest';
import { WINK_EMBEDDER } from '../../../../src-shared/embedders';
import { WorkbenchError } from '../../../../src-shared/errors';
import {
  memoryPresetDefinitions,
  memoryPresetLlmStage,
  memoryPresetNames,
  memoryPresetRequiresLlm,
  memoryPresetTakesEmbedder,
  type MemoryPresetDefinition,
} from '../registry';
import { BUILTIN_MEMORY_PRESETS } from './index';

/**
 * Every built-in preset is one definition object in one list (presets/index.ts). This walks the
 * list, so a preset added there is checked without editing this test.
 */
const cases = BUILTIN_MEMORY_PRESETS.map((definition) => [definition.name, definition] as const);

describe('memory preset definitions', () => {
  it.each(cases)('%s is complete', (_name, definition: MemoryPresetDefinition) => {
    expect(definition).toMatchObject({
      name: expect.stringMatching(/^[a-z][a-z0-9-]*$/),
      create: expect.any(Function),
      configSchema: expect.objectContaining({ safeParse: expect.any(Function) }),
    });
    if (definition.llmStage !== undefined) expect(definition.llmStage).not.toBe('');
    if (definition.requiresLlm) {
      // Refusing a run without a memory LLM only makes sense for a preset that uses one.
      expect(definition.llmStage).toBeTypeOf('string');
      expect(definition.requiresLlm()).toBeInstanceOf(WorkbenchError);
    }
    for (const hook of ['check', 'prepare'] as const) {
      if (definition[hook] !== undefined) expect(definition[hook], hook).toBeTypeOf('function');
    }
    if (definition.embedder) {
      // The form offers an embedder for this preset: its config must take the offline one.
      const parsed = definition.configSchema.safeParse({ embedder: WINK_EMBEDDER });
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    }
  });

  it('the registry holds the list, in its order, under unique names, as the API reads it', () => {
    const names = BUILTIN_MEMORY_PRESETS.map((d) => d.name);
    expect(new Set(names).size).toBe(names.length);
    expect(memoryPresetNames()).toEqual(names);
    expect(memoryPresetDefinitions()).toEqual(BUILTIN_MEMORY_PRESETS);
    for (const definition of BUILTIN_MEMORY_PRESETS) {
      expect(memoryPresetLlmStage(definition.name)).toBe(definition.llmStage ?? null);
      expect(memoryPresetRequiresLlm(definition.name)).toBe(definition.requiresLlm !== undefined);
      expect(memoryPresetTakesEmbedder(definition.name)).toBe(definition.embedder === true);
    }
  });
});
