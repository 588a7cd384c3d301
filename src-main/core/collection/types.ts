import type { Embedder } from './embedder';

import type {
  CollectionLogger,
  FifoOverflow,
  Metadata,
} from '../../../src-shared/index-kinds/engine';
import type { VectorInput } from '../../../src-shared/index-kinds/validate';

// Declared beside the index kinds' engine contract, which every kind's file reads.
export type { CollectionLogger, FifoOverflow, Metadata, VectorInput };

export interface HybridCollectionOptions {
  /** Used in every error message; defaults to the directory's base name. */
  name?: string;
  /** Embeds texts for vector indexes when an insert gives no vector, and string queries. */
  embedder?: Embedder;
  /** Receives warnings such as "hnsw file rebuilt". Defaults to console.warn. */
  logger?: CollectionLogger;
  /**
   * 'batched' (default): writes are grouped into one SQLite commit per 1,000 write calls or
   * 100 ms (and on flush/close); a process crash can lose that window, never corrupt the
   * collection. 'immediate': every write call commits on its own (slower for small writes).
   */
  durability?: 'batched' | 'immediate';
  /** Clock for `createdAt` (ms since epoch); injectable so tests are deterministic. */
  now?: () => number;
}

export interface EdgeInput {
  /** Id of the other item; it must be a node of the graph index (or join it in the same insert). */
  to: string;
  /** Ignored (taken as 1) by unweighted graphs. Default 1. */
  weight?: number;
}

export interface ItemInput {
  /** Caller-chosen id; when absent one is generated from the insertion sequence (`item-<seq>`). */
  id?: string;
  text: string;
  metadata?: Metadata;
  /** Vector per vector-index name; missing ones are embedded with the collection's embedder. */
  vectors?: Record<string, VectorInput>;
  /**
   * Text per text-index name, indexed there instead of `text` (a turn with the turn before it,
   * say); `text` stays what is stored and returned. Same rules as `text`; persisted.
   */
  indexTexts?: Record<string, string>;
  /** Edges from this item, added to every graph index the item joins. */
  edges?: readonly EdgeInput[];
}

export interface InsertOptions {
  /** Indexes to add the items to: none (`[]`), one or several. Default: every index. */
  indexes?: readonly string[];
  /** true: an item whose text equals a stored item's text is not stored again; its id is returned. */
  dedup?: boolean;
  /** Single-item inserts only: defaults for the item's own fields. */
  vectors?: Record<string, VectorInput>;
  metadata?: Metadata;
  edges?: readonly EdgeInput[];
}

export interface SkippedMembership {
  id: string;
  index: string;
  reason: string;
}

export interface InsertResult {
  /** One id per input item, in input order (the existing id for a deduplicated item). */
  ids: string[];
  /** Number of new items stored. */
  inserted: number;
  /** Ids (of existing items) that input items were deduplicated onto. */
  deduplicated: string[];
  /** Memberships not created under the default "every index" target (e.g. no sort field). */
  skipped: SkippedMembership[];
  /** One entry per fifo index that overflowed during this call; empty when none did. */
  overflow: FifoOverflow[];
}

export interface InsertToIndexOptions {
  /** Vector index only: one vector per id (same order); missing ones are embedded. */
  vectors?: ReadonlyArray<VectorInput | undefined>;
}

export interface InsertToIndexResult {
  added: string[];
  alreadyMember: string[];
  overflow: FifoOverflow[];
}

export interface RemoveFromIndexResult {
  removed: string[];
  notMember: string[];
}

export interface DeleteResult {
  deleted: string[];
  missing: string[];
}

export interface StoredItem {
  id: string;
  text: string;
  metadata: Metadata;
  /** Insertion order; never reused. */
  seq: number;
  createdAt: number;
}

export interface SortedQuery {
  order?: 'asc' | 'desc';
  /** Inclusive bounds on the field value. */
  min?: number | string;
  max?: number | string;
  /** Same as options.topK; the smaller wins when both are given. */
  top?: number;
}

export interface FifoQuery {
  /** 'newest' (default) returns the most recent entries first. */
  order?: 'newest' | 'oldest';
}

export interface GraphFromIndex {
  /** Another index whose hits become the start nodes (hits that are not graph nodes are dropped). */
  fromIndex: string;
  query: RetrieveQuery;
  /** Hits taken from that index. Default 5. */
  topK?: number;
}

export type GraphQuery = { start: readonly string[] } | GraphFromIndex;

export type RetrieveQuery = string | VectorInput | SortedQuery | FifoQuery | GraphQuery | undefined;

export interface RetrieveOptions {
  /** Default 10. */
  topK?: number;
  /** Keep hits with score >= threshold. */
  threshold?: number;
  withMetadata?: boolean;
  /** Graph only: explicit start nodes (used when the query gives none). */
  startNodes?: readonly string[];
  /** Graph only: BFS depth. Default 2. */
  maxDepth?: number;
  /** Graph only: most nodes visited (start nodes included). Default 100. */
  maxNodes?: number;
}

export interface Hit {
  id: string;
  text: string;
  /** Higher is better; the meaning depends on the index type (see README). */
  score: number;
  metadata?: Metadata;
  /** Graph only: BFS depth at which the node was reached (0 = start node). */
  depth?: number;
}

export interface MultiQuery {
  index: string;
  query: RetrieveQuery;
  /** Default 1. Multiplies the index's contribution for every fusion method. */
  weight?: number;
  /** Per-index retrieve options (topK here is the candidate count for this index). */
  options?: Omit<RetrieveOptions, 'withMetadata'>;
}

export type FusionMethod = 'rrf' | 'weighted' | 'union';

export interface RetrieveMultiOptions {
  /** Default 10. */
  topK?: number;
  /** Default 'rrf'. */
  fusion?: FusionMethod;
  /** Default 60. */
  rrfK?: number;
  /** Candidates fetched per index when its own options give no topK. Default max(2*topK, 20). */
  candidates?: number;
  withMetadata?: boolean;
}

export interface Contribution {
  index: string;
  /** 1-based rank within that index's hits. */
  rank: number;
  /** The index's own score for the item. */
  score: number;
  /** Min-max normalised score within that index's list (1 when all scores are equal). */
  normalized: number;
  /** What this index added to the fused score. */
  contribution: number;
}

export interface FusedHit extends Hit {
  contributions: Contribution[];
}

/** A fused hit before its text is read (`rankMulti`). */
export interface RankedHit {
  id: string;
  score: number;
  contributions: Contribution[];
}
