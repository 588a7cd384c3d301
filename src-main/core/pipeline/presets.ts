import { delimiter, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Memory presets register themselves in the registry when their modules are imported. The run
 * entry points (CLI, worker) import them here, never from library code, so tests can register
 * their own presets instead.
 *
 * The presets index is imported by a computed specifier: it is built in parallel with this module
 * and a static import of a file that does not exist yet would break the type check.
 * TODO(memory presets): once src-main/core/memory/presets exists, replace the dynamic import by a
 * static `import '../memory/presets'` so the app bundle includes it.
 */
const PRESETS_INDEX = '../memory/presets';

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

let indexLoaded: Promise<boolean> | undefined;
const loadedExtras = new Map<string, Promise<unknown>>();

function isMissing(error: unknown, specifier: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : '';
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    message.includes(specifier.replace('../', ''))
  );
}

/** Imports the built-in presets (when present) and `extra` modules; idempotent. */
export async function loadMemoryPresets(extra: readonly string[] = []): Promise<void> {
  indexLoaded ??= (async () => {
    const specifier = PRESETS_INDEX;
    try {
      await import(/* @vite-ignore */ specifier);
      return true;
    } catch (error) {
      if (isMissing(error, specifier)) return false;
      throw error;
    }
  })();
  await indexLoaded;
  for (const module of extra) {
    let loading = loadedExtras.get(module);
    if (!loading) {
      loading = import(/* @vite-ignore */ module);
      loadedExtras.set(module, loading);
    }
    await loading;
  }
}
