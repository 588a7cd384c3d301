import type { z } from 'zod';
import type { ErrorCode, ErrorPath, WorkbenchError } from '../errors';

/**
 * The contract between HybridCollection (src-main/core/collection) and an index kind's engine.
 * The collection owns the items, the `indexes` registry table, transactions, member sets and
 * fusion; an engine owns its config schema, its tables, its in-memory structure and its query.
 *
 * An engine lives in its kind's one file in this folder, so it is written against ports the
 * collection lends it at run time (`KindContext`): a SQL handle, full-text and vector index
 * factories, the collection folder's paths, the embedder and the logger. Nothing here imports
 * Node, SQLite or hnswlib; the core implements the ports (core/collection/kind-ports.ts).
 */
export interface IndexEngine<
  T extends string = string,
  S extends z.ZodType<{ type: T }> = z.ZodType<{ type: T }>,
  P = unknown,
> {
  /** Stored in `indexes.type` and given as `config.type`; lowercase letters, digits and '-'. */
  readonly type: T;
  /** Validates createIndex's config; its defaults are the only place the kind's defaults live. */
  readonly configSchema: S;
  /**
   * Table holding one row per member, with at least `item_seq` (REFERENCES items(seq) ON DELETE
   * CASCADE) and `index_id` (REFERENCES indexes(index_id) ON DELETE CASCADE): the durable truth
   * of membership, read by the collection on open, by memberIds and by checkIntegrity.
   */
  readonly memberTable: string;
  /**
   * `CREATE TABLE IF NOT EXISTS …` for the kind's tables, run inside every createIndex of this
   * kind (so a database never holds tables of kinds it never used). The built-in kinds' tables
   * come from schema migration 1 instead; changing a released table needs a schema migration.
   */
  readonly ddl?: string;
  /** Extra writes when an index is created, in the same transaction as its registry row. */
  createTx?(ctx: KindContext, indexId: number): void;
  /** Builds the index's runtime: empty when `index.fresh`, otherwise from what is stored. */
  open(ctx: KindContext, index: OpenedIndex<z.output<S>>): IndexHandle<P>;
}

/** Any engine, whatever its config and payload types. */
export type AnyIndexEngine = IndexEngine<string, z.ZodType<{ type: string }>, unknown>;

/**
 * Lets TypeScript infer an engine's type literal, schema and payload from one object literal:
 * for a kind only the collection uses (registered with core's registerIndexKind); a kind with a
 * face uses defineIndexKind (kind.ts).
 */
export function defineIndexEngine<const T extends string, S extends z.ZodType<{ type: T }>, P>(
  engine: IndexEngine<T, S, P>,
): IndexEngine<T, S, P> {
  return engine;
}

export interface OpenedIndex<C> {
  /** `indexes.index_id`: the key of every row the index stores. */
  id: number;
  name: string;
  config: C;
  /** true: created by this call (nothing stored yet); false: loaded from the database. */
  fresh: boolean;
  /** Item seqs that are members; the collection keeps it equal to the member table. */
  members: ReadonlySet<number>;
}

/**
 * What the collection lends a kind: its database, the structures core builds, and a few helpers;
 * never another index.
 */
export interface KindContext {
  readonly collectionName: string;
  /** The collection directory (files beside the database live here). */
  readonly dir: string;
  /** The database's file name in `dir`, for messages. */
  readonly databaseFile: string;
  /** The path of the file `fileName` beside the database. */
  pathOf(fileName: string): string;
  readonly db: SqlDatabase;
  readonly logger: CollectionLogger;
  readonly embedder: Embedder | undefined;
  /** Full-text indexes (flexsearch candidates ranked by BM25). */
  readonly textIndexes: TextIndexFactory;
  /** Approximate nearest-neighbour indexes (hnswlib) and their vectors' SQLite form. */
  readonly vectorIndexes: VectorIndexFactory;
  /** A prepared statement, cached for the collection's lifetime. */
  stmt(sql: string): SqlStatement;
  /** An error whose message starts with `HybridCollection '<name>': `. */
  error(code: ErrorCode, message: string, path?: ErrorPath): WorkbenchError;
  /** zod parse; a failure is INVALID_INPUT naming the collection, `what` and the bad field. */
  parse<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S>;
  /** Throws once the collection is closed (call it after every await). */
  assertOpen(): void;
  /** The stored item with this id, or NOT_FOUND. */
  requireItem(id: string): { seq: number; id: string };
  /**
   * Hits of another index of the collection (a graph takes its start nodes from one). `options`
   * are retrieve options, validated by the collection; `what` names them in errors.
   */
  searchIndex(name: string, query: unknown, options: unknown, what: string): Promise<ScoredSeq[]>;
}

