import { basename, join, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { WorkbenchError, parseOrThrow } from '../../../src-shared/errors';
import type { ErrorCode, ErrorPath } from '../../../src-shared/errors';
import { INDEX_NAME_PATTERN } from './config';
import type { IndexConfig, IndexConfigInput, IndexInfo, IndexType } from './config';
import {
  fuseQueries,
  retrieveOptionsSchema,
  searchIndex,
  searchNamedIndex,
  type RetrievalContext,
} from './fused-retrieval';
import { integrityProblems, loadRuntimes, openRuntime } from './index-runtimes';
import {
  IdsBySeq,
  hydrate,
  storedItem,
  requireItemRow,
  writeItems,
  type ItemRow,
  type ItemWriter,
  type Statements,
  type StoredRow,
  type WrittenItems,
} from './item-rows';
import type { KindContext } from '../../../src-shared/index-kinds/engine';
import { TEXT_INDEXES, VECTOR_INDEXES } from './kind-ports';
import { findIndexKind, indexKindTypes } from './kinds/registry';
import { openCollectionDatabase } from './open-database';
import {
  completePayloads,
  prepareItem,
  prepareStoredItems,
  type PrepareContext,
} from './prepare-item';
import { DB_FILE } from './schema';
import { TxContext, type Runtime } from './tx-context';
import type {
  CollectionLogger,
  DeleteResult,
  FusedHit,
  RankedHit,
  Hit,
  HybridCollectionOptions,
  InsertOptions,
  InsertResult,
  InsertToIndexOptions,
  InsertToIndexResult,
  ItemInput,
  MultiQuery,
  RemoveFromIndexResult,
  RetrieveMultiOptions,
  RetrieveOptions,
  RetrieveQuery,
  SkippedMembership,
  StoredItem,
  VectorInput,
} from './types';
import { describe, isPlainObject } from '../../../src-shared/index-kinds/validate';
import { WriteBatch } from './write-batch';

export { DB_FILE };
export { BATCH_COMMIT_MS, BATCH_COMMIT_WRITES } from './write-batch';

const DEFAULT_LOGGER: CollectionLogger = { warn: (message) => console.warn(message) };

/**
 * A directory holding one collection: `collection.db` (items, index registry, memberships and
 * whatever each index kind stores) plus files some kinds keep beside it (`<index>.hnsw` for a
 * vector index). The collection owns storage, transactions and fusion; everything specific to
 * an index type lives in its kind (kinds/). See README.md for the semantics.
 */
export class HybridCollection {
  readonly name: string;
  readonly dir: string;
  private readonly db: Database.Database;
  private readonly logger: CollectionLogger;
  private readonly now: () => number;
  private readonly runtimes = new Map<string, Runtime>();
  private readonly statements = new Map<string, Database.Statement>();
  private readonly batch: WriteBatch;
  private readonly kindContext: KindContext;
  /** What the item preparation and retrieval modules need of this collection. */
  private readonly context: PrepareContext & RetrievalContext;
  private readonly itemWriter: ItemWriter;
  private nextSeq: number;
  private readonly ids = new IdsBySeq((sql) => this.stmt(sql));
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
    this.logger = options.logger ?? DEFAULT_LOGGER;
    this.now = options.now ?? Date.now;
    this.batch = new WriteBatch(
      db,
      options.durability ?? 'batched',
      () => this.closed,
      (message) => this.logger.warn(`HybridCollection '${this.name}': ${message}`),
    );
    this.context = {
      name,
      runtime: (index) => this.runtime(index),
      error: (code, message, path) => this.error(code, message, path),
      assertOpen: () => this.assertOpen(),
    };
    this.itemWriter = {
      stmt: this.stmt,
      now: () => this.now(),
      takeSeq: () => this.nextSeq++,
      error: (code, message) => this.error(code, message),
    };
    const row = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'items'").get() as
      { seq: number } | undefined;
    this.nextSeq = (row?.seq ?? 0) + 1;
    this.kindContext = {
      collectionName: this.name,
      dir: this.dir,
      databaseFile: DB_FILE,
      pathOf: (fileName) => join(this.dir, fileName),
      // One-off statements (an index's load); stmt() caches the ones used again.
      db: { prepare: (sql) => this.db.prepare<unknown[]>(sql) },
      logger: this.logger,
      embedder: options.embedder,
      textIndexes: TEXT_INDEXES,
      vectorIndexes: VECTOR_INDEXES,
      stmt: this.stmt,
      error: (code, message, path) => this.error(code, message, path),
      parse: (schema, value, what) =>
        parseOrThrow(schema, value, `HybridCollection '${this.name}': ${what}`),
      assertOpen: () => this.assertOpen(),
      requireItem: (id) => this.requireItem(id),
      searchIndex: (name, query, options, what) =>
        searchNamedIndex(this.context, name, query, options, what),
    };
  }

  /** Opens (creating when absent) the collection in `dir`. */
  static open(dir: string, options: HybridCollectionOptions = {}): HybridCollection {
    const absolute = resolve(dir);
    const name = options.name ?? basename(absolute);
    const db = openCollectionDatabase(absolute, name);
    try {
      const collection = new HybridCollection(absolute, db, name, options);
      loadRuntimes(db, collection.kindContext, collection.runtimes, (code, message) =>
        collection.error(code, message),
      );
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
    const what = `index '${name}' config`;
    const type: unknown = isPlainObject(config) ? config['type'] : undefined;
    const kind = typeof type === 'string' ? findIndexKind(type) : undefined;
    if (!kind) {
      throw this.error(
        'INVALID_INPUT',
        `${what}: type: must be one of ${indexKindTypes().join(', ')}, got ${describe(type)}`,
        ['type'],
      );
    }
    const parsed = parseOrThrow(
      kind.configSchema,
      config,
      `HybridCollection '${this.name}': ${what}`,
    );
    const id = this.batch.write(() => {
      if (kind.ddl !== undefined) this.db.exec(kind.ddl);
      const info = this.db
        .prepare('INSERT INTO indexes (name, type, config, created_at) VALUES (?, ?, ?, ?)')
        .run(name, kind.type, JSON.stringify(parsed), this.now());
      const indexId = Number(info.lastInsertRowid);
      kind.createTx?.(this.kindContext, indexId);
      return indexId;
    });
    const rt = openRuntime(this.db, this.kindContext, id, name, kind, parsed, true);
    this.runtimes.set(name, rt);
    return this.info(rt);
  }

  /** Removes the index and its memberships; the items stay. */
  deleteIndex(name: string): void {
    this.assertOpen();
    const rt = this.runtime(name);
    this.batch.write(() => this.db.prepare('DELETE FROM indexes WHERE index_id = ?').run(rt.id));
    this.runtimes.delete(name);
    rt.handle.close?.();
    rt.handle.drop?.();
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
   * Stores items (all in one transaction) and adds them to the target indexes. Payloads an
   * index still lacks (vectors to embed) are completed first, outside the transaction.
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
      prepareItem(this.context, raw, i, options, targets, explicit, skipped),
    );
    await completePayloads(prepared);
    this.assertOpen();

    const ctx = new TxContext();
    const seqBefore = this.nextSeq;
    let written: WrittenItems;
    try {
      written = this.batch.write(() => writeItems(this.itemWriter, ctx, prepared, options.dedup));
    } catch (error) {
      this.nextSeq = seqBefore;
      throw error;
    }
    this.applyAfterCommit(ctx);
    return { ...written, skipped, overflow: [...ctx.overflow.values()] };
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
    const { toAdd, alreadyMember } = prepareStoredItems(this.context, rt, rows, options.vectors);
    if (rt.handle.complete) {
      await rt.handle.complete(toAdd.map((entry) => entry.pending));
      this.assertOpen();
    }
    const ctx = new TxContext({ rt, seqs: new Set(rows.map((row) => row.seq)) });
    const added: string[] = [];
    this.batch.write(() => {
      for (const { row, pending } of toAdd) {
        // Re-check: an await above may have let another call add it.
        if (ctx.isMember(rt, row.seq)) {
          alreadyMember.push(row.id);
          continue;
        }
        if (ctx.add(rt, row.seq, row.id, row.text, pending.payload)) added.push(row.id);
      }
      ctx.finish();
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
    this.batch.write(() => {
      const done = new Set<number>();
      for (const row of rows) {
        if (!rt.members.has(row.seq) || done.has(row.seq)) {
          notMember.push(row.id);
          continue;
        }
        done.add(row.seq);
        ctx.remove(rt, row.seq);
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
    this.batch.write(() => {
      for (const id of ids) {
        const row = this.stmt('SELECT seq FROM items WHERE id = ?').get(id) as
          { seq: number } | undefined;
        if (!row) {
          missing.push(id);
          continue;
        }
        for (const rt of this.runtimes.values()) {
          if (rt.members.has(row.seq)) ctx.remove(rt, row.seq);
        }
        // ON DELETE CASCADE removes whatever else a kind keyed on the item.
        this.stmt('DELETE FROM items WHERE seq = ?').run(row.seq);
        this.ids.forget(row.seq);
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
    if (!rt.handle.addEdgeTx) throw this.wrongType(rt, 'graph');
    const ctx = new TxContext();
    this.batch.write(() => {
      for (const edge of edges) {
        const from = this.requireItem(edge.from);
        rt.handle.addEdgeTx?.(ctx.view(rt), from, edge.to, edge.weight);
      }
    });
    this.applyAfterCommit(ctx);
    return edges.length;
  }

  /** Writes whatever an index keeps outside SQLite and lags behind it (the .hnsw files). */
  flush(): void {
    this.assertOpen();
    this.batch.commitPending();
    for (const rt of this.runtimes.values()) rt.handle.flush?.();
  }

  close(): void {
    if (this.closed) return;
    try {
      this.flush();
      for (const rt of this.runtimes.values()) rt.handle.close?.();
    } finally {
      this.batch.stopTimer();
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
    const byId = this.stmt('SELECT seq, id, text, metadata, created_at FROM items WHERE id = ?');
    return ids.map((id) => storedItem(byId.get(id) as StoredRow | undefined));
  }

  /** Ids of an index's members in insertion (seq) order, read from SQLite. */
  memberIds(index: string): string[] {
    this.assertOpen();
    const rt = this.runtime(index);
    const rows = this.stmt(
      `SELECT i.id FROM ${rt.kind.memberTable} m JOIN items i ON i.seq = m.item_seq WHERE m.index_id = ? ORDER BY m.item_seq`,
    ).all(rt.id) as Array<{ id: string }>;
    return rows.map((row) => row.id);
  }

  /** The n oldest entries of a fifo index, oldest first. */
  oldest(fifoIndex: string, n: number): StoredItem[] {
    this.assertOpen();
    const rt = this.runtime(fifoIndex);
    if (!rt.handle.oldest) throw this.wrongType(rt, 'fifo');
    if (!Number.isInteger(n) || n < 0) {
      throw this.error(
        'INVALID_INPUT',
        `oldest('${fifoIndex}', n): n must be a non-negative integer, got ${describe(n)}`,
      );
    }
    const bySeq = this.stmt('SELECT seq, id, text, metadata, created_at FROM items WHERE seq = ?');
    return rt.handle
      .oldest(n)
      .map((seq) => storedItem(bySeq.get(seq) as StoredRow | undefined))
      .filter((item): item is StoredItem => item !== null);
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
    const scored = await searchIndex(this.context, rt, query, opts);
    return hydrate(this.stmt, scored, opts.withMetadata);
  }

  /** Queries several indexes and fuses their hits; each hit lists what every index contributed. */
  async retrieveMulti(
    queries: readonly MultiQuery[],
    options: RetrieveMultiOptions = {},
  ): Promise<FusedHit[]> {
    const { fused, withMetadata } = await fuseQueries(
      this.context,
      queries,
      options,
      'retrieveMulti',
    );
    const hydrated = hydrate(
      this.stmt,
      fused.map((f) => ({ seq: f.key, score: f.score })),
      withMetadata,
    );
    return hydrated.map((hit, i) => ({ ...hit, contributions: fused[i]?.contributions ?? [] }));
  }

  /**
   * `retrieveMulti` without reading texts or metadata: ids, fused scores and contributions only.
   * A caller that re-ranks a candidate pool reads the texts of the few hits it keeps, not all.
   */
  async rankMulti(
    queries: readonly MultiQuery[],
    options: Omit<RetrieveMultiOptions, 'withMetadata'> = {},
  ): Promise<RankedHit[]> {
    const { fused } = await fuseQueries(this.context, queries, options, 'rankMulti');
    const ranked: RankedHit[] = [];
    for (const f of fused) {
      const id = this.ids.get(f.key);
      if (id !== undefined) ranked.push({ id, score: f.score, contributions: f.contributions });
    }
    return ranked;
  }

  /**
   * Compares every in-memory structure with SQLite; returns the problems found (empty when
   * consistent). Used by tests and available for diagnostics.
   */
  checkIntegrity(): string[] {
    this.assertOpen();
    return integrityProblems(this.stmt, this.runtimes.values());
  }

  // ---------------------------------------------------------------------------------------------
  // Internals

  private applyAfterCommit(ctx: TxContext): void {
    try {
      for (const fn of ctx.after) fn();
    } catch (error) {
      // SQLite has committed; memory is now behind it. Kinds that keep files mark them dirty
      // inside the transaction, so the next open rebuilds them; say so rather than hide it.
      throw this.error(
        'COLLECTION',
        `in-memory indexes could not follow a committed write (${(error as Error).message}); reopen the collection`,
        undefined,
        error,
      );
    }
  }

  private readonly stmt: Statements = (sql) => {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  };

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
    return requireItemRow(this.stmt, id, (message) => this.error('NOT_FOUND', message));
  }

  private info(rt: Runtime): IndexInfo {
    // The kind's schema produced the config, so it is the config type its `type` names.
    return {
      name: rt.name,
      type: rt.kind.type as IndexType,
      config: rt.config as IndexConfig,
      count: rt.members.size,
    };
  }

  private wrongType(rt: Runtime, expected: string): WorkbenchError {
    return this.error(
      'INVALID_INPUT',
      `index '${rt.name}' is a ${rt.kind.type} index, not a ${expected} index`,
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

export type { VectorInput };
