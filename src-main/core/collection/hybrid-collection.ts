import { mkdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { openSqlite } from '../sqlite';
import { z } from 'zod';
import { WorkbenchError, parseOrThrow } from '../../../src-shared/errors';
import type { ErrorCode, ErrorPath } from '../../../src-shared/errors';
import type { Embedder } from '../embed/types';
import { INDEX_NAME_PATTERN, indexConfigSchema } from './config';
import type {
  FifoIndexConfig,
  GraphIndexConfig,
  IndexConfig,
  IndexConfigInput,
  SortedIndexConfig,
  TextIndexConfig,
  VectorIndexConfig,
} from './config';
import { DEFAULT_RRF_K, fuse } from './fusion';
import { textHash } from './hash';
import { SCHEMA_VERSION, migrate, readSchemaVersion } from './schema';
import { TextIndex } from './text-index';
import type {
  CollectionLogger,
  DeleteResult,
  EdgeInput,
  FifoOverflow,
  FusedHit,
  Hit,
  HybridCollectionOptions,
  IndexInfo,
  InsertOptions,
  InsertResult,
  InsertToIndexOptions,
  InsertToIndexResult,
  ItemInput,
  Metadata,
  MultiQuery,
  RemoveFromIndexResult,
  RetrieveMultiOptions,
  RetrieveOptions,
  RetrieveQuery,
  SkippedMembership,
  StoredItem,
  VectorInput,
} from './types';
import { checkVector, describe, idProblem, isPlainObject, readPath, textProblem } from './validate';
import { VectorIndex, blobToVector, vectorToBlob } from './vector-index';

export const DB_FILE = 'collection.db';
/** Batched durability: commit after this many write calls... */
export const BATCH_COMMIT_WRITES = 1000;
/** ...or this long after the first uncommitted write, whichever comes first. */
export const BATCH_COMMIT_MS = 100;

interface RuntimeBase {
  id: number;
  name: string;
  /** Item seqs that are members, mirrored from SQLite (the durable truth). */
  members: Set<number>;
}
interface VectorRuntime extends RuntimeBase {
  type: 'vector';
  config: VectorIndexConfig;
  index: VectorIndex;
  file: string;
  /** The .hnsw file lags behind SQLite (mirrors indexes.dirty). */
  dirty: boolean;
}
interface TextRuntime extends RuntimeBase {
  type: 'text';
  config: TextIndexConfig;
  index: TextIndex;
}
interface FifoRuntime extends RuntimeBase {
  type: 'fifo';
  config: FifoIndexConfig;
  nextPos: number;
}
interface SortedRuntime extends RuntimeBase {
  type: 'sorted';
  config: SortedIndexConfig;
}
interface GraphRuntime extends RuntimeBase {
  type: 'graph';
  config: GraphIndexConfig;
}
type Runtime = VectorRuntime | TextRuntime | FifoRuntime | SortedRuntime | GraphRuntime;

interface ScoredSeq {
  seq: number;
  score: number;
  depth?: number;
}

interface PreparedItem {
  /** How messages name the item: `item 'abc'` or `items[3]`. */
  label: string;
  id: string | undefined;
  text: string;
  hash: number;
  metadata: Metadata;
  metadataJson: string;
  vectors: Map<VectorRuntime, Float32Array>;
  sortValues: Map<SortedRuntime, number | string>;
  /** Target runtimes this item joins (skipped memberships removed). */
  targets: Runtime[];
  edges: readonly EdgeInput[];
}

/** What one write transaction changes in memory once SQLite has committed. */
class TxContext {
  readonly after: Array<() => void> = [];
  readonly added = new Map<Runtime, Set<number>>();
  readonly fifoPos = new Map<FifoRuntime, number>();
  readonly overflow = new Map<FifoRuntime, FifoOverflow>();
  readonly dirtied = new Set<VectorRuntime>();
  /** Items an insertToIndex call named: its own adds must not evict them (see finishFifosTx). */
  readonly named = new Map<Runtime, Set<number>>();

  addedTo(rt: Runtime): Set<number> {
    let set = this.added.get(rt);
    if (!set) {
      set = new Set();
      this.added.set(rt, set);
    }
    return set;
  }

  isMember(rt: Runtime, seq: number): boolean {
    return rt.members.has(seq) || (this.added.get(rt)?.has(seq) ?? false);
  }

  overflowOf(rt: FifoRuntime): FifoOverflow {
    let report = this.overflow.get(rt);
    if (!report) {
      report = { index: rt.name, policy: rt.config.overflow, evicted: [], rejected: [] };
      this.overflow.set(rt, report);
    }
    return report;
  }
}

const retrieveOptionsSchema = z.strictObject({
  topK: z.number().int().min(1).max(100_000).default(10),
  threshold: z.number().refine(Number.isFinite, 'must be a finite number').optional(),
  withMetadata: z.boolean().default(false),
  startNodes: z.array(z.string()).optional(),
  maxDepth: z.number().int().min(0).max(1000).default(2),
  maxNodes: z.number().int().min(1).max(10_000_000).default(100),
});
type ParsedRetrieveOptions = z.output<typeof retrieveOptionsSchema>;

const multiOptionsSchema = z.strictObject({
  topK: z.number().int().min(1).max(100_000).default(10),
  fusion: z.enum(['rrf', 'weighted', 'union']).default('rrf'),
  rrfK: z.number().min(0).max(1_000_000).default(DEFAULT_RRF_K),
  candidates: z.number().int().min(1).max(100_000).optional(),
  withMetadata: z.boolean().default(false),
});

const sortedQuerySchema = z.strictObject({
  order: z.enum(['asc', 'desc']).default('desc'),
  min: z.union([z.number(), z.string()]).optional(),
  max: z.union([z.number(), z.string()]).optional(),
  top: z.number().int().min(1).optional(),
});

const fifoQuerySchema = z.strictObject({ order: z.enum(['newest', 'oldest']).default('newest') });

const DEFAULT_LOGGER: CollectionLogger = { warn: (message) => console.warn(message) };

/**
 * A directory holding one collection: `collection.db` (items, index registry, memberships and
 * vectors) plus one `<index>.hnsw` file per vector index. See README.md for the semantics.
 */
export class HybridCollection {
  readonly name: string;
  readonly dir: string;
  private readonly db: Database.Database;
  private readonly embedder: Embedder | undefined;
  private readonly logger: CollectionLogger;
  private readonly now: () => number;
  private readonly runtimes = new Map<string, Runtime>();
  private readonly statements = new Map<string, Database.Statement>();
  private readonly runTx: (fn: () => unknown) => unknown;
  private readonly durability: 'batched' | 'immediate';
  private pendingWrites = 0;
  private commitTimer: NodeJS.Timeout | undefined;
  private nextSeq: number;
  private closed = false;

  private constructor(
    dir: string,
    db: Database.Database,
    name: string,
    options: HybridCollectionOptions,
  ) {
    this.dir = dir;
    this.db = db;
    this.name = name;
    this.embedder = options.embedder;
    this.logger = options.logger ?? DEFAULT_LOGGER;
    this.now = options.now ?? Date.now;
    this.runTx = db.transaction((fn: () => unknown) => fn());
    this.durability = options.durability ?? 'batched';
    const row = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'items'").get() as
      { seq: number } | undefined;
    this.nextSeq = (row?.seq ?? 0) + 1;
  }

  /** Opens (creating when absent) the collection in `dir`. */
  static open(dir: string, options: HybridCollectionOptions = {}): HybridCollection {
    const absolute = resolve(dir);
    const name = options.name ?? basename(absolute);
    try {
      mkdirSync(absolute, { recursive: true });
      if (!statSync(absolute).isDirectory()) throw new Error('not a directory');
    } catch (error) {
      throw new WorkbenchError(
        'COLLECTION',
        `HybridCollection '${name}': cannot use ${absolute} as a collection directory (${(error as Error).message})`,
        { where: name, cause: error },
      );
    }
    let db: Database.Database;
    try {
      db = openSqlite(join(absolute, DB_FILE));
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 5000');
    } catch (error) {
      throw new WorkbenchError(
        'COLLECTION',
        `HybridCollection '${name}': cannot open ${join(absolute, DB_FILE)} (${(error as Error).message})`,
        { where: name, cause: error },
      );
    }
    try {
      const found = readSchemaVersion(db);
      if (found > SCHEMA_VERSION) {
        throw new WorkbenchError(
          'COLLECTION',
          `HybridCollection '${name}': ${DB_FILE} has schema version ${found}, newer than this build supports (${SCHEMA_VERSION}); open it with a newer Memory Workbench`,
          { where: name },
        );
      }
      migrate(db);
      const collection = new HybridCollection(absolute, db, name, options);
      collection.loadIndexes();
      return collection;
    } catch (error) {
      db.close();
      throw error;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Index registry

  createIndex(name: string, config: IndexConfigInput): IndexInfo {
    this.assertOpen();
    if (typeof name !== 'string' || !INDEX_NAME_PATTERN.test(name)) {
      throw this.error(
        'INVALID_INPUT',
        `index name ${describe(name)} must be 1-64 characters of A-Z, a-z, 0-9, '_' or '-'`,
      );
    }
    if (this.runtimes.has(name)) throw this.error('CONFLICT', `index '${name}' already exists`);
    const parsed = parseOrThrow(
      indexConfigSchema,
      config,
      `HybridCollection '${this.name}': index '${name}' config`,
    );
    const info = this.write(() =>
      this.db
        .prepare(
          'INSERT INTO indexes (name, type, config, created_at, dirty) VALUES (?, ?, ?, ?, ?)',
        )
        .run(
          name,
          parsed.type,
          JSON.stringify(parsed),
          this.now(),
          parsed.type === 'vector' ? 1 : 0,
        ),
    );
    const rt = this.buildRuntime(Number(info.lastInsertRowid), name, parsed, true);
    this.runtimes.set(name, rt);
    return this.info(rt);
  }

  /** Removes the index and its memberships; the items stay. */
  deleteIndex(name: string): void {
    this.assertOpen();
    const rt = this.runtime(name);
    this.write(() => this.db.prepare('DELETE FROM indexes WHERE index_id = ?').run(rt.id));
    this.runtimes.delete(name);
    if (rt.type === 'vector') VectorIndex.removeFile(rt.file);
  }

  listIndexes(): IndexInfo[] {
    this.assertOpen();
    return [...this.runtimes.values()].map((rt) => this.info(rt));
  }

  /** Items in the collection, or members of one index. */
  count(index?: string): number {
    this.assertOpen();
    if (index === undefined) {
      return (this.stmt('SELECT COUNT(*) AS n FROM items').get() as { n: number }).n;
    }
    return this.runtime(index).members.size;
  }

  // ---------------------------------------------------------------------------------------------
  // Writes

  /**
   * Stores items (all in one transaction) and adds them to the target indexes. Vectors missing
   * for a vector index are embedded first (outside the transaction).
   */
  async insert(
    input: ItemInput | string | ReadonlyArray<ItemInput | string>,
    options: InsertOptions = {},
  ): Promise<InsertResult> {
    this.assertOpen();
    const list: ReadonlyArray<ItemInput | string> = Array.isArray(input)
      ? (input as ReadonlyArray<ItemInput | string>)
      : [input as ItemInput | string];
    if (
      (options.vectors !== undefined ||
        options.metadata !== undefined ||
        options.edges !== undefined) &&
      list.length !== 1
    ) {
      throw this.error(
        'INVALID_INPUT',
        `options.vectors, options.metadata and options.edges apply to single-item inserts; give them per item for a batch of ${list.length}`,
      );
    }
    const explicit = options.indexes !== undefined;
    const targets = explicit
      ? [...new Set(options.indexes ?? [])].map((name) => this.runtime(name))
      : [...this.runtimes.values()];
    const skipped: SkippedMembership[] = [];
    const prepared = list.map((raw, i) =>
      this.prepareItem(raw, i, options, targets, explicit, skipped),
    );
    await this.embedMissing(prepared);
    this.assertOpen();

    const ctx = new TxContext();
    const ids: string[] = [];
    const deduplicated: string[] = [];
    let inserted = 0;
    const seqBefore = this.nextSeq;
    try {
      this.write(() => {
        const batchTexts = new Map<number, Array<{ text: string; id: string }>>();
        const seqs: Array<number | undefined> = [];
        for (const item of prepared) {
          if (options.dedup) {
            const existing = this.findByText(item, batchTexts);
            if (existing !== undefined) {
              ids.push(existing);
              deduplicated.push(existing);
              seqs.push(undefined);
              continue;
            }
          }
          const seq = this.nextSeq++;
          const id = this.insertItemRow(item, seq);
          ids.push(id);
          seqs.push(seq);
          inserted++;
          if (options.dedup) {
            const bucket = batchTexts.get(item.hash) ?? [];
            bucket.push({ text: item.text, id });
            batchTexts.set(item.hash, bucket);
          }
          for (const rt of item.targets) this.addMembershipTx(ctx, rt, seq, id, item.text, item);
        }
        // Edges last, so they may point at any item of the same batch.
        prepared.forEach((item, i) => {
          const seq = seqs[i];
          if (seq === undefined || item.edges.length === 0) return;
          const graphs = item.targets.filter((rt): rt is GraphRuntime => rt.type === 'graph');
          if (graphs.length === 0) {
            throw this.error('INVALID_INPUT', `${item.label} has edges but joins no graph index`);
          }
          for (const rt of graphs) {
            if (!ctx.isMember(rt, seq)) continue;
            for (const edge of item.edges) {
              this.addEdgeTx(ctx, rt, seq, ids[i] ?? '', edge.to, edge.weight);
            }
          }
        });
        this.finishFifosTx(ctx);
      });
    } catch (error) {
      this.nextSeq = seqBefore;
      throw error;
    }
    this.applyAfterCommit(ctx);
    return { ids, inserted, deduplicated, skipped, overflow: [...ctx.overflow.values()] };
  }

  /** Adds stored items to one index. Unknown ids are an error; members already there are reported. */
  async insertToIndex(
    index: string,
    ids: readonly string[],
    options: InsertToIndexOptions = {},
  ): Promise<InsertToIndexResult> {
    this.assertOpen();
    const rt = this.runtime(index);
    const rows = ids.map((id) => this.requireItem(id));
    const alreadyMember: string[] = [];
    const toAdd: Array<{ row: ItemRow; vector?: Float32Array; sortValue?: number | string }> = [];
    rows.forEach((row, i) => {
      if (rt.members.has(row.seq) || toAdd.some((entry) => entry.row.seq === row.seq)) {
        alreadyMember.push(row.id);
        return;
      }
      const entry: { row: ItemRow; vector?: Float32Array; sortValue?: number | string } = { row };
      if (rt.type === 'vector') {
        const given = options.vectors?.[i];
        if (given !== undefined) entry.vector = this.vectorOrThrow(given, rt, `item '${row.id}'`);
      } else if (rt.type === 'sorted') {
        const metadata = JSON.parse(row.metadata) as Metadata;
        const value = this.sortValue(rt, metadata, `item '${row.id}'`);
        if (value === undefined) {
          throw this.error(
            'INVALID_INPUT',
            `item '${row.id}' has no metadata field '${rt.config.field}' for sorted index '${rt.name}'`,
          );
        }
        entry.sortValue = value;
      }
      toAdd.push(entry);
    });
    if (rt.type === 'vector') {
      const missing = toAdd.filter((entry) => entry.vector === undefined);
      if (missing.length > 0) {
        const vectors = await this.embed(
          rt,
          missing.map((entry) => entry.row.text),
          missing.map((entry) => `item '${entry.row.id}'`),
        );
        missing.forEach((entry, i) => (entry.vector = vectors[i]));
      }
      this.assertOpen();
    }
    const ctx = new TxContext();
    ctx.named.set(rt, new Set(rows.map((row) => row.seq)));
    const added: string[] = [];
    this.write(() => {
      for (const entry of toAdd) {
        const { row } = entry;
        // Re-check: an await above may have let another call add it.
        if (ctx.isMember(rt, row.seq)) {
          alreadyMember.push(row.id);
          continue;
        }
        const payload = {
          vectors: new Map<VectorRuntime, Float32Array>(),
          sortValues: new Map<SortedRuntime, number | string>(),
        };
        if (rt.type === 'vector' && entry.vector) payload.vectors.set(rt, entry.vector);
        if (rt.type === 'sorted' && entry.sortValue !== undefined)
          payload.sortValues.set(rt, entry.sortValue);
        if (this.addMembershipTx(ctx, rt, row.seq, row.id, row.text, payload)) added.push(row.id);
      }
      this.finishFifosTx(ctx);
    });
    this.applyAfterCommit(ctx);
    return { added, alreadyMember, overflow: [...ctx.overflow.values()] };
  }

  /** Takes items out of one index; they stay stored and in every other index. */
  removeFromIndex(index: string, ids: readonly string[]): RemoveFromIndexResult {
    this.assertOpen();
    const rt = this.runtime(index);
    const rows = ids.map((id) => this.requireItem(id));
    const ctx = new TxContext();
    const removed: string[] = [];
    const notMember: string[] = [];
    this.write(() => {
      const done = new Set<number>();
      for (const row of rows) {
        if (!rt.members.has(row.seq) || done.has(row.seq)) {
          notMember.push(row.id);
          continue;
        }
        done.add(row.seq);
        this.removeMembershipTx(ctx, rt, row.seq);
        removed.push(row.id);
      }
    });
    this.applyAfterCommit(ctx);
    return { removed, notMember };
  }

  /** Deletes items and every index entry they have. Unknown ids are reported, not an error. */
  delete(ids: readonly string[]): DeleteResult {
    this.assertOpen();
    const ctx = new TxContext();
    const deleted: string[] = [];
    const missing: string[] = [];
    this.write(() => {
      for (const id of ids) {
        const row = this.stmt('SELECT seq FROM items WHERE id = ?').get(id) as
          { seq: number } | undefined;
        if (!row) {
          missing.push(id);
          continue;
        }
        const seq = row.seq;
        for (const rt of this.runtimes.values()) {
          if (!rt.members.has(seq)) continue;
          if (rt.type === 'vector') this.markDirtyTx(ctx, rt);
          ctx.after.push(() => this.removeMembershipMem(rt, seq));
        }
        // ON DELETE CASCADE removes memberships, entries, vectors and edges in SQLite.
        this.stmt('DELETE FROM items WHERE seq = ?').run(seq);
        deleted.push(id);
      }
    });
    this.applyAfterCommit(ctx);
    return { deleted, missing };
  }

  /** Adds (or re-weights) edges between nodes of a graph index. Returns how many were written. */
  addEdges(
    index: string,
    edges: ReadonlyArray<{ from: string; to: string; weight?: number }>,
  ): number {
    this.assertOpen();
    const rt = this.runtime(index);
    if (rt.type !== 'graph') throw this.wrongType(rt, 'graph');
    const ctx = new TxContext();
    this.write(() => {
      for (const edge of edges) {
        const from = this.requireItem(edge.from);
        if (!rt.members.has(from.seq)) {
          throw this.error(
            'INVALID_INPUT',
            `item '${edge.from}' is not a node of graph index '${rt.name}'`,
          );
        }
        this.addEdgeTx(ctx, rt, from.seq, from.id, edge.to, edge.weight);
      }
    });
    return edges.length;
  }

  /** Writes every vector index whose file lags behind SQLite. */
  flush(): void {
    this.assertOpen();
    this.commitPending();
    for (const rt of this.runtimes.values()) {
      if (rt.type !== 'vector' || !rt.dirty) continue;
      const checksum = rt.index.write(rt.file);
      this.stmt('UPDATE indexes SET dirty = 0, file_checksum = ? WHERE index_id = ?').run(
        checksum,
        rt.id,
      );
      rt.dirty = false;
    }
  }

  close(): void {
    if (this.closed) return;
    try {
      this.flush();
    } finally {
      if (this.commitTimer !== undefined) clearTimeout(this.commitTimer);
      this.closed = true;
      this.statements.clear();
      // A transaction still open here (flush failed) is rolled back by close.
      this.db.close();
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  // ---------------------------------------------------------------------------------------------
  // Reads

  /** Items by id, aligned with `ids`; null where no item has that id. */
  get(ids: readonly string[]): Array<StoredItem | null> {
    this.assertOpen();
    return ids.map((id) => {
      const row = this.stmt(
        'SELECT seq, id, text, metadata, created_at FROM items WHERE id = ?',
      ).get(id) as (ItemRow & { created_at: number }) | undefined;
      if (!row) return null;
      return {
        id: row.id,
        text: row.text,
        metadata: JSON.parse(row.metadata) as Metadata,
        seq: row.seq,
        createdAt: row.created_at,
      };
    });
  }

  /** Ids of an index's members in insertion (seq) order, read from SQLite. */
  memberIds(index: string): string[] {
    this.assertOpen();
    const rt = this.runtime(index);
    const table = MEMBER_TABLE[rt.type];
    const rows = this.stmt(
      `SELECT i.id FROM ${table} m JOIN items i ON i.seq = m.item_seq WHERE m.index_id = ? ORDER BY m.item_seq`,
    ).all(rt.id) as Array<{ id: string }>;
    return rows.map((row) => row.id);
  }

  /** The n oldest entries of a fifo index, oldest first. */
  oldest(fifoIndex: string, n: number): StoredItem[] {
    this.assertOpen();
    const rt = this.runtime(fifoIndex);
    if (rt.type !== 'fifo') throw this.wrongType(rt, 'fifo');
    if (!Number.isInteger(n) || n < 0) {
      throw this.error(
        'INVALID_INPUT',
        `oldest('${fifoIndex}', n): n must be a non-negative integer, got ${describe(n)}`,
      );
    }
    const rows = this.stmt(
      `SELECT i.seq, i.id, i.text, i.metadata, i.created_at FROM fifo_entries f JOIN items i ON i.seq = f.item_seq
       WHERE f.index_id = ? ORDER BY f.pos ASC LIMIT ?`,
    ).all(rt.id, n) as Array<ItemRow & { created_at: number }>;
    return rows.map((row) => ({
      id: row.id,
      text: row.text,
      metadata: JSON.parse(row.metadata) as Metadata,
      seq: row.seq,
      createdAt: row.created_at,
    }));
  }

  /** Hits from one index, best first. See README for each index type's query and score. */
  async retrieve(
    index: string,
    query: RetrieveQuery,
    options: RetrieveOptions = {},
  ): Promise<Hit[]> {
    this.assertOpen();
    const rt = this.runtime(index);
    const opts = parseOrThrow(
      retrieveOptionsSchema,
      options,
      `HybridCollection '${this.name}': retrieve options for index '${index}'`,
    );
    const scored = await this.search(rt, query, opts);
    return this.hydrate(scored, opts.withMetadata);
  }

  /** Queries several indexes and fuses their hits; each hit lists what every index contributed. */
  async retrieveMulti(
    queries: readonly MultiQuery[],
    options: RetrieveMultiOptions = {},
  ): Promise<FusedHit[]> {
    this.assertOpen();
    const opts = parseOrThrow(
      multiOptionsSchema,
      options,
      `HybridCollection '${this.name}': retrieveMulti options`,
    );
    if (!Array.isArray(queries) || queries.length === 0) {
      throw this.error('INVALID_INPUT', 'retrieveMulti needs at least one query');
    }
    const candidates = opts.candidates ?? Math.max(2 * opts.topK, 20);
    const lists = await Promise.all(
      queries.map(async (q, i) => {
        const rt = this.runtime(q.index);
        const weight = q.weight ?? 1;
        if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0) {
          throw this.error(
            'INVALID_INPUT',
            `queries[${i}] (index '${q.index}'): weight must be a finite number >= 0, got ${describe(weight)}`,
          );
        }
        const sub = parseOrThrow(
          retrieveOptionsSchema,
          { topK: candidates, ...(q.options ?? {}) },
          `HybridCollection '${this.name}': retrieveMulti queries[${i}] options for index '${q.index}'`,
        );
        const hits = await this.search(rt, q.query, sub);
        return { index: q.index, weight, hits: hits.map((h) => ({ key: h.seq, score: h.score })) };
      }),
    );
    const fused = fuse(lists, opts.fusion, opts.rrfK).slice(0, opts.topK);
    const hydrated = this.hydrate(
      fused.map((f) => ({ seq: f.key, score: f.score })),
      opts.withMetadata,
    );
    return hydrated.map((hit, i) => ({ ...hit, contributions: fused[i]?.contributions ?? [] }));
  }

  /**
   * Compares every in-memory structure with SQLite; returns the problems found (empty when
   * consistent). Used by tests and available for diagnostics.
   */
  checkIntegrity(): string[] {
    this.assertOpen();
    const problems: string[] = [];
    for (const rt of this.runtimes.values()) {
      const stored = new Set(
        (
          this.stmt(`SELECT item_seq FROM ${MEMBER_TABLE[rt.type]} WHERE index_id = ?`).all(
            rt.id,
          ) as Array<{
            item_seq: number;
          }>
        ).map((r) => r.item_seq),
      );
      if (!sameSet(stored, rt.members))
        problems.push(`index '${rt.name}': members differ from SQLite`);
      if (rt.type === 'vector' && !sameSet(stored, rt.index.live)) {
        problems.push(`index '${rt.name}': hnsw live labels differ from SQLite`);
      }
      if (rt.type === 'text') {
        if (rt.index.size !== stored.size || [...stored].some((seq) => !rt.index.has(seq))) {
          problems.push(`index '${rt.name}': text index documents differ from SQLite`);
        }
      }
    }
    return problems;
  }

  // ---------------------------------------------------------------------------------------------
  // Internals: loading

  private loadIndexes(): void {
    const rows = this.db
      .prepare(
        'SELECT index_id, name, type, config, dirty, file_checksum FROM indexes ORDER BY index_id',
      )
      .all() as Array<{
      index_id: number;
      name: string;
      config: string;
      dirty: number;
      file_checksum: string | null;
    }>;
    for (const row of rows) {
      let config: IndexConfig;
      try {
        config = indexConfigSchema.parse(JSON.parse(row.config));
      } catch (error) {
        throw this.error(
          'COLLECTION',
          `index '${row.name}' has an unreadable stored config (${(error as Error).message})`,
        );
      }
      const rt = this.buildRuntime(
        row.index_id,
        row.name,
        config,
        false,
        row.dirty === 1,
        row.file_checksum,
      );
      this.runtimes.set(row.name, rt);
    }
  }

  private buildRuntime(
    id: number,
    name: string,
    config: IndexConfig,
    fresh: boolean,
    dirty = true,
    checksum: string | null = null,
  ): Runtime {
    const members = new Set<number>();
    if (!fresh) {
      for (const row of this.db
        .prepare(
          `SELECT item_seq FROM ${MEMBER_TABLE[config.type]} WHERE index_id = ? ORDER BY item_seq`,
        )
        .iterate(id) as Iterable<{ item_seq: number }>) {
        members.add(row.item_seq);
      }
    }
    switch (config.type) {
      case 'vector': {
        const file = join(this.dir, `${name}.hnsw`);
        if (fresh) {
          VectorIndex.removeFile(file);
          return {
            type: 'vector',
            id,
            name,
            members,
            config,
            file,
            dirty: true,
            index: VectorIndex.empty(config),
          };
        }
        return this.openVector(id, name, config, members, file, dirty, checksum);
      }
      case 'text': {
        const index = new TextIndex(config);
        if (!fresh) {
          const rows = this.db
            .prepare(
              'SELECT t.item_seq AS seq, i.text AS text FROM text_members t JOIN items i ON i.seq = t.item_seq WHERE t.index_id = ? ORDER BY t.item_seq',
            )
            .iterate(id) as Iterable<{ seq: number; text: string }>;
          for (const row of rows) index.add(row.seq, row.text);
        }
        return { type: 'text', id, name, members, config, index };
      }
      case 'fifo': {
        const row = this.db
          .prepare('SELECT MAX(pos) AS pos FROM fifo_entries WHERE index_id = ?')
          .get(id) as {
          pos: number | null;
        };
        return { type: 'fifo', id, name, members, config, nextPos: (row.pos ?? 0) + 1 };
      }
      case 'sorted':
        return { type: 'sorted', id, name, members, config };
      case 'graph':
        return { type: 'graph', id, name, members, config };
    }
  }

  private openVector(
    id: number,
    name: string,
    config: VectorIndexConfig,
    members: Set<number>,
    file: string,
    dirty: boolean,
    checksum: string | null,
  ): VectorRuntime {
    const labels = (
      this.db.prepare('SELECT label FROM vector_members WHERE index_id = ?').all(id) as Array<{
        label: number;
      }>
    ).map((r) => r.label);
    let problem: string;
    if (dirty)
      problem = 'the index file was not written after the last change (not closed cleanly)';
    else {
      const loaded = VectorIndex.load(config, file, checksum, labels);
      if (typeof loaded !== 'string') {
        return { type: 'vector', id, name, members, config, file, dirty: false, index: loaded };
      }
      problem = loaded;
    }
    const rows = this.db
      .prepare('SELECT label, vector FROM vector_members WHERE index_id = ? ORDER BY item_seq')
      .iterate(id) as Iterable<{ label: number; vector: Buffer }>;
    const index = VectorIndex.rebuild(
      config,
      mapIter(rows, (r) => ({ label: r.label, vector: blobToVector(r.vector) })),
      labels.length,
    );
    // An index that never held anything needs no warning; anything else is worth knowing about.
    if (labels.length > 0 || !dirty) {
      this.logger.warn(
        `HybridCollection '${this.name}': index '${name}': ${problem}; rebuilt ${labels.length} vectors from ${DB_FILE}`,
      );
    }
    this.db.prepare('UPDATE indexes SET dirty = 1 WHERE index_id = ?').run(id);
    return { type: 'vector', id, name, members, config, file, dirty: true, index };
  }

  // ---------------------------------------------------------------------------------------------
  // Internals: writes

  private prepareItem(
    raw: ItemInput | string,
    i: number,
    options: InsertOptions,
    targets: Runtime[],
    explicit: boolean,
    skipped: SkippedMembership[],
  ): PreparedItem {
    const item: ItemInput = typeof raw === 'string' ? { text: raw } : raw;
    if (!isPlainObject(item)) {
      throw this.error(
        'INVALID_INPUT',
        `items[${i}] must be a string or an object, got ${describe(raw)}`,
        ['items', i],
      );
    }
    if (item.id !== undefined) {
      const problem = idProblem(item.id, `items[${i}].id`);
      if (problem) throw this.error('INVALID_INPUT', problem, ['items', i, 'id']);
    }
    const label = item.id !== undefined ? `item '${item.id}'` : `items[${i}]`;
    const problem = textProblem(item.text, `${label}: text`);
    if (problem) throw this.error('INVALID_INPUT', problem, ['items', i, 'text']);
    const metadata = item.metadata ?? options.metadata ?? {};
    if (!isPlainObject(metadata)) {
      throw this.error(
        'INVALID_INPUT',
        `${label}: metadata must be a plain object, got ${describe(metadata)}`,
        ['items', i, 'metadata'],
      );
    }
    let metadataJson: string;
    try {
      metadataJson = JSON.stringify(metadata);
    } catch (error) {
      throw this.error(
        'INVALID_INPUT',
        `${label}: metadata is not JSON-serialisable (${(error as Error).message})`,
        ['items', i, 'metadata'],
      );
    }
    const givenVectors = item.vectors ?? options.vectors ?? {};
    const vectors = new Map<VectorRuntime, Float32Array>();
    for (const [indexName, value] of Object.entries(givenVectors)) {
      const rt = this.runtime(indexName);
      if (rt.type !== 'vector') {
        throw this.error(
          'INVALID_INPUT',
          `${label}: a vector was given for index '${indexName}', which is a ${rt.type} index`,
        );
      }
      if (!targets.includes(rt)) continue;
      vectors.set(rt, this.vectorOrThrow(value, rt, label));
    }
    const sortValues = new Map<SortedRuntime, number | string>();
    const joined: Runtime[] = [];
    for (const rt of targets) {
      if (rt.type === 'sorted') {
        const value = this.sortValue(rt, metadata, label);
        if (value === undefined) {
          if (explicit) {
            throw this.error(
              'INVALID_INPUT',
              `${label} has no metadata field '${rt.config.field}' for sorted index '${rt.name}'`,
            );
          }
          skipped.push({
            id: item.id ?? label,
            index: rt.name,
            reason: `no metadata field '${rt.config.field}'`,
          });
          continue;
        }
        sortValues.set(rt, value);
      }
      joined.push(rt);
    }
    const edges = item.edges ?? options.edges ?? [];
    if (!Array.isArray(edges))
      throw this.error('INVALID_INPUT', `${label}: edges must be an array`);
    edges.forEach((edge: EdgeInput, e) => {
      if (!isPlainObject(edge) || typeof edge.to !== 'string') {
        throw this.error(
          'INVALID_INPUT',
          `${label}: edges[${e}] must be {to: string, weight?: number}`,
        );
      }
      this.checkWeight(edge.weight, `${label}: edges[${e}].weight`);
    });
    return {
      label,
      id: item.id,
      text: item.text,
      hash: textHash(item.text),
      metadata,
      metadataJson,
      vectors,
      sortValues,
      targets: joined,
      edges,
    };
  }

  private async embedMissing(items: PreparedItem[]): Promise<void> {
    const vectorTargets = new Set<VectorRuntime>();
    for (const item of items) {
      for (const rt of item.targets)
        if (rt.type === 'vector' && !item.vectors.has(rt)) vectorTargets.add(rt);
    }
    for (const rt of vectorTargets) {
      const missing = items.filter((item) => item.targets.includes(rt) && !item.vectors.has(rt));
      const vectors = await this.embed(
        rt,
        missing.map((item) => item.text),
        missing.map((item) => item.label),
      );
      missing.forEach((item, i) => {
        const vector = vectors[i];
        if (vector) item.vectors.set(rt, vector);
      });
    }
  }

  private async embed(
    rt: VectorRuntime,
    texts: string[],
    labels: string[],
  ): Promise<Float32Array[]> {
    if (!this.embedder) {
      throw this.error(
        'INVALID_INPUT',
        `index '${rt.name}' needs a vector for ${labels[0] ?? 'the item'} and the collection has no embedder`,
      );
    }
    const raw = await this.embedder.embed(texts);
    if (!Array.isArray(raw) || raw.length !== texts.length) {
      throw this.error(
        'COLLECTION',
        `embedder '${this.embedder.name}' returned ${Array.isArray(raw) ? raw.length : describe(raw)} vectors for ${texts.length} texts`,
      );
    }
    return raw.map((v, i) =>
      this.vectorOrThrow(v, rt, `${labels[i] ?? 'item'}, embedder '${this.embedder?.name}'`),
    );
  }

  private vectorOrThrow(value: unknown, rt: VectorRuntime, context: string): Float32Array {
    const checked = checkVector(value, rt.name, rt.config.dim, rt.config.space);
    if (!checked.ok) throw this.error('INVALID_INPUT', `${checked.problem} (${context})`);
    return checked.vector;
  }

  private sortValue(
    rt: SortedRuntime,
    metadata: Metadata,
    label: string,
  ): number | string | undefined {
    const value = readPath(metadata, rt.config.field);
    if (value === undefined || value === null) return undefined;
    const ok =
      rt.config.valueType === 'number'
        ? typeof value === 'number' && Number.isFinite(value)
        : typeof value === 'string';
    if (!ok) {
      throw this.error(
        'INVALID_INPUT',
        `${label}: metadata field '${rt.config.field}' for sorted index '${rt.name}' must be a ${rt.config.valueType === 'number' ? 'finite number' : 'string'}, got ${describe(value)}`,
      );
    }
    return value as number | string;
  }

  private checkWeight(weight: unknown, what: string): void {
    if (weight === undefined) return;
    if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0) {
      throw this.error(
        'INVALID_INPUT',
        `${what} must be a finite number >= 0, got ${describe(weight)}`,
      );
    }
  }

  private findByText(
    item: PreparedItem,
    batch: Map<number, Array<{ text: string; id: string }>>,
  ): string | undefined {
    for (const entry of batch.get(item.hash) ?? []) if (entry.text === item.text) return entry.id;
    const rows = this.stmt('SELECT id, text FROM items WHERE text_hash = ? ORDER BY seq').all(
      item.hash,
    ) as Array<{
      id: string;
      text: string;
    }>;
    return rows.find((row) => row.text === item.text)?.id;
  }

  /** Inserts the item row; returns its id (the caller's, or `item-<seq>` when none was given). */
  private insertItemRow(item: PreparedItem, seq: number): string {
    const insert = this.stmt(
      'INSERT INTO items (seq, id, text, metadata, created_at, text_hash) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const createdAt = this.now();
    if (item.id !== undefined) {
      try {
        insert.run(seq, item.id, item.text, item.metadataJson, createdAt, item.hash);
      } catch (error) {
        if (isUniqueViolation(error))
          throw this.error('CONFLICT', `item id '${item.id}' already exists`);
        throw error;
      }
      return item.id;
    }
    // A caller may already use `item-<seq>`; then the next free suffix keeps ids deterministic.
    for (let attempt = 0; ; attempt++) {
      const id = attempt === 0 ? `item-${seq}` : `item-${seq}~${attempt}`;
      try {
        insert.run(seq, id, item.text, item.metadataJson, createdAt, item.hash);
        return id;
      } catch (error) {
        // Only a clash on `id` is worth another suffix; anything else (a seq clash) is a bug.
        if (!isUniqueViolation(error) || !String((error as Error).message).includes('items.id'))
          throw error;
      }
    }
  }

  /** Adds one membership in SQLite; memory follows after commit. Returns false if rejected. */
  private addMembershipTx(
    ctx: TxContext,
    rt: Runtime,
    seq: number,
    id: string,
    text: string,
    payload: Pick<PreparedItem, 'vectors' | 'sortValues'>,
  ): boolean {
    switch (rt.type) {
      case 'vector': {
        const vector = payload.vectors.get(rt);
        if (!vector)
          throw this.error('INTERNAL', `index '${rt.name}': no vector prepared for item '${id}'`);
        this.stmt(
          'INSERT INTO vector_members (item_seq, index_id, label, vector) VALUES (?, ?, ?, ?)',
        ).run(seq, rt.id, seq, vectorToBlob(vector));
        this.markDirtyTx(ctx, rt);
        ctx.after.push(() => rt.index.add(seq, vector));
        break;
      }
      case 'text':
        this.stmt('INSERT INTO text_members (item_seq, index_id) VALUES (?, ?)').run(seq, rt.id);
        ctx.after.push(() => rt.index.add(seq, text));
        break;
      case 'fifo': {
        const size = rt.members.size + (ctx.added.get(rt)?.size ?? 0);
        if (rt.config.overflow === 'reject' && size >= rt.config.capacity) {
          ctx.overflowOf(rt).rejected.push(id);
          return false;
        }
        const pos = ctx.fifoPos.get(rt) ?? rt.nextPos;
        ctx.fifoPos.set(rt, pos + 1);
        this.stmt('INSERT INTO fifo_entries (item_seq, index_id, pos) VALUES (?, ?, ?)').run(
          seq,
          rt.id,
          pos,
        );
        break;
      }
      case 'sorted': {
        const value = payload.sortValues.get(rt);
        if (value === undefined)
          throw this.error('INTERNAL', `index '${rt.name}': no sort value for item '${id}'`);
        this.stmt('INSERT INTO sorted_entries (item_seq, index_id, value) VALUES (?, ?, ?)').run(
          seq,
          rt.id,
          value,
        );
        break;
      }
      case 'graph':
        this.stmt('INSERT INTO graph_nodes (item_seq, index_id) VALUES (?, ?)').run(seq, rt.id);
        break;
    }
    ctx.addedTo(rt).add(seq);
    ctx.after.push(() => rt.members.add(seq));
    return true;
  }

  private addEdgeTx(
    ctx: TxContext,
    rt: GraphRuntime,
    fromSeq: number,
    fromId: string,
    to: string,
    weight?: number,
  ): void {
    this.checkWeight(weight, `edge '${fromId}' -> '${to}' weight`);
    const target = this.stmt('SELECT seq FROM items WHERE id = ?').get(to) as
      { seq: number } | undefined;
    if (!target || !ctx.isMember(rt, target.seq)) {
      throw this.error(
        target ? 'INVALID_INPUT' : 'NOT_FOUND',
        target
          ? `edge '${fromId}' -> '${to}': '${to}' is not a node of graph index '${rt.name}'`
          : `edge '${fromId}' -> '${to}': no item has id '${to}'`,
      );
    }
    const w = rt.config.weighted ? (weight ?? 1) : 1;
    this.stmt(
      'INSERT INTO graph_edges (src, index_id, dst, weight) VALUES (?, ?, ?, ?) ON CONFLICT (src, index_id, dst) DO UPDATE SET weight = excluded.weight',
    ).run(fromSeq, rt.id, target.seq, w);
  }

  /** Evicts the oldest entries of every fifo index this transaction pushed over capacity. */
  private finishFifosTx(ctx: TxContext): void {
    for (const [rt, nextPos] of ctx.fifoPos) {
      ctx.after.push(() => (rt.nextPos = nextPos));
      if (rt.config.overflow !== 'evict-oldest') continue;
      const size = rt.members.size + (ctx.added.get(rt)?.size ?? 0);
      const excess = size - rt.config.capacity;
      if (excess <= 0) continue;
      // The oldest go first, but not an item the call itself named (an existing member named
      // again must still be a member afterwards); those only when capacity cannot hold them all.
      const named = ctx.named.get(rt) ?? new Set<number>();
      const oldest = this.stmt(
        'SELECT f.item_seq AS seq, i.id AS id FROM fifo_entries f JOIN items i ON i.seq = f.item_seq WHERE f.index_id = ? ORDER BY f.pos ASC LIMIT ?',
      ).all(rt.id, excess + named.size) as Array<{ seq: number; id: string }>;
      const victims = [
        ...oldest.filter((row) => !named.has(row.seq)),
        ...oldest.filter((row) => named.has(row.seq)),
      ].slice(0, excess);
      const report = ctx.overflowOf(rt);
      for (const victim of victims) {
        this.removeMembershipTx(ctx, rt, victim.seq);
        report.evicted.push(victim.id);
      }
    }
  }

  private removeMembershipTx(ctx: TxContext, rt: Runtime, seq: number): void {
    this.stmt(`DELETE FROM ${MEMBER_TABLE[rt.type]} WHERE item_seq = ? AND index_id = ?`).run(
      seq,
      rt.id,
    );
    if (rt.type === 'graph') {
      this.stmt('DELETE FROM graph_edges WHERE src = ? AND index_id = ?').run(seq, rt.id);
      this.stmt('DELETE FROM graph_edges WHERE dst = ? AND index_id = ?').run(seq, rt.id);
    }
    if (rt.type === 'vector') this.markDirtyTx(ctx, rt);
    ctx.added.get(rt)?.delete(seq);
    ctx.after.push(() => this.removeMembershipMem(rt, seq));
  }

  private removeMembershipMem(rt: Runtime, seq: number): void {
    rt.members.delete(seq);
    if (rt.type === 'vector') rt.index.remove(seq);
    else if (rt.type === 'text') rt.index.remove(seq);
  }

  private markDirtyTx(ctx: TxContext, rt: VectorRuntime): void {
    if (rt.dirty || ctx.dirtied.has(rt)) return;
    this.stmt('UPDATE indexes SET dirty = 1 WHERE index_id = ?').run(rt.id);
    ctx.dirtied.add(rt);
    ctx.after.push(() => (rt.dirty = true));
  }

  private applyAfterCommit(ctx: TxContext): void {
    try {
      for (const fn of ctx.after) fn();
    } catch (error) {
      // SQLite has committed; memory is now behind it. Vector indexes are already marked dirty,
      // so the next open rebuilds them; say so rather than hide it.
      throw this.error(
        'COLLECTION',
        `in-memory indexes could not follow a committed write (${(error as Error).message}); reopen the collection`,
        undefined,
        error,
      );
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Internals: reads

  private async search(
    rt: Runtime,
    query: RetrieveQuery,
    opts: ParsedRetrieveOptions,
  ): Promise<ScoredSeq[]> {
    let hits: ScoredSeq[];
    switch (rt.type) {
      case 'vector': {
        const vector = await this.queryVector(rt, query);
        this.assertOpen();
        hits = rt.index.search(vector, opts.topK).map((h) => ({ seq: h.label, score: h.score }));
        break;
      }
      case 'text':
        if (typeof query !== 'string') {
          throw this.error(
            'INVALID_INPUT',
            `index '${rt.name}' is a text index; its query must be a string, got ${describe(query)}`,
          );
        }
        hits = rt.index.search(query, opts.topK);
        break;
      case 'fifo':
        hits = this.searchFifo(rt, query, opts.topK);
        break;
      case 'sorted':
        hits = this.searchSorted(rt, query, opts.topK);
        break;
      case 'graph':
        hits = await this.searchGraph(rt, query, opts);
        break;
    }
    if (opts.threshold !== undefined) {
      const threshold = opts.threshold;
      hits = hits.filter((h) => h.score >= threshold);
    }
    return hits.length > opts.topK ? hits.slice(0, opts.topK) : hits;
  }

  private async queryVector(rt: VectorRuntime, query: RetrieveQuery): Promise<Float32Array> {
    if (typeof query === 'string') {
      const problem = textProblem(query, 'query');
      if (problem) throw this.error('INVALID_INPUT', `index '${rt.name}': ${problem}`);
      if (!this.embedder) {
        throw this.error(
          'INVALID_INPUT',
          `index '${rt.name}' got a text query and the collection has no embedder; pass a vector`,
        );
      }
      return (await this.embed(rt, [query], ['query']))[0] as Float32Array;
    }
    return this.vectorOrThrow(query, rt, 'query');
  }

  private searchFifo(rt: FifoRuntime, query: RetrieveQuery, topK: number): ScoredSeq[] {
    const { order } = parseOrThrow(
      fifoQuerySchema,
      query ?? {},
      `HybridCollection '${this.name}': query for fifo index '${rt.name}'`,
    );
    const rows = this.stmt(
      `SELECT item_seq AS seq FROM fifo_entries WHERE index_id = ? ORDER BY pos ${order === 'newest' ? 'DESC' : 'ASC'} LIMIT ?`,
    ).all(rt.id, topK) as Array<{ seq: number }>;
    return rows.map((row, rank) => ({ seq: row.seq, score: 1 / (1 + rank) }));
  }

  private searchSorted(rt: SortedRuntime, query: RetrieveQuery, topK: number): ScoredSeq[] {
    const q = parseOrThrow(
      sortedQuerySchema,
      query ?? {},
      `HybridCollection '${this.name}': query for sorted index '${rt.name}'`,
    );
    for (const bound of ['min', 'max'] as const) {
      const value = q[bound];
      if (value !== undefined && typeof value !== rt.config.valueType) {
        throw this.error(
          'INVALID_INPUT',
          `sorted index '${rt.name}' holds ${rt.config.valueType}s; query.${bound} ${describe(value)} is not one`,
        );
      }
    }
    const where = ['index_id = ?'];
    const params: Array<number | string> = [rt.id];
    if (q.min !== undefined) {
      where.push('value >= ?');
      params.push(q.min);
    }
    if (q.max !== undefined) {
      where.push('value <= ?');
      params.push(q.max);
    }
    const dir = q.order === 'asc' ? 'ASC' : 'DESC';
    const limit = Math.min(topK, q.top ?? topK);
    const rows = this.stmt(
      `SELECT item_seq AS seq, value FROM sorted_entries WHERE ${where.join(' AND ')} ORDER BY value ${dir}, item_seq ASC LIMIT ?`,
    ).all(...params, limit) as Array<{ seq: number; value: number | string }>;
    return rows.map((row, rank) => ({
      seq: row.seq,
      score:
        typeof row.value === 'number'
          ? q.order === 'asc'
            ? -row.value
            : row.value
          : 1 / (1 + rank),
    }));
  }

  private async searchGraph(
    rt: GraphRuntime,
    query: RetrieveQuery,
    opts: ParsedRetrieveOptions,
  ): Promise<ScoredSeq[]> {
    let startIds: readonly string[] | undefined;
    let startSeqs: number[] = [];
    if (isPlainObject(query) && 'fromIndex' in query) {
      const from = query as unknown as { fromIndex: unknown; query: RetrieveQuery; topK?: unknown };
      if (typeof from.fromIndex !== 'string')
        throw this.error('INVALID_INPUT', `graph query fromIndex must be an index name`);
      if (from.fromIndex === rt.name) {
        throw this.error(
          'INVALID_INPUT',
          `graph index '${rt.name}' cannot take its start nodes from itself`,
        );
      }
      const source = this.runtime(from.fromIndex);
      const sub = parseOrThrow(
        retrieveOptionsSchema,
        { topK: from.topK ?? 5 },
        `HybridCollection '${this.name}': graph query for index '${rt.name}' fromIndex '${from.fromIndex}'`,
      );
      startSeqs = (await this.search(source, from.query, sub))
        .map((h) => h.seq)
        .filter((seq) => rt.members.has(seq));
    } else if (isPlainObject(query) && 'start' in query) {
      startIds = (query as { start: readonly string[] }).start;
    } else if (query === undefined || query === null) {
      startIds = opts.startNodes;
    } else {
      throw this.error(
        'INVALID_INPUT',
        `graph index '${rt.name}' expects {start: ids} or {fromIndex, query, topK} (or options.startNodes), got ${describe(query)}`,
      );
    }
    if (startIds !== undefined) {
      if (!Array.isArray(startIds))
        throw this.error(
          'INVALID_INPUT',
          `graph index '${rt.name}': start nodes must be an array of ids`,
        );
      startSeqs = startIds.map((id) => {
        const row = this.requireItem(id);
        if (!rt.members.has(row.seq)) {
          throw this.error(
            'INVALID_INPUT',
            `start node '${id}' is not a node of graph index '${rt.name}'`,
          );
        }
        return row.seq;
      });
    }
    return this.bfs(rt, startSeqs, opts.maxDepth, opts.maxNodes);
  }

  /**
   * Level-by-level BFS. Start nodes score 1 at depth 0; a node first reached at depth d scores
   * the best over its parents of parentScore * edgeWeight * decay, i.e. the product of edge
   * weights along its best shortest path times decay^d. When a level would exceed maxNodes, its
   * best-scoring nodes are kept (ties: smaller seq first).
   */
  private bfs(rt: GraphRuntime, starts: number[], maxDepth: number, maxNodes: number): ScoredSeq[] {
    const visited = new Map<number, ScoredSeq>();
    let frontier: ScoredSeq[] = [];
    for (const seq of starts) {
      if (visited.has(seq) || visited.size >= maxNodes) continue;
      const node = { seq, score: 1, depth: 0 };
      visited.set(seq, node);
      frontier.push(node);
    }
    const out = this.stmt(
      'SELECT dst AS n, weight FROM graph_edges WHERE src = ? AND index_id = ?',
    );
    const inc = this.stmt(
      'SELECT src AS n, weight FROM graph_edges WHERE dst = ? AND index_id = ?',
    );
    for (
      let depth = 1;
      depth <= maxDepth && frontier.length > 0 && visited.size < maxNodes;
      depth++
    ) {
      const next = new Map<number, number>();
      for (const node of frontier) {
        const neighbours = out.all(node.seq, rt.id) as Array<{ n: number; weight: number }>;
        if (!rt.config.directed)
          neighbours.push(...(inc.all(node.seq, rt.id) as Array<{ n: number; weight: number }>));
        for (const { n, weight } of neighbours) {
          if (visited.has(n)) continue;
          const score = node.score * weight * rt.config.decay;
          if (score > (next.get(n) ?? -Infinity)) next.set(n, score);
        }
      }
      const level = [...next].map(([seq, score]) => ({ seq, score, depth }));
      level.sort((a, b) => b.score - a.score || a.seq - b.seq);
      frontier = level.slice(0, maxNodes - visited.size);
      for (const node of frontier) visited.set(node.seq, node);
    }
    return [...visited.values()].sort(
      (a, b) => b.score - a.score || (a.depth ?? 0) - (b.depth ?? 0) || a.seq - b.seq,
    );
  }

  private hydrate(scored: ScoredSeq[], withMetadata: boolean): Hit[] {
    const byId = this.stmt('SELECT id, text, metadata FROM items WHERE seq = ?');
    const hits: Hit[] = [];
    for (const s of scored) {
      const row = byId.get(s.seq) as { id: string; text: string; metadata: string } | undefined;
      if (!row) continue;
      const hit: Hit = { id: row.id, text: row.text, score: s.score };
      if (withMetadata) hit.metadata = JSON.parse(row.metadata) as Metadata;
      if (s.depth !== undefined) hit.depth = s.depth;
      hits.push(hit);
    }
    return hits;
  }

  // ---------------------------------------------------------------------------------------------
  // Internals: helpers

  /**
   * Runs one write operation atomically. 'immediate': its own transaction. 'batched': a savepoint
   * inside a longer transaction that is committed after BATCH_COMMIT_WRITES writes, after
   * BATCH_COMMIT_MS, and on flush/close. A small WAL commit costs more than the writes
   * themselves, so grouping them is what makes per-turn ingest fast; the price is that a crash
   * (not an error: a failed write rolls back its own savepoint) loses at most that window.
   */
  private write<T>(fn: () => T): T {
    if (this.durability === 'immediate') return this.runTx(fn) as T;
    if (!this.db.inTransaction) {
      this.db.exec('BEGIN');
      this.commitTimer = setTimeout(() => this.commitFromTimer(), BATCH_COMMIT_MS);
      this.commitTimer.unref();
    }
    const result = this.runTx(fn) as T;
    if (++this.pendingWrites >= BATCH_COMMIT_WRITES) this.commitPending();
    return result;
  }

  private commitPending(): void {
    if (this.commitTimer !== undefined) {
      clearTimeout(this.commitTimer);
      this.commitTimer = undefined;
    }
    this.pendingWrites = 0;
    if (this.db.inTransaction) this.db.exec('COMMIT');
  }

  private commitFromTimer(): void {
    this.commitTimer = undefined;
    if (this.closed) return;
    try {
      this.commitPending();
    } catch (error) {
      this.logger.warn(
        `HybridCollection '${this.name}': deferred commit failed (${(error as Error).message}); it is retried on the next write, flush or close`,
      );
    }
  }

  private stmt(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private runtime(name: string): Runtime {
    const rt = typeof name === 'string' ? this.runtimes.get(name) : undefined;
    if (!rt) {
      const known = [...this.runtimes.keys()];
      throw this.error(
        'NOT_FOUND',
        `no index named ${typeof name === 'string' ? `'${name}'` : describe(name)} (indexes: ${known.length > 0 ? known.join(', ') : 'none'})`,
      );
    }
    return rt;
  }

  private requireItem(id: string): ItemRow {
    const row = this.stmt('SELECT seq, id, text, metadata FROM items WHERE id = ?').get(id) as
      ItemRow | undefined;
    if (!row)
      throw this.error(
        'NOT_FOUND',
        `no item has id ${typeof id === 'string' ? `'${id}'` : describe(id)}`,
      );
    return row;
  }

  private info(rt: Runtime): IndexInfo {
    return { name: rt.name, type: rt.type, config: rt.config, count: rt.members.size };
  }

  private wrongType(rt: Runtime, expected: string): WorkbenchError {
    return this.error(
      'INVALID_INPUT',
      `index '${rt.name}' is a ${rt.type} index, not a ${expected} index`,
    );
  }

  private assertOpen(): void {
    if (this.closed)
      throw new WorkbenchError('COLLECTION', `HybridCollection '${this.name}' is closed`, {
        where: this.name,
      });
  }

  private error(
    code: ErrorCode,
    message: string,
    path?: ErrorPath,
    cause?: unknown,
  ): WorkbenchError {
    return new WorkbenchError(code, `HybridCollection '${this.name}': ${message}`, {
      where: this.name,
      ...(path ? { path } : {}),
      ...(cause !== undefined ? { cause } : {}),
    });
  }
}

interface ItemRow {
  seq: number;
  id: string;
  text: string;
  metadata: string;
}

const MEMBER_TABLE: Record<Runtime['type'], string> = {
  vector: 'vector_members',
  text: 'text_members',
  fifo: 'fifo_entries',
  sorted: 'sorted_entries',
  graph: 'graph_nodes',
};

function isUniqueViolation(error: unknown): boolean {
  return (
    error instanceof Error &&
    'code' in error &&
    ((error as { code: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE' ||
      (error as { code: unknown }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
  );
}

function sameSet(a: Set<number>, b: Set<number>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

function* mapIter<T, U>(items: Iterable<T>, fn: (item: T) => U): Iterable<U> {
  for (const item of items) yield fn(item);
}

export type { VectorInput };
