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

const presets = new Map<string, MemoryServiceFactory>();

export function registerMemoryPreset(name: string, factory: MemoryServiceFactory): void {
  presets.set(name, factory);
}

export function memoryPresetNames(): string[] {
  return [...presets.keys()];
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
