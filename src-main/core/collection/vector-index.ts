import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Hnsw from 'hnswlib-node';
import type { AnnIndex, HnswSettings } from '../../../src-shared/index-kinds/engine';

// hnswlib-node is a CommonJS native addon whose named exports Node's ESM loader cannot detect.
const hnswlib = createRequire(import.meta.url)('hnswlib-node') as typeof Hnsw;

export interface VectorHit {
  label: number;
  score: number;
}

/** Float32 vector <-> SQLite BLOB (little-endian on every platform Node ships for). */
export function vectorToBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

export function blobToVector(blob: Uint8Array): Float32Array {
  // Copy: a Buffer from SQLite may sit at an offset that is not 4-byte aligned.
  const bytes = new Uint8Array(blob.byteLength);
  bytes.set(blob);
  return new Float32Array(bytes.buffer);
}

export function fileChecksum(path: string): string {
  return createHash('sha1').update(readFileSync(path)).digest('hex');
}

/**
 * hnsw wrapper. Labels are the items' seq numbers. Deletion is hnswlib's markDelete (a deleted
 * label that comes back is un-deleted and updated in place). The durable state is the vectors in
 * SQLite; the .hnsw file is a cache written on flush, checked by checksum on open.
 *
 * Scores (higher is better): cosine -> 1 - distance (= cosine similarity, in [-1, 1]);
 * ip -> 1 - distance (= the dot product); l2 -> -distance, where hnswlib's l2 distance is the
 * SQUARED Euclidean distance.
 */
export class VectorIndex implements AnnIndex {
  private hnsw: Hnsw.HierarchicalNSW;
  /** Labels currently searchable (not marked deleted). */
  readonly live = new Set<number>();

  private constructor(
    private readonly config: HnswSettings,
    hnsw: Hnsw.HierarchicalNSW,
  ) {
    this.hnsw = hnsw;
  }

  static empty(config: HnswSettings, capacity = config.initialCapacity): VectorIndex {
    const hnsw = new hnswlib.HierarchicalNSW(config.space, config.dim);
    hnsw.initIndex({
      maxElements: Math.max(1, capacity),
      m: config.M,
      efConstruction: config.efConstruction,
      randomSeed: config.seed,
    });
    hnsw.setEf(config.ef);
    return new VectorIndex(config, hnsw);
  }

  /**
   * Reads a written index. Returns a reason string instead of an index when the file cannot be
   * trusted; the caller then rebuilds from SQLite. The checksum is verified before the native
   * reader sees the bytes, because hnswlib trusts its header and may crash on garbage.
   */
  static load(
    config: HnswSettings,
    path: string,
    checksum: string | null,
    labels: readonly number[],
  ): VectorIndex | string {
    if (!existsSync(path)) return 'the index file is missing';
    if (checksum === null) return 'no checksum was recorded for the index file';
    let actual: string;
    try {
      actual = fileChecksum(path);
    } catch (error) {
      return `the index file cannot be read (${(error as Error).message})`;
    }
    if (actual !== checksum) return 'the index file is corrupt (checksum mismatch)';
    const hnsw = new hnswlib.HierarchicalNSW(config.space, config.dim);
    try {
      hnsw.readIndexSync(path);
    } catch (error) {
      return `the index file cannot be read (${(error as Error).message})`;
    }
    if (hnsw.getNumDimensions() !== config.dim) return 'the index file has another dimension';
    const present = new Set(hnsw.getIdsList());
    for (const label of labels) {
      if (!present.has(label)) return `the index file lacks label ${label}`;
    }
    hnsw.setEf(config.ef);
    const index = new VectorIndex(config, hnsw);
    // Labels in the file that are not members were markDeleted before it was written.
    for (const label of labels) index.live.add(label);
    return index;
  }

  static rebuild(
    config: HnswSettings,
    rows: Iterable<{ label: number; vector: Float32Array }>,
    count: number,
  ): VectorIndex {
    const index = VectorIndex.empty(config, Math.max(config.initialCapacity, count));
    for (const row of rows) index.add(row.label, row.vector);
    return index;
  }

  get capacity(): number {
    return this.hnsw.getMaxElements();
  }

  /** Makes room for `extra` more labels, doubling the capacity as often as needed. */
  reserve(extra: number): void {
    const needed = this.hnsw.getCurrentCount() + extra;
    const capacity = this.hnsw.getMaxElements();
    if (needed <= capacity) return;
    // An index read back from an empty file reports capacity 0, so never just double.
    this.hnsw.resizeIndex(Math.max(capacity * 2, needed, this.config.initialCapacity));
  }

  add(label: number, vector: Float32Array): void {
    this.reserve(1);
    this.hnsw.addPoint(Array.from(vector), label);
    this.live.add(label);
  }

  remove(label: number): void {
    if (!this.live.delete(label)) return;
    this.hnsw.markDelete(label);
  }

  search(query: Float32Array, topK: number): VectorHit[] {
    const k = Math.min(topK, this.live.size, this.hnsw.getMaxElements());
    if (k <= 0) return [];
    this.hnsw.setEf(Math.max(this.config.ef, k));
    const { distances, neighbors } = this.hnsw.searchKnn(Array.from(query), k);
    const hits: VectorHit[] = [];
    for (let i = 0; i < neighbors.length; i++) {
      const distance = distances[i] ?? 0;
      const score = this.config.space === 'l2' ? -distance : 1 - distance;
      hits.push({ label: neighbors[i] ?? -1, score });
    }
    hits.sort((a, b) => b.score - a.score || a.label - b.label);
    return hits;
  }

  /** Writes atomically (temp file + rename) and returns the checksum of what was written. */
  write(path: string): string {
    const tmp = `${path}.tmp`;
    this.hnsw.writeIndexSync(tmp);
    const checksum = fileChecksum(tmp);
    renameSync(tmp, path);
    return checksum;
  }

  static removeFile(path: string): void {
    rmSync(path, { force: true });
    rmSync(`${path}.tmp`, { force: true });
  }
}
