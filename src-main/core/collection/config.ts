import type { z } from 'zod';
import { INDEX_DEFAULTS } from '../../../src-shared/index-defaults';
import type { IndexKindMap } from './kinds/registry';

/** Index names become file names (`<index>.hnsw`), so they are kept to a portable alphabet. */
export const INDEX_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export const DEFAULT_VECTOR_M = INDEX_DEFAULTS.vector.M;
export const DEFAULT_VECTOR_EF_CONSTRUCTION = INDEX_DEFAULTS.vector.efConstruction;
export const DEFAULT_VECTOR_EF = INDEX_DEFAULTS.vector.ef;
export const DEFAULT_VECTOR_INITIAL_CAPACITY = INDEX_DEFAULTS.vector.initialCapacity;
export const DEFAULT_VECTOR_SEED = INDEX_DEFAULTS.vector.seed;
export const DEFAULT_BM25_K1 = INDEX_DEFAULTS.text.k1;
export const DEFAULT_BM25_B = INDEX_DEFAULTS.text.b;
export const DEFAULT_GRAPH_DECAY = INDEX_DEFAULTS.graph.decay;

/** Every registered kind's type (the built-ins, plus any kind that declared itself). */
export type IndexType = keyof IndexKindMap;
type ConfigSchemaOf<K extends IndexType> = IndexKindMap[K]['configSchema'];
/** What a caller passes to createIndex (defaults may be left out). */
export type IndexConfigInput = { [K in IndexType]: z.input<ConfigSchemaOf<K>> }[IndexType];
/** A config with every default filled in: what is stored and what listIndexes returns. */
export type IndexConfig = { [K in IndexType]: z.output<ConfigSchemaOf<K>> }[IndexType];

export interface IndexInfo {
  name: string;
  type: IndexType;
  config: IndexConfig;
  count: number;
}

export type { VectorIndexConfig } from './kinds/vector';
export type { TextIndexConfig } from './kinds/text';
export type { FifoIndexConfig } from './kinds/fifo';
export type { SortedIndexConfig } from './kinds/sorted';
export type { GraphIndexConfig } from './kinds/graph';
