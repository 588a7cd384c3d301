import { graphFace, type GraphIndexConfig } from '../../../../src-shared/index-kinds/graph';
import type { RetrieveQuery } from '../types';
import { describe, isPlainObject, weightProblem } from '../validate';
import {
  defineIndexKind,
  type AddedItem,
  type IndexHandle,
  type IndexTx,
  type KindContext,
  type OpenedIndex,
  type ScoredSeq,
  type SearchOptions,
} from './kind';

/** Nodes (`graph_nodes`) and weighted edges (`graph_edges`) between them; BFS from start nodes. */
export const graphKind = defineIndexKind({
  type: graphFace.type,
  configSchema: graphFace.configSchema,
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

  async search(query: RetrieveQuery, options: SearchOptions): Promise<ScoredSeq[]> {
    const { ctx } = this;
    let startIds: readonly string[] | undefined;
    let startSeqs: number[] = [];
    if (isPlainObject(query) && 'fromIndex' in query) {
      const from = query as unknown as { fromIndex: unknown; query: RetrieveQuery; topK?: unknown };
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
