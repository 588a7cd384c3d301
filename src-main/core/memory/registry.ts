import { WorkbenchError } from '../../../src-shared/errors';
import type { MemoryService, MemoryServiceContext } from './types';

/**
 * Memory presets by name. Each factory validates its own config (zod, with defaults) and returns a
 * service that owns one HybridCollection in `ctx.dir`.
 */
export type MemoryServiceFactory = (
  config: unknown,
  ctx: MemoryServiceContext,
) => Promise<MemoryService>;

export interface MemoryPresetOptions {
  /** What the preset does with the run's memory LLM (`memory.llm`), if it uses one. */
  llmStage?: string;
  /** Its config takes an `embedder` (`EmbedderChoice`) for its vector index. */
  embedder?: boolean;
}

const presets = new Map<string, MemoryServiceFactory>();
const llmStages = new Map<string, string>();
const withEmbedder = new Set<string>();

export function registerMemoryPreset(
  name: string,
  factory: MemoryServiceFactory,
  options: MemoryPresetOptions = {},
): void {
  presets.set(name, factory);
  if (options.llmStage) llmStages.set(name, options.llmStage);
  else llmStages.delete(name);
  if (options.embedder) withEmbedder.add(name);
  else withEmbedder.delete(name);
}

/** Whether the preset's config takes an `embedder`. */
export function memoryPresetTakesEmbedder(name: string): boolean {
  return withEmbedder.has(name);
}

export function memoryPresetNames(): string[] {
  return [...presets.keys()];
}

/** The preset's LLM stage, or null when it has none (a memory LLM would go unused). */
export function memoryPresetLlmStage(name: string): string | null {
  return llmStages.get(name) ?? null;
}

export async function createMemoryService(
  preset: string,
  config: unknown,
  ctx: MemoryServiceContext,
): Promise<MemoryService> {
  const factory = presets.get(preset);
  if (!factory) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `memory: unknown preset "${preset}" (presets: ${memoryPresetNames().join(', ') || 'none'})`,
      { path: ['memory', 'preset'] },
    );
  }
  return factory(config, ctx);
}
