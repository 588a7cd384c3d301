import type { z } from 'zod';
import { GRAPH_DEFAULTS } from '../../../src-shared/index-kinds/graph';
import { TEXT_DEFAULTS } from '../../../src-shared/index-kinds/text';
import { VECTOR_DEFAULTS } from '../../../src-shared/index-kinds/vector';
import type { IndexKindMap } from './kinds/registry';

/** Index names become file names (`<index>.hnsw`), so they are kept to a portable alphabet. */
export const INDEX_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export const DEFAULT_VECTOR_M = VECTOR_DEFAULTS.M;
export const DEFAULT_VECTOR_EF_CONSTRUCTION = VECTOR_DEFAULTS.efConstruction;
export const DEFAULT_VECTOR_EF = VECTOR_DEFAULTS.ef;
export const DEFAULT_VECTOR_INITIAL_CAPACITY = VECTOR_DEFAULTS.initialCapacity;
export const DEFAULT_VECTOR_SEED = VECTOR_DEFAULTS.seed;
export const DEFAULT_BM25_K1 = TEXT_DEFAULTS.k1;
export const DEFAULT_BM25_B = TEXT_DEFAULTS.b;
export const DEFAULT_GRAPH_DECAY = GRAPH_DEFAULTS.decay;

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

export type { VectorIndexConfig } from '../../../src-shared/index-kinds/vector';
export type { TextIndexConfig } from '../../../src-shared/index-kinds/text';
export type { FifoIndexConfig } from '../../../src-shared/index-kinds/fifo';
export type { SortedIndexConfig } from '../../../src-shared/index-kinds/sorted';
export type { GraphIndexConfig } from '../../../src-shared/index-kinds/graph';
