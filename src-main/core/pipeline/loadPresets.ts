import { delimiter, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ExperimentConfig } from '../../../src-shared/experiment';
// The built-in presets register themselves in the memory registry when this module is imported.
import '../memory/presets';
import { validateMemoryConfig } from '../memory/registry';

/**
 * Memory presets register themselves in the registry when their modules are imported. The run
 * entry points (CLI, worker) import them through this module, never from library code, so tests
 * can register their own presets instead.
 */

/**
 * Extra preset modules (absolute paths or file URLs, separated like PATH): a development and test
 * hook that lets a child-process CLI run use a preset defined by the test.
 */
export const EXTRA_PRESETS_ENV = 'MEMORY_WORKBENCH_EXTRA_PRESETS';

export function extraPresetModules(env: NodeJS.ProcessEnv = process.env): string[] {
  const raw = env[EXTRA_PRESETS_ENV];
  if (!raw) return [];
  return raw
    .split(delimiter)
    .filter((p) => p.trim() !== '')
    .map((p) => (p.startsWith('file:') ? p : pathToFileURL(isAbsolute(p) ? p : resolve(p)).href));
}

const loadedExtras = new Map<string, Promise<unknown>>();

/** Imports the `extra` preset modules (the built-in ones are imported statically above); idempotent. */
export async function loadMemoryPresets(extra: readonly string[] = []): Promise<void> {
  for (const module of extra) {
    let loading = loadedExtras.get(module);
    if (!loading) {
      loading = import(/* @vite-ignore */ module);
      loadedExtras.set(module, loading);
    }
    await loading;
  }
}

/**
 * The memory part of a config as a run would check it before it starts: the preset exists (the
 * extra modules loaded) and its config passes the preset's schema. `sweep plan` asks the same, so
 * a plan never accepts a cell its run would refuse.
 */
export async function checkMemoryConfig(
  config: Pick<ExperimentConfig, 'memory'>,
  what: string,
  extra: readonly string[] = extraPresetModules(),
): Promise<void> {
  await loadMemoryPresets(extra);
  validateMemoryConfig(config.memory.preset, config.memory.config, what);
}
