import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { WorkbenchError } from '../../../src-shared/errors';
import type { Statement } from 'better-sqlite3';
import { openCacheDb, type SqliteDatabase } from '../sqlite';
import type { Embedder } from './types';
import { NO_CALLS, type CallMeter } from '../answer/llm-client';

/**
 * A persistent, content-addressed store of embeddings: one SQLite file (WAL) shared by every
 * process and worker thread that embeds through the same endpoint, so a re-run or a resumed run
 * never pays for the same text twice. A vector is keyed by the endpoint (base URL), the model, the
 * requested dimensions (0: the model's own) and the sha256 of the text; the value is the
 * normalised Float32 vector as the embedder returned it.
 *
 * Concurrency: each worker opens its own connection; SQLite serialises writers (busy_timeout), and
 * `INSERT OR IGNORE` makes two workers embedding the same text at once harmless (the vectors are
 * the same text's; the first one stays).
 */

export const EMBEDDING_CACHE_FILE = 'embeddings.sqlite';

/** The data folder's cache folder, where the embedding cache lives. */
export function dataCacheDir(dataDir: string): string {
  return join(dataDir, 'cache');
}
const SCHEMA_VERSION = 1;

/** Which endpoint a vector came from; two endpoints never share vectors. */
export interface EmbeddingSpace {
  endpoint: string;
  model: string;
  /** Requested output dimensions; 0 for the model's own. */
  dimensions: number;
}

export interface EmbeddingCacheStats {
  hits: number;
  misses: number;
}

