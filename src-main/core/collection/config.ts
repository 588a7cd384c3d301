import { z } from 'zod';

/** Index names become file names (`<index>.hnsw`), so they are kept to a portable alphabet. */
export const INDEX_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export const DEFAULT_VECTOR_M = 16;
export const DEFAULT_VECTOR_EF_CONSTRUCTION = 100;
export const DEFAULT_VECTOR_EF = 64;
export const DEFAULT_VECTOR_INITIAL_CAPACITY = 1024;
export const DEFAULT_VECTOR_SEED = 100;
export const DEFAULT_BM25_K1 = 1.2;
export const DEFAULT_BM25_B = 0.75;
export const DEFAULT_GRAPH_DECAY = 0.5;

export const vectorIndexConfigSchema = z.strictObject({
  type: z.literal('vector'),
  dim: z.number().int().min(1).max(65_536),
  /** Score: cosine -> 1 - distance (cosine similarity); ip -> dot product; l2 -> -(squared L2). */
  space: z.enum(['cosine', 'ip', 'l2']).default('cosine'),
  M: z.number().int().min(2).max(128).default(DEFAULT_VECTOR_M),
  efConstruction: z.number().int().min(1).max(4096).default(DEFAULT_VECTOR_EF_CONSTRUCTION),
  /** Search breadth; raised to topK for a query that asks for more. */
  ef: z.number().int().min(1).max(4096).default(DEFAULT_VECTOR_EF),
  /** First hnsw capacity; the index doubles when full. */
  initialCapacity: z
    .number()
    .int()
    .min(1)
    .max(100_000_000)
    .default(DEFAULT_VECTOR_INITIAL_CAPACITY),
  /** hnsw level-generator seed: the same inserts build the same graph. */
  seed: z.number().int().min(0).max(2_147_483_647).default(DEFAULT_VECTOR_SEED),
});

export const textIndexConfigSchema = z.strictObject({
  type: z.literal('text'),
  lowercase: z.boolean().default(true),
  foldAccents: z.boolean().default(true),
  stopWords: z.boolean().default(true),
  stem: z.boolean().default(true),
  /** true: a query term also matches longer words that start with it (flexsearch `forward`). */
  prefix: z.boolean().default(false),
  k1: z.number().min(0).max(10).default(DEFAULT_BM25_K1),
  b: z.number().min(0).max(1).default(DEFAULT_BM25_B),
});

export const fifoIndexConfigSchema = z.strictObject({
  type: z.literal('fifo'),
  capacity: z.number().int().min(1).max(1_000_000_000),
  /**
   * What happens when an insert would exceed capacity. Either way the insert result reports it:
   * 'evict-oldest' removes the oldest entries from this index (the items stay in storage);
   * 'reject' leaves the newest items out of this index (they are still stored and in other indexes).
   */
  overflow: z.enum(['evict-oldest', 'reject']).default('evict-oldest'),
});

export const sortedIndexConfigSchema = z.strictObject({
  type: z.literal('sorted'),
  /** Metadata field; dotted paths (`time.ts`) reach into nested objects. */
  field: z.string().min(1).max(200),
  valueType: z.enum(['number', 'string']).default('number'),
});

export const graphIndexConfigSchema = z.strictObject({
  type: z.literal('graph'),
  directed: z.boolean().default(false),
  /** false: every edge has weight 1 (any given weight is ignored). */
  weighted: z.boolean().default(true),
  /** Score of a node at depth d = product of edge weights along its best path * decay^d. */
  decay: z.number().gt(0).max(1).default(DEFAULT_GRAPH_DECAY),
});

export const indexConfigSchema = z.discriminatedUnion('type', [
  vectorIndexConfigSchema,
  textIndexConfigSchema,
  fifoIndexConfigSchema,
  sortedIndexConfigSchema,
  graphIndexConfigSchema,
]);

/** What a caller passes to createIndex (defaults may be left out). */
export type IndexConfigInput = z.input<typeof indexConfigSchema>;
/** A config with every default filled in: what is stored and what listIndexes returns. */
export type IndexConfig = z.output<typeof indexConfigSchema>;
export type IndexType = IndexConfig['type'];
export type VectorIndexConfig = z.output<typeof vectorIndexConfigSchema>;
export type TextIndexConfig = z.output<typeof textIndexConfigSchema>;
export type FifoIndexConfig = z.output<typeof fifoIndexConfigSchema>;
export type SortedIndexConfig = z.output<typeof sortedIndexConfigSchema>;
export type GraphIndexConfig = z.output<typeof graphIndexConfigSchema>;
