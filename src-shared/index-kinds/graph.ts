import { z } from 'zod';
import { defineIndexKindFace } from './face';
import { designIndexName, designIndexRef, int, num, numberField } from './fields';

/** The graph kind's defaults, declared once: the collection's config and the design share them. */
export const GRAPH_DEFAULTS = { directed: false, weighted: true, decay: 0.5 } as const;
const D = GRAPH_DEFAULTS;

export const graphIndexConfigSchema = z.strictObject({
  type: z.literal('graph'),
  directed: z.boolean().default(D.directed),
  /** false: every edge has weight 1 (any given weight is ignored). */
  weighted: z.boolean().default(D.weighted),
  /** Score of a node at depth d = product of edge weights along its best path * decay^d. */
  decay: z.number().gt(0).max(1).default(D.decay),
});
export type GraphIndexConfig = z.output<typeof graphIndexConfigSchema>;

const designSchema = z.strictObject({
  name: designIndexName,
  type: z.literal('graph'),
  /** Edge from each turn to the previous turn of its session with this weight (0: none). */
  previousTurnWeight: num(0, 1).default(0.8),
  /** Edges from each turn to its k nearest earlier turns in `neighboursFrom` (weight = score). */
  neighbours: int(0, 50).default(3),
  /** A vector index of this design; required when neighbours > 0. */
  neighboursFrom: designIndexRef.default(''),
  /** Score of a node at depth d = product of edge weights on its best path * decay^d. */
  decay: num(0.01, 1).default(D.decay),
  maxDepth: int(0, 5).default(1),
  maxNodes: int(1, 10_000).default(30),
  /** A vector or text index of this design whose best hits start the walk. */
  startFrom: designIndexRef.default(''),
  /** Hits of `startFrom` that become start nodes. */
  startTopK: int(1, 1000).default(5),
});
const shape = designSchema.shape;

/** Weighted links between turns, walked breadth first (src-main/core/collection/kinds/graph.ts). */
export const graphFace = defineIndexKindFace({
  type: 'graph',
  description: 'links between turns, walked from another index',
  configSchema: graphIndexConfigSchema,
  design: {
    schema: designSchema,
    fields: [
      {
        key: 'startFrom',
        label: 'Start from',
        kind: 'index',
        types: ['vector', 'text'],
        hint: 'its best hits start the walk',
      },
      numberField(shape, 'startTopK', 'Start nodes'),
      numberField(shape, 'previousTurnWeight', 'Previous-turn link', 'edge weight; 0 = none'),
      numberField(shape, 'neighbours', 'Nearest neighbours', 'k similarity edges per turn'),
      { key: 'neighboursFrom', label: 'Neighbours from', kind: 'index', types: ['vector'] },
      numberField(shape, 'decay', 'Decay', 'per hop'),
      numberField(shape, 'maxDepth', 'Max depth'),
      numberField(shape, 'maxNodes', 'Max nodes'),
    ],
    initial(existing) {
      const firstOf = (...types: string[]) =>
        existing.find((i) => types.includes(i.type))?.name ?? '';
      const vector = firstOf('vector');
      return {
        startFrom: firstOf('text', 'vector'),
        neighboursFrom: vector,
        neighbours: vector === '' ? 0 : 3,
      };
    },
    // Undirected and weighted: the designs engine links a turn to its previous turn and to its
    // nearest earlier turns, with similarity weights, and walks them both ways.
    collectionConfig: (index) => ({
      type: 'graph' as const,
      directed: false,
      weighted: true,
      decay: index.decay,
    }),
    query: (index, { directQuery }) => ({
      query: {
        fromIndex: index.startFrom,
        query: directQuery(index.startFrom),
        topK: index.startTopK,
      },
      options: { maxDepth: index.maxDepth, maxNodes: index.maxNodes },
    }),
  },
});
