import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  WINK_PACKAGE,
  cacheFileFor,
  clearWinkVectorsCache,
  defaultCacheDir,
  defaultWinkSourcePath,
  loadWinkVectors,
} from '../core/embed';
import type { CliIO } from './command';

/**
 * On first use, converts the word vectors into their binary cache here, with progress on stderr,
 * instead of silently inside each worker: the conversion takes seconds, later loads well under
 * one. The vectors are released afterwards; workers load the cache themselves. Returns whether a
 * conversion ran.
 */
export async function ensureWordVectorCache(io: CliIO): Promise<boolean> {
  const source = defaultWinkSourcePath();
  if (source === null) return false; // the embedder will say the package is missing
  const file = cacheFileFor(resolve(defaultCacheDir()), source);
  if (existsSync(file)) return false;
  io.stderr(
    `first use: converting the ${WINK_PACKAGE} word vectors into a binary cache, once (${file})\n`,
  );
  let shown = -1;
  await loadWinkVectors({
    onProgress: ({ phase, fraction }) => {
      if (phase !== 'convert') return;
      const step = Math.floor(fraction * 4) * 25;
      if (step > shown) {
        shown = step;
        io.stderr(`  converting word vectors: ${step}%\n`);
      }
    },
  });
  clearWinkVectorsCache();
  io.stderr('  word vectors ready\n');
  return true;
}
