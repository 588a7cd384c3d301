import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The Electron binary path, or why there is none (installs with ELECTRON_SKIP_BINARY_DOWNLOAD=1 have none). */
export function electronBinary(): { path?: string; reason?: string } {
  try {
    const path = createRequire(import.meta.url)('electron') as unknown;
    if (typeof path === 'string' && existsSync(path)) return { path };
    return { reason: `electron package points at ${String(path)}, which does not exist` };
  } catch (error) {
    // Electron's own message ("failed to install correctly") reads like a broken install; an
    // install with ELECTRON_SKIP_BINARY_DOWNLOAD=1 is the usual, intended cause.
    const detail = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return {
      reason: `no Electron binary in node_modules/electron (an install with ELECTRON_SKIP_BINARY_DOWNLOAD=1 has none; electron says: ${detail})`,
    };
  }
}