/** A search result before the collection hydrates it: item seq, score (higher is better). */
export interface ScoredSeq {
  seq: number;
  score: number;
  /** Graph only: BFS depth at which the node was reached. */
  depth?: number;
}

/** Retrieve options with the collection's defaults applied (see RetrieveOptions in types.ts). */
export interface SearchOptions {
  topK: number;
  threshold?: number | undefined;
  startNodes?: readonly string[] | undefined;
  maxDepth: number;
  maxNodes: number;
}

/** An item on its way into an index, as the kind sees it. */
export interface IncomingItem {
  /** How messages name the item: `item 'abc'` or `items[3]`. */
  label: string;
  id: string | undefined;
  text: string;
  metadata: Metadata;
}

/** An item the transaction adds; `payload` is what prepare/complete produced for this index. */
export interface AddedItem<P> {
  seq: number;
  id: string;
  text: string;
  payload: P | undefined;
}

/** One item waiting for `complete` (e.g. its vector is embedded); set `payload` in place. */
export interface PendingItem<P> {
  label: string;
  text: string;
  payload: P | undefined;
}

/** What `prepare` decides for one item: join with an optional payload, or be left out. */
export type Preparation<P> = { payload?: P } | { skip: string };

/**
 * One write transaction as one index sees it. SQLite is written inside the transaction; memory
 * follows in `after` callbacks, which run only once SQLite has committed.
 */
export interface IndexTx {
  after(fn: () => void): void;
  /** Whether `seq` is a member, counting this transaction's adds. */
  isMember(seq: number): boolean;
  /** Members plus this transaction's adds (removals count once committed). */
  size(): number;
  /** This index's scratch state for this transaction, created on first use. */
  state<T>(init: () => T): T;
  /** Takes `seq` out of this index within the transaction (e.g. evicting the oldest entry). */
  remove(seq: number): void;
  /** This index's overflow report for this call, created on first use (reported by insert). */
  overflow(policy: FifoOverflow['policy']): FifoOverflow;
  /** Items the current insertToIndex call names; empty for every other call. */
  readonly named: ReadonlySet<number>;
}

/**
 * One open index. Required: add, remove, search. The optional members are capabilities the
 * collection uses when present (and reports as a wrong index type when a caller needs one that
 * is absent, e.g. `oldest` on a text index).
 */
export interface IndexHandle<P = unknown> {
  /** Validates what an item brings for this index before the write; may leave the item out. */
  prepare?(item: IncomingItem, explicit: boolean): Preparation<P>;
  /** Turns a caller's `vectors[index]` into the payload; absent = the index takes no vectors. */
  acceptVector?(value: unknown, context: string): P;
  /**
   * Turns a caller's `indexTexts[index]` (already checked as a text) into the payload; absent =
   * the index indexes no text of its own choosing.
   */
  acceptIndexText?(text: string, context: string): P;
  /** Fills missing payloads before the transaction (async work such as embedding). */
  complete?(items: Array<PendingItem<P>>): Promise<void>;
  /** Writes one membership; returns false when the index refuses it (a full 'reject' fifo). */
  addTx(tx: IndexTx, item: AddedItem<P>): boolean;
  /** Deletes one membership (and whatever hangs on it) from SQLite. */
  removeTx(tx: IndexTx, seq: number): void;
  /** Drops a removed member from memory, after commit. */
  forget?(seq: number): void;
  /** Runs at the end of an insert/insertToIndex transaction that added to this index. */
  finishTx?(tx: IndexTx): void;
  /** `query` is the caller's, unchecked: the kind validates it and names what it expects. */
  search(query: unknown, options: SearchOptions): ScoredSeq[] | Promise<ScoredSeq[]>;
  /** Problems between the in-memory structure and the stored members (empty when consistent). */
  checkIntegrity?(stored: ReadonlySet<number>): string[];
  /** Adds (or re-weights) an edge from a member; the collection validates the weight's shape. */
  addEdgeTx?(tx: IndexTx, from: { seq: number; id: string }, to: string, weight?: number): void;
  /** Seqs of the n oldest members, oldest first. */
  oldest?(n: number): number[];
  /** Writes whatever lags behind SQLite (files beside the database). */
  flush?(): void;
  /** Releases what open() took; the collection flushes first. */
  close?(): void;
  /** Removes what the index keeps outside SQLite, once its rows are deleted. */
  drop?(): void;
}

