import { delimiter, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
// The built-in presets register themselves in the memory registry when this module is imported.
import '../memory/presets';

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
