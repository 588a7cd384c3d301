import { z } from 'zod';
import type {
  AddedItem,
  IndexHandle,
  IndexTx,
  KindContext,
  OpenedIndex,
  ScoredSeq,
  SearchOptions,
} from './engine';
import { describe, isPlainObject, weightProblem } from './validate';
import { defineIndexKind } from './kind';
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

/**
 * Weighted links between turns, walked breadth first: nodes (`graph_nodes`) and weighted edges
 * (`graph_edges`) between them.
 */
export const graphKind = defineIndexKind({
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
  memberTable: 'graph_nodes',
  open: (ctx, index) => new GraphHandle(ctx, index),
});

class GraphHandle implements IndexHandle<never> {
  private readonly id: number;
  private readonly name: string;
  private readonly config: GraphIndexConfig;
  private readonly members: ReadonlySet<number>;

  constructor(
    private readonly ctx: KindContext,
    opened: OpenedIndex<GraphIndexConfig>,
  ) {
    this.id = opened.id;
    this.name = opened.name;
    this.config = opened.config;
    this.members = opened.members;
  }

  addTx(_tx: IndexTx, item: AddedItem<never>): boolean {
    this.ctx
      .stmt('INSERT INTO graph_nodes (item_seq, index_id) VALUES (?, ?)')
      .run(item.seq, this.id);
    return true;
  }

  removeTx(_tx: IndexTx, seq: number): void {
    const { ctx } = this;
    ctx.stmt('DELETE FROM graph_nodes WHERE item_seq = ? AND index_id = ?').run(seq, this.id);
    ctx.stmt('DELETE FROM graph_edges WHERE src = ? AND index_id = ?').run(seq, this.id);
    ctx.stmt('DELETE FROM graph_edges WHERE dst = ? AND index_id = ?').run(seq, this.id);
  }

  addEdgeTx(tx: IndexTx, from: { seq: number; id: string }, to: string, weight?: number): void {
    if (!tx.isMember(from.seq)) {
      throw this.ctx.error(
        'INVALID_INPUT',
        `item '${from.id}' is not a node of graph index '${this.name}'`,
      );
    }
    const problem = weightProblem(weight, `edge '${from.id}' -> '${to}' weight`);
    if (problem) throw this.ctx.error('INVALID_INPUT', problem);
    const target = this.ctx.stmt('SELECT seq FROM items WHERE id = ?').get(to) as
      { seq: number } | undefined;
    if (!target || !tx.isMember(target.seq)) {
      throw this.ctx.error(
        target ? 'INVALID_INPUT' : 'NOT_FOUND',
        target
          ? `edge '${from.id}' -> '${to}': '${to}' is not a node of graph index '${this.name}'`
          : `edge '${from.id}' -> '${to}': no item has id '${to}'`,
      );
    }
    const w = this.config.weighted ? (weight ?? 1) : 1;
    this.ctx
      .stmt(
        'INSERT INTO graph_edges (src, index_id, dst, weight) VALUES (?, ?, ?, ?) ON CONFLICT (src, index_id, dst) DO UPDATE SET weight = excluded.weight',
      )
      .run(from.seq, this.id, target.seq, w);
  }

  async search(query: unknown, options: SearchOptions): Promise<ScoredSeq[]> {
    const { ctx } = this;
    let startIds: readonly string[] | undefined;
    let startSeqs: number[] = [];
    if (isPlainObject(query) && 'fromIndex' in query) {
      const from = query as unknown as { fromIndex: unknown; query: unknown; topK?: unknown };
      if (typeof from.fromIndex !== 'string')
        throw ctx.error('INVALID_INPUT', `graph query fromIndex must be an index name`);
      if (from.fromIndex === this.name) {
        throw ctx.error(
          'INVALID_INPUT',
          `graph index '${this.name}' cannot take its start nodes from itself`,
        );
      }
      const hits = await ctx.searchIndex(
        from.fromIndex,
        from.query,
        { topK: from.topK ?? 5 },
        `graph query for index '${this.name}' fromIndex '${from.fromIndex}'`,
      );
      startSeqs = hits.map((h) => h.seq).filter((seq) => this.members.has(seq));
    } else if (isPlainObject(query) && 'start' in query) {
      startIds = (query as { start: readonly string[] }).start;
    } else if (query === undefined || query === null) {
      startIds = options.startNodes;
    } else {
      throw ctx.error(
        'INVALID_INPUT',
        `graph index '${this.name}' expects {start: ids} or {fromIndex, query, topK} (or options.startNodes), got ${describe(query)}`,
      );
    }
    if (startIds !== undefined) {
      if (!Array.isArray(startIds))
        throw ctx.error(
          'INVALID_INPUT',
          `graph index '${this.name}': start nodes must be an array of ids`,
        );
      startSeqs = startIds.map((id) => {
        const row = ctx.requireItem(id);
        if (!this.members.has(row.seq)) {
          throw ctx.error(
            'INVALID_INPUT',
            `start node '${id}' is not a node of graph index '${this.name}'`,
          );
        }
        return row.seq;
      });
    }
    return this.bfs(startSeqs, options.maxDepth, options.maxNodes);
  }

  /**
   * Level-by-level BFS. Start nodes score 1 at depth 0; a node first reached at depth d scores
   * the best over its parents of parentScore * edgeWeight * decay, i.e. the product of edge
   * weights along its best shortest path times decay^d. When a level would exceed maxNodes, its
   * best-scoring nodes are kept (ties: smaller seq first).
   */
  private bfs(starts: number[], maxDepth: number, maxNodes: number): ScoredSeq[] {
    const visited = new Map<number, ScoredSeq>();
    let frontier: ScoredSeq[] = [];
    for (const seq of starts) {
      if (visited.has(seq) || visited.size >= maxNodes) continue;
      const node = { seq, score: 1, depth: 0 };
      visited.set(seq, node);
      frontier.push(node);
    }
    const out = this.ctx.stmt(
      'SELECT dst AS n, weight FROM graph_edges WHERE src = ? AND index_id = ?',
    );
    const inc = this.ctx.stmt(
      'SELECT src AS n, weight FROM graph_edges WHERE dst = ? AND index_id = ?',
    );
    for (
      let depth = 1;
      depth <= maxDepth && frontier.length > 0 && visited.size < maxNodes;
      depth++
    ) {
      const next = new Map<number, number>();
      for (const node of frontier) {
        const neighbours = out.all(node.seq, this.id) as Array<{ n: number; weight: number }>;
        if (!this.config.directed)
          neighbours.push(...(inc.all(node.seq, this.id) as Array<{ n: number; weight: number }>));
        for (const { n, weight } of neighbours) {
          if (visited.has(n)) continue;
          const score = node.score * weight * this.config.decay;
          if (score > (next.get(n) ?? -Infinity)) next.set(n, score);
        }
      }
      const level = [...next].map(([seq, score]) => ({ seq, score, depth }));
      level.sort((a, b) => b.score - a.score || a.seq - b.seq);
      frontier = level.slice(0, maxNodes - visited.size);
      for (const node of frontier) visited.set(node.seq, node);
    }
    return [...visited.values()].sort(
      (a, b) => b.score - a.score || (a.depth ?? 0) - (b.depth ?? 0) || a.seq - b.seq,
    );
  }
}