function textKey(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function toBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

function fromBlob(blob: Buffer): Float32Array {
  // Copy: the blob's memory is not guaranteed 4-byte aligned.
  const out = new Float32Array(blob.byteLength / 4);
  new Uint8Array(out.buffer).set(blob);
  return out;
}

export class EmbeddingCache {
  readonly file: string;
  private readonly db: SqliteDatabase;
  private readonly select: Statement<[string, string, number, Buffer], { vector: Buffer }>;
  private readonly insert: Statement<[string, string, number, Buffer, Buffer]>;
  private closed = false;

  private constructor(file: string, db: SqliteDatabase) {
    this.file = file;
    this.db = db;
    this.select = db.prepare(
      'SELECT vector FROM embeddings WHERE endpoint = ? AND model = ? AND dimensions = ? AND text_sha256 = ?',
    );
    this.insert = db.prepare(
      'INSERT OR IGNORE INTO embeddings (endpoint, model, dimensions, text_sha256, vector) VALUES (?, ?, ?, ?, ?)',
    );
  }

  /** Opens (creating) `<dir>/embeddings.sqlite`. */
  static open(dir: string): EmbeddingCache {
    const { db, file } = openCacheDb({
      dir,
      fileName: EMBEDDING_CACHE_FILE,
      label: 'embedding cache',
      schemaVersion: SCHEMA_VERSION,
      ddl: `CREATE TABLE IF NOT EXISTS embeddings (
        endpoint TEXT NOT NULL,
        model TEXT NOT NULL,
        dimensions INTEGER NOT NULL,
        text_sha256 BLOB NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (endpoint, model, dimensions, text_sha256)
      ) WITHOUT ROWID`,
    });
    return new EmbeddingCache(file, db);
  }

  /** The cached vector of each text, or undefined. */
  getMany(space: EmbeddingSpace, texts: readonly string[]): Array<Float32Array | undefined> {
    this.assertOpen();
    const read = this.db.transaction(() =>
      texts.map((text) => {
        const row = this.select.get(space.endpoint, space.model, space.dimensions, textKey(text));
        return row ? fromBlob(row.vector) : undefined;
      }),
    );
    return read();
  }

  putMany(
    space: EmbeddingSpace,
    entries: ReadonlyArray<{ text: string; vector: Float32Array }>,
  ): void {
    this.assertOpen();
    if (entries.length === 0) return;
    const write = this.db.transaction(() => {
      for (const { text, vector } of entries) {
        this.insert.run(
          space.endpoint,
          space.model,
          space.dimensions,
          textKey(text),
          toBlob(vector),
        );
      }
    });
    write.immediate();
  }

  /** Vectors stored for one space (tests, inspection). */
  count(space: EmbeddingSpace): number {
    this.assertOpen();
    return (
      this.db
        .prepare(
          'SELECT count(*) AS n FROM embeddings WHERE endpoint = ? AND model = ? AND dimensions = ?',
        )
        .get(space.endpoint, space.model, space.dimensions) as { n: number }
    ).n;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new WorkbenchError('INTERNAL', 'the cache is closed');
  }
}

/**
 * An embedder that asks `inner` only for texts the cache lacks (each distinct text once per
 * call) and stores what it gets. A cache that fails to read or write costs embeddings, never the
 * run: the failure goes to `onWarning` and the call falls through to `inner`.
 */
export class CachedEmbedder implements Embedder {
  readonly stats: EmbeddingCacheStats = { hits: 0, misses: 0 };
  private warned = false;
  /** Learnt from the first vector, cached or not: a run served from the cache never asks inner. */
  private knownDim: number | null = null;

  constructor(
    readonly inner: Embedder,
    private readonly cache: EmbeddingCache,
    private readonly space: EmbeddingSpace,
    private readonly onWarning: (message: string) => void = (m) => console.warn(m),
    /** The run's ledger, told the hits and misses as they happen (a kill -9 loses none). */
    private readonly meter?: CallMeter,
  ) {}

  get name(): string {
    return this.inner.name;
  }

  get dim(): number {
    return this.knownDim ?? this.inner.dim;
  }

  async embed(
    texts: readonly string[],
    options: { signal?: AbortSignal } = {},
  ): Promise<Float32Array[]> {
    const cached = this.tryCache(() => this.cache.getMany(this.space, texts)) ?? [];
    const out = new Array<Float32Array>(texts.length);
    const missing = new Map<string, number[]>();
    texts.forEach((text, i) => {
      const hit = cached[i];
      if (hit !== undefined) {
        out[i] = hit;
        return;
      }
      const slots = missing.get(text);
      if (slots) slots.push(i);
      else missing.set(text, [i]);
    });
    const hits = texts.length - [...missing.values()].reduce((n, s) => n + s.length, 0);
    this.stats.hits += hits;
    if (hits > 0) this.meter?.({ ...NO_CALLS, cacheHits: hits });
    if (missing.size === 0) return this.checked(out);
    const toEmbed = [...missing.keys()];
    const vectors = await this.inner.embed(toEmbed, options);
    this.stats.misses += toEmbed.length;
    this.meter?.({ ...NO_CALLS, cacheMisses: toEmbed.length });
    toEmbed.forEach((text, j) => {
      for (const i of missing.get(text) as number[]) out[i] = vectors[j] as Float32Array;
    });
    this.tryCache(() =>
      this.cache.putMany(
        this.space,
        toEmbed.map((text, j) => ({ text, vector: vectors[j] as Float32Array })),
      ),
    );
    return this.checked(out);
  }

  /** Every vector of a space has one length; a cached one that differs is not this space's. */
  private checked(out: Float32Array[]): Float32Array[] {
    for (const v of out) {
      this.knownDim ??= v.length;
      if (v.length !== this.knownDim) {
        throw new WorkbenchError(
          'INTERNAL',
          `embedding cache ${this.cache.file}: ${this.space.model} at ${this.space.endpoint} gave ${v.length}- and ${this.knownDim}-dimensional vectors`,
        );
      }
    }
    return out;
  }

  private tryCache<T>(fn: () => T): T | undefined {
    try {
      return fn();
    } catch (error) {
      if (!this.warned) {
        this.warned = true;
        this.onWarning(
          `embedding cache ${this.cache.file}: ${(error as Error).message}; embedding without it`,
        );
      }
      return undefined;
    }
  }
}
