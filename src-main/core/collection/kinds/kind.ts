import type Database from 'better-sqlite3';
import type { z } from 'zod';
import type { ErrorCode, ErrorPath, WorkbenchError } from '../../../../src-shared/errors';
import type { Embedder } from '../embedder';
import type { CollectionLogger, FifoOverflow, Metadata, RetrieveQuery } from '../types';

/**
 * The contract between HybridCollection and an index kind. The collection owns the items, the
 * `indexes` registry table, transactions, member sets and fusion; a kind owns its config schema,
 * its tables, its in-memory structure and its query. One kind per file in this folder; see
 * README.md ("Adding an index kind") for the recipe.
 */
export interface IndexKind<
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

/** Any registered kind, whatever its config and payload types. */
export type AnyIndexKind = IndexKind<string, z.ZodType<{ type: string }>, unknown>;

/** Lets TypeScript infer a kind's type literal, schema and payload from one object literal. */
export function defineIndexKind<const T extends string, S extends z.ZodType<{ type: T }>, P>(
  kind: IndexKind<T, S, P>,
): IndexKind<T, S, P> {
  return kind;
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

/** What the collection lends a kind: its database and a few helpers, never another index. */
export interface KindContext {
  readonly collectionName: string;
  /** The collection directory (files beside the database live here). */
  readonly dir: string;
  readonly db: Database.Database;
  readonly logger: CollectionLogger;
  readonly embedder: Embedder | undefined;
  /** A prepared statement, cached for the collection's lifetime. */
  stmt(sql: string): Database.Statement;
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
  searchIndex(
    name: string,
    query: RetrieveQuery,
    options: unknown,
    what: string,
  ): Promise<ScoredSeq[]>;
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
  search(query: RetrieveQuery, options: SearchOptions): ScoredSeq[] | Promise<ScoredSeq[]>;
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
