import { mkdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { z } from 'zod';
import { WorkbenchError, parseOrThrow } from '../../../src-shared/errors';
import type { ErrorCode, ErrorPath } from '../../../src-shared/errors';
import type { Embedder } from './embedder';
import { openSqlite } from '../sqlite';
import { INDEX_NAME_PATTERN } from './config';
import type { IndexConfig, IndexConfigInput, IndexInfo, IndexType } from './config';
import { DEFAULT_RRF_K, fuse, type FusedEntry } from './fusion';
import { textHash } from './hash';
import type {
  AnyIndexKind,
  IncomingItem,
  IndexHandle,
  IndexTx,
  KindContext,
  PendingItem,
  ScoredSeq,
} from './kinds/kind';
import { findIndexKind, indexKindTypes } from './kinds/registry';
import { DB_FILE, SCHEMA_VERSION, migrate, readSchemaVersion } from './schema';
import type {
  CollectionLogger,
  DeleteResult,
  EdgeInput,
  FifoOverflow,
  FusedHit,
  RankedHit,
  Hit,
  HybridCollectionOptions,
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
import {
  describe,
  idProblem,
  isPlainObject,
  sameSet,
  textProblem,
  weightProblem,
} from './validate';

export { DB_FILE };
/** Batched durability: commit after this many write calls... */
export const BATCH_COMMIT_WRITES = 1000;
/** ...or this long after the first uncommitted write, whichever comes first. */
export const BATCH_COMMIT_MS = 100;

/** One open index: what the collection keeps (identity, members) around the kind's handle. */
interface Runtime {
  id: number;
  name: string;
  kind: AnyIndexKind;
  config: { type: string };
  /** Item seqs that are members, mirrored from SQLite (the durable truth). */
  members: Set<number>;
  handle: IndexHandle;
}

interface PreparedItem {
  /** How messages name the item: `item 'abc'` or `items[3]`. */
  label: string;
  id: string | undefined;
  text: string;
  hash: number;
  metadata: Metadata;
  metadataJson: string;
  /** What each target index's kind prepared for this item (a vector, a sort value...). */
  payloads: Map<Runtime, unknown>;
  /** Target runtimes this item joins (skipped memberships removed). */
  targets: Runtime[];
  edges: readonly EdgeInput[];
}

const NOTHING_NAMED: ReadonlySet<number> = new Set();

/** What one write transaction changes in memory once SQLite has committed. */
class TxContext {
  readonly after: Array<() => void> = [];
  readonly overflow = new Map<Runtime, FifoOverflow>();
  private readonly added = new Map<Runtime, Set<number>>();
  /** Indexes this transaction tried to add to, in order: their finishTx runs at the end. */
  private readonly touched = new Set<Runtime>();
  private readonly states = new Map<Runtime, unknown>();
  private readonly views = new Map<Runtime, IndexTx>();

  /** `named`: the index and items an insertToIndex call names (its adds must not evict them). */
  constructor(private readonly named?: { rt: Runtime; seqs: ReadonlySet<number> }) {}

  isMember(rt: Runtime, seq: number): boolean {
    return rt.members.has(seq) || (this.added.get(rt)?.has(seq) ?? false);
  }

  /** Adds one membership in SQLite; memory follows after commit. Returns false if refused. */
  add(rt: Runtime, seq: number, id: string, text: string, payload: unknown): boolean {
    this.touched.add(rt);
    if (!rt.handle.addTx(this.view(rt), { seq, id, text, payload })) return false;
    let added = this.added.get(rt);
    if (!added) {
      added = new Set();
      this.added.set(rt, added);
    }
    added.add(seq);
    this.after.push(() => rt.members.add(seq));
    return true;
  }

  remove(rt: Runtime, seq: number): void {
    rt.handle.removeTx(this.view(rt), seq);
    this.added.get(rt)?.delete(seq);
    this.after.push(() => {
      rt.members.delete(seq);
      rt.handle.forget?.(seq);
    });
  }

  /** Lets every index this transaction added to finish (a fifo evicts what overflowed). */
  finish(): void {
    for (const rt of this.touched) rt.handle.finishTx?.(this.view(rt));
  }

  view(rt: Runtime): IndexTx {
    let view = this.views.get(rt);
    if (view) return view;
    view = {
      after: (fn) => this.after.push(fn),
      isMember: (seq) => this.isMember(rt, seq),
      size: () => rt.members.size + (this.added.get(rt)?.size ?? 0),
      state: <T>(init: () => T): T => {
        if (!this.states.has(rt)) this.states.set(rt, init());
        return this.states.get(rt) as T;
      },
      remove: (seq) => this.remove(rt, seq),
      overflow: (policy) => {
        let report = this.overflow.get(rt);
        if (!report) {
          report = { index: rt.name, policy, evicted: [], rejected: [] };
          this.overflow.set(rt, report);
        }
        return report;
      },
      named: this.named?.rt === rt ? this.named.seqs : NOTHING_NAMED,
    };
    this.views.set(rt, view);
    return view;
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
  private readonly runTx: (fn: () => unknown) => unknown;
  private readonly durability: 'batched' | 'immediate';
  private readonly kindContext: KindContext;
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
    this.logger = options.logger ?? DEFAULT_LOGGER;
    this.now = options.now ?? Date.now;
    this.runTx = db.transaction((fn: () => unknown) => fn());
    this.durability = options.durability ?? 'batched';
    const row = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'items'").get() as
      { seq: number } | undefined;
    this.nextSeq = (row?.seq ?? 0) + 1;
    this.kindContext = this.makeKindContext(options.embedder);
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
    const id = this.write(() => {
      if (kind.ddl !== undefined) this.db.exec(kind.ddl);
      const info = this.db
        .prepare('INSERT INTO indexes (name, type, config, created_at) VALUES (?, ?, ?, ?)')
        .run(name, kind.type, JSON.stringify(parsed), this.now());
      const indexId = Number(info.lastInsertRowid);
      kind.createTx?.(this.kindContext, indexId);
      return indexId;
    });
    const rt = this.openRuntime(id, name, kind, parsed, true);
    this.runtimes.set(name, rt);
    return this.info(rt);
  }

  /** Removes the index and its memberships; the items stay. */
  deleteIndex(name: string): void {
    this.assertOpen();
    const rt = this.runtime(name);
    this.write(() => this.db.prepare('DELETE FROM indexes WHERE index_id = ?').run(rt.id));
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
      this.prepareItem(raw, i, options, targets, explicit, skipped),
    );
    await this.completePayloads(prepared);
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
          for (const rt of item.targets) {
            ctx.add(rt, seq, id, item.text, item.payloads.get(rt));
          }
        }
        // Edges last, so they may point at any item of the same batch.
        prepared.forEach((item, i) => {
          const seq = seqs[i];
          if (seq === undefined || item.edges.length === 0) return;
          const graphs = item.targets.filter((rt) => rt.handle.addEdgeTx !== undefined);
          if (graphs.length === 0) {
            throw this.error('INVALID_INPUT', `${item.label} has edges but joins no graph index`);
          }
          const from = { seq, id: ids[i] ?? '' };
          for (const rt of graphs) {
            if (!ctx.isMember(rt, seq)) continue;
            for (const edge of item.edges) {
              rt.handle.addEdgeTx?.(ctx.view(rt), from, edge.to, edge.weight);
            }
          }
        });
        ctx.finish();
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
    const toAdd: Array<{ row: ItemRow; pending: PendingItem<unknown> }> = [];
    rows.forEach((row, i) => {
      if (rt.members.has(row.seq) || toAdd.some((entry) => entry.row.seq === row.seq)) {
        alreadyMember.push(row.id);
        return;
      }
      const label = `item '${row.id}'`;
      const item: IncomingItem = {
        label,
        id: row.id,
        text: row.text,
        metadata: JSON.parse(row.metadata) as Metadata,
      };
      const prepared = this.prepareFor(rt, item, true);
      let payload = 'skip' in prepared ? undefined : prepared.payload;
      const given = options.vectors?.[i];
      if (given !== undefined && rt.handle.acceptVector) {
        payload = rt.handle.acceptVector(given, label);
      }
      toAdd.push({ row, pending: { label, text: row.text, payload } });
    });
    if (rt.handle.complete) {
      await rt.handle.complete(toAdd.map((entry) => entry.pending));
      this.assertOpen();
    }
    const ctx = new TxContext({ rt, seqs: new Set(rows.map((row) => row.seq)) });
    const added: string[] = [];
    this.write(() => {
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
    this.write(() => {
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
    this.write(() => {
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
    this.write(() => {
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
    this.commitPending();
    for (const rt of this.runtimes.values()) rt.handle.flush?.();
  }

  close(): void {
    if (this.closed) return;
    try {
      this.flush();
      for (const rt of this.runtimes.values()) rt.handle.close?.();
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
    const scored = await this.search(rt, query, opts);
    return this.hydrate(scored, opts.withMetadata);
  }

  /** Queries several indexes and fuses their hits; each hit lists what every index contributed. */
  async retrieveMulti(
    queries: readonly MultiQuery[],
    options: RetrieveMultiOptions = {},
  ): Promise<FusedHit[]> {
    const { fused, withMetadata } = await this.fuseQueries(queries, options, 'retrieveMulti');
    const hydrated = this.hydrate(
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
    const { fused } = await this.fuseQueries(queries, options, 'rankMulti');
    const idOf = this.stmt('SELECT id FROM items WHERE seq = ?');
    const ranked: RankedHit[] = [];
    for (const f of fused) {
      const row = idOf.get(f.key) as { id: string } | undefined;
      if (row) ranked.push({ id: row.id, score: f.score, contributions: f.contributions });
    }
    return ranked;
  }

  private async fuseQueries(
    queries: readonly MultiQuery[],
    options: RetrieveMultiOptions,
    method: string,
  ): Promise<{ fused: Array<FusedEntry<number>>; withMetadata: boolean }> {
    this.assertOpen();
    const opts = parseOrThrow(
      multiOptionsSchema,
      options,
      `HybridCollection '${this.name}': ${method} options`,
    );
    if (!Array.isArray(queries) || queries.length === 0) {
      throw this.error('INVALID_INPUT', `${method} needs at least one query`);
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
          `HybridCollection '${this.name}': ${method} queries[${i}] options for index '${q.index}'`,
        );
        const hits = await this.search(rt, q.query, sub);
        return { index: q.index, weight, hits: hits.map((h) => ({ key: h.seq, score: h.score })) };
      }),
    );
    const fused = fuse(lists, opts.fusion, opts.rrfK).slice(0, opts.topK);
    return { fused, withMetadata: opts.withMetadata };
  }

  /**
   * Compares every in-memory structure with SQLite; returns the problems found (empty when
   * consistent). Used by tests and available for diagnostics.
   */
  checkIntegrity(): string[] {
    this.assertOpen();
    const problems: string[] = [];
    for (const rt of this.runtimes.values()) {
      const rows = this.stmt(`SELECT item_seq FROM ${rt.kind.memberTable} WHERE index_id = ?`).all(
        rt.id,
      ) as Array<{ item_seq: number }>;
      const stored = new Set(rows.map((r) => r.item_seq));
      if (!sameSet(stored, rt.members))
        problems.push(`index '${rt.name}': members differ from SQLite`);
      problems.push(...(rt.handle.checkIntegrity?.(stored) ?? []));
    }
    return problems;
  }

  // ---------------------------------------------------------------------------------------------
  // Internals: loading

  private loadIndexes(): void {
    const rows = this.db
      .prepare('SELECT index_id, name, type, config FROM indexes ORDER BY index_id')
      .all() as Array<{ index_id: number; name: string; type: string; config: string }>;
    for (const row of rows) {
      const kind = findIndexKind(row.type);
      if (!kind) {
        throw this.error(
          'COLLECTION',
          `index '${row.name}' has type '${row.type}', which this build does not know (known: ${indexKindTypes().join(', ')})`,
        );
      }
      let config: { type: string };
      try {
        config = kind.configSchema.parse(JSON.parse(row.config));
      } catch (error) {
        throw this.error(
          'COLLECTION',
          `index '${row.name}' has an unreadable stored config (${(error as Error).message})`,
        );
      }
      this.runtimes.set(row.name, this.openRuntime(row.index_id, row.name, kind, config, false));
    }
  }

  private openRuntime(
    id: number,
    name: string,
    kind: AnyIndexKind,
    config: { type: string },
    fresh: boolean,
  ): Runtime {
    const members = new Set<number>();
    if (!fresh) {
      const rows = this.db
        .prepare(`SELECT item_seq FROM ${kind.memberTable} WHERE index_id = ? ORDER BY item_seq`)
        .iterate(id) as Iterable<{ item_seq: number }>;
      for (const row of rows) members.add(row.item_seq);
    }
    const handle = kind.open(this.kindContext, { id, name, config, fresh, members });
    return { id, name, kind, config, members, handle };
  }

  private makeKindContext(embedder: Embedder | undefined): KindContext {
    return {
      collectionName: this.name,
      dir: this.dir,
      db: this.db,
      logger: this.logger,
      embedder,
      stmt: (sql) => this.stmt(sql),
      error: (code, message, path) => this.error(code, message, path),
      parse: (schema, value, what) =>
        parseOrThrow(schema, value, `HybridCollection '${this.name}': ${what}`),
      assertOpen: () => this.assertOpen(),
      requireItem: (id) => this.requireItem(id),
      searchIndex: (name, query, options, what) => {
        const rt = this.runtime(name);
        const opts = parseOrThrow(
          retrieveOptionsSchema,
          options,
          `HybridCollection '${this.name}': ${what}`,
        );
        return this.search(rt, query, opts);
      },
    };
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
    // Every given vector is checked (in the caller's order) before any index prepares the item.
    const givenVectors = new Map<Runtime, unknown>();
    for (const [indexName, value] of Object.entries(item.vectors ?? options.vectors ?? {})) {
      const rt = this.runtime(indexName);
      if (!rt.handle.acceptVector) {
        throw this.error(
          'INVALID_INPUT',
          `${label}: a vector was given for index '${indexName}', which is a ${rt.kind.type} index`,
        );
      }
      if (!targets.includes(rt)) continue;
      givenVectors.set(rt, rt.handle.acceptVector(value, label));
    }
    const incoming: IncomingItem = { label, id: item.id, text: item.text, metadata };
    const payloads = new Map<Runtime, unknown>();
    const joined: Runtime[] = [];
    for (const rt of targets) {
      const prepared = this.prepareFor(rt, incoming, explicit);
      if ('skip' in prepared) {
        skipped.push({ id: item.id ?? label, index: rt.name, reason: prepared.skip });
        continue;
      }
      // A caller's vector wins over what the kind prepared.
      const payload = givenVectors.has(rt) ? givenVectors.get(rt) : prepared.payload;
      if (payload !== undefined) payloads.set(rt, payload);
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
      const weight = weightProblem(edge.weight, `${label}: edges[${e}].weight`);
      if (weight) throw this.error('INVALID_INPUT', weight);
    });
    return {
      label,
      id: item.id,
      text: item.text,
      hash: textHash(item.text),
      metadata,
      metadataJson,
      payloads,
      targets: joined,
      edges,
    };
  }

  /**
   * What `rt`'s kind makes of an item joining it. A kind may leave an item out only when it
   * joins by default ("every index"); when the caller named the index it must refuse instead.
   */
  private prepareFor(
    rt: Runtime,
    item: IncomingItem,
    explicit: boolean,
  ): { payload: unknown } | { skip: string } {
    const prepared = rt.handle.prepare?.(item, explicit) ?? {};
    if (!('skip' in prepared)) return { payload: prepared.payload };
    if (explicit) {
      throw this.error(
        'INTERNAL',
        `index '${rt.name}' left out ${item.label} (${prepared.skip}) although the caller named it`,
      );
    }
    return prepared;
  }

  /** Lets each target index fill the payloads it still lacks (embedding), index by index. */
  private async completePayloads(items: PreparedItem[]): Promise<void> {
    const lacking = new Set<Runtime>();
    for (const item of items) {
      for (const rt of item.targets) {
        if (rt.handle.complete && !item.payloads.has(rt)) lacking.add(rt);
      }
    }
    for (const rt of lacking) {
      const joining = items.filter((item) => item.targets.includes(rt));
      const pending = joining.map((item) => ({
        label: item.label,
        text: item.text,
        payload: item.payloads.get(rt),
      }));
      await rt.handle.complete?.(pending);
      joining.forEach((item, i) => {
        const payload = pending[i]?.payload;
        if (payload !== undefined) item.payloads.set(rt, payload);
      });
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

  // ---------------------------------------------------------------------------------------------
  // Internals: reads

  private async search(
    rt: Runtime,
    query: RetrieveQuery,
    opts: ParsedRetrieveOptions,
  ): Promise<ScoredSeq[]> {
    let hits = await rt.handle.search(query, opts);
    this.assertOpen();
    if (opts.threshold !== undefined) {
      const threshold = opts.threshold;
      hits = hits.filter((h) => h.score >= threshold);
    }
    return hits.length > opts.topK ? hits.slice(0, opts.topK) : hits;
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

interface ItemRow {
  seq: number;
  id: string;
  text: string;
  metadata: string;
}

type StoredRow = ItemRow & { created_at: number };

function storedItem(row: StoredRow | undefined): StoredItem | null {
  if (!row) return null;
  return {
    id: row.id,
    text: row.text,
    metadata: JSON.parse(row.metadata) as Metadata,
    seq: row.seq,
    createdAt: row.created_at,
  };
}

function isUniqueViolation(error: unknown): boolean {
  return (
    error instanceof Error &&
    'code' in error &&
    ((error as { code: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE' ||
      (error as { code: unknown }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
  );
}

export type { VectorInput };
