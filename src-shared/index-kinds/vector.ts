import { z } from 'zod';
import { EmbedderChoiceSchema, WINK_EMBEDDER } from '../embedders';
import { defineIndexKindFace } from './face';
import { designIndexName, int, num, numberField, oneOf, selectField } from './fields';

/** The vector kind's defaults, declared once: the collection's config and the design share them. */
export const VECTOR_DEFAULTS = {
  space: 'cosine',
  M: 16,
  efConstruction: 100,
  ef: 64,
  initialCapacity: 1024,
  seed: 100,
} as const;
const D = VECTOR_DEFAULTS;

export const vectorIndexConfigSchema = z.strictObject({
  type: z.literal('vector'),
  dim: z.number().int().min(1).max(65_536),
  /** Score: cosine -> 1 - distance (cosine similarity); ip -> dot product; l2 -> -(squared L2). */
  space: z.enum(['cosine', 'ip', 'l2']).default(D.space),
  M: z.number().int().min(2).max(128).default(D.M),
  efConstruction: z.number().int().min(1).max(4096).default(D.efConstruction),
  /** Search breadth; raised to topK for a query that asks for more. */
  ef: z.number().int().min(1).max(4096).default(D.ef),
  /** First hnsw capacity; the index doubles when full. */
  initialCapacity: z.number().int().min(1).max(100_000_000).default(D.initialCapacity),
  /** hnsw level-generator seed: the same inserts build the same graph. */
  seed: z.number().int().min(0).max(2_147_483_647).default(D.seed),
});
export type VectorIndexConfig = z.output<typeof vectorIndexConfigSchema>;

const designSchema = z.strictObject({
  name: designIndexName,
  type: z.literal('vector'),
  /** The offline `wink-sif-100d`, or an OpenAI-compatible endpoint (each index its own). */
  embedder: EmbedderChoiceSchema.default(WINK_EMBEDDER),
  space: oneOf(['cosine', 'ip', 'l2']).default(D.space),
  M: int(2, 128).default(D.M),
  efConstruction: int(1, 4096).default(D.efConstruction),
  ef: int(1, 4096).default(D.ef),
  /** A turn's vector is normalise(v(turn) + previousTurnVector * v(previous turn of the session)). */
  previousTurnVector: num(0, 10).default(0.5),
});
const shape = designSchema.shape;

/** hnsw nearest neighbours over embedded turns (src-main/core/collection/kinds/vector.ts). */
export const vectorFace = defineIndexKindFace({
  type: 'vector',
  description: 'hnsw over SIF sentence vectors',
  configSchema: vectorIndexConfigSchema,
  design: {
    schema: designSchema,
    fields: [
      {
        key: 'embedder',
        label: 'Embedder',
        kind: 'embedder',
        hint: 'a saved endpoint must serve /v1/embeddings',
      },
      selectField(shape, 'space', 'Space'),
      numberField(shape, 'M', 'M', 'hnsw links per node'),
      numberField(shape, 'efConstruction', 'efConstruction'),
      numberField(shape, 'ef', 'ef', 'search breadth'),
      numberField(
        shape,
        'previousTurnVector',
        'Previous-turn mix',
        'v(turn) + x · v(previous turn)',
      ),
    ],
    collectionConfig(index, { embedder }) {
      if (!embedder) throw new Error('a vector index needs an embedder');
      return {
        type: 'vector' as const,
        dim: embedder.dim,
        space: index.space,
        M: index.M,
        efConstruction: index.efConstruction,
        ef: index.ef,
      };
    },
    query: (index, { directQuery }) => ({ query: directQuery(index.name) }),
  },
});