/** An item's metadata: a JSON object. */
export type Metadata = Record<string, unknown>;

export interface CollectionLogger {
  warn(message: string): void;
  info?(message: string): void;
}

/** A fifo index's overflow in one write call (the insert result reports it). */
export interface FifoOverflow {
  index: string;
  policy: 'evict-oldest' | 'reject';
  /** Entries removed from the fifo index (oldest first); the items remain stored. */
  evicted: string[];
  /** Items that were not added to the fifo index because it was full (policy 'reject'). */
  rejected: string[];
}

/**
 * An embedder turns texts into fixed-size vectors. Collections and memory services depend on
 * this interface only, so the offline word-vector embedder and HTTP embedders are interchangeable.
 */
export interface Embedder {
  /** Stable identifier recorded in run manifests, e.g. `wink-sif-100d` or `openai:text-embedding-3-small`. */
  readonly name: string;
  readonly dim: number;
  /**
   * One vector per text, in order. Vectors are L2-normalised unless the embedder says otherwise.
   * `signal` stops slow work (an HTTP embedder's requests) when the caller gives up.
   */
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]>;
}

/** A value SQLite binds: a BLOB is a byte array. */
export type SqlValue = number | string | bigint | Uint8Array | null;

/** The part of a prepared statement (better-sqlite3's) an engine uses. */
export interface SqlStatement {
  run(...params: SqlValue[]): unknown;
  /** The first row, or undefined. */
  get(...params: SqlValue[]): unknown;
  all(...params: SqlValue[]): unknown[];
  iterate(...params: SqlValue[]): Iterable<unknown>;
}

/** The part of the collection's database (better-sqlite3's) an engine uses. */
export interface SqlDatabase {
  prepare(sql: string): SqlStatement;
}

/** Options that decide how text becomes index terms. Stored with a text index's config. */
export interface AnalyzerOptions {
  lowercase: boolean;
  foldAccents: boolean;
  stopWords: boolean;
  stem: boolean;
}

/** The text settings of a text index's config. */
export interface TextIndexSettings extends AnalyzerOptions {
  /** A query term also matches longer words that start with it (flexsearch `forward`). */
  prefix: boolean;
  k1: number;
  b: number;
}

/** An in-memory full-text index over item seqs (core/collection/text-index.ts). */
export interface FullTextIndex {
  readonly size: number;
  has(seq: number): boolean;
  /** Indexes `text` for `seq`, replacing what it held. */
  add(seq: number, text: string): void;
  remove(seq: number): void;
  /** The best `topK` documents for `query`, best first. */
  search(query: string, topK: number): ScoredSeq[];
}

export interface TextIndexFactory {
  create(settings: TextIndexSettings): FullTextIndex;
}

/** The hnsw settings of a vector index's config. */
export interface HnswSettings {
  space: 'cosine' | 'ip' | 'l2';
  dim: number;
  M: number;
  efConstruction: number;
  ef: number;
  initialCapacity: number;
  seed: number;
}

/** An approximate nearest-neighbour index over labels (core/collection/vector-index.ts). */
export interface AnnIndex {
  /** Labels currently searchable. */
  readonly live: ReadonlySet<number>;
  add(label: number, vector: Float32Array): void;
  remove(label: number): void;
  /** The nearest `topK` labels, best first (score: higher is better). */
  search(query: Float32Array, topK: number): Array<{ label: number; score: number }>;
  /** Writes the index to `path` atomically; returns the checksum of what was written. */
  write(path: string): string;
}

export interface VectorIndexFactory {
  empty(settings: HnswSettings): AnnIndex;
  /**
   * Reads an index written to `path`; a reason string instead when the file cannot be trusted
   * (missing, unrecorded or mismatched checksum, other dimension, a label missing).
   */
  load(
    settings: HnswSettings,
    path: string,
    checksum: string | null,
    labels: readonly number[],
  ): AnnIndex | string;
  /** An index holding `rows`, sized for `count` of them. */
  rebuild(
    settings: HnswSettings,
    rows: Iterable<{ label: number; vector: Float32Array }>,
    count: number,
  ): AnnIndex;
  /** Deletes the index file at `path` (and its temp file), if present. */
  removeFile(path: string): void;
  /** A vector as the BLOB SQLite stores, and back. */
  toBlob(vector: Float32Array): Uint8Array;
  fromBlob(blob: Uint8Array): Float32Array;
}
