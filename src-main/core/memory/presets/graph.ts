/**
 * `graph`: every turn is a node linked to related turns; retrieval spreads from the best matches.
 *
 * On insert a turn gets edges (undirected, weighted) to
 * - its `neighbours` nearest earlier turns by vector similarity, weight = similarity, kept when
 *   the similarity is at least `minSimilarity`. Candidates come from the hnsw index; similarity is
 *   cosine after centring on the mean of the turns so far (raw SIF cosines are all ~0.9), and
 * - the previous turn of its session, weight `sequenceWeight`: an answer ("Yes, last Friday!")
 *   shares few words with the question it answers, but it sits next to a turn that does.
 * Retrieval fuses BM25 and SIF cosine (weighted, min-max normalised) into direct scores; the best
 * `seeds` hits start a BFS of depth `depth` (node limit `maxNodes`) in the graph index, where a
 * node's BFS score is the product of edge weights along its best path times decay^depth. A node's
 * final score is its direct score (divided by the best one) plus, over the seeds that reached it,
 * seed score * BFS score * expansionWeight.
 */
import { WINK_EMBEDDER_NAME } from '../retrieval/embedder';
import { z } from 'zod';
import type { Packet } from '../../../../src-shared/dataset';
import type { MemoryHit } from '../request';
import {
  DEFAULT_GRAPH_DECAY,
  type EdgeInput,
  type HybridCollection,
  type MultiQuery,
} from '../../collection';
import type { MemoryPresetDefinition, MemoryServiceFactory } from '../registry';
import { stripQuestionWords } from '../retrieval/query';
import type { MemoryService, MemoryServiceContext } from '../types';
import {
  RunningMean,
  TurnEncoder,
  cosineOf,
  normalizeByMax,
  openPresetCollection,
  parsePresetConfig,
  turnHit,
} from './shared';

export const GRAPH_PRESET = 'graph';

export const graphPresetConfigSchema = z.strictObject({
  /** Similarity edges per new turn (k nearest earlier turns). */
  neighbours: z.number().int().min(0).max(100).default(3),
  /** Centred cosine a similarity edge needs. */
  minSimilarity: z.number().min(-1).max(1).default(0.4),
  /** Weight of the edge to the previous turn of the same session (0 = no sequence edges). */
  sequenceWeight: z.number().min(0).max(1).default(0.8),
  /** Best direct hits that start the expansion. */
  seeds: z.number().int().min(0).max(1000).default(5),
  /** BFS depth from each seed. */
  depth: z.number().int().min(0).max(3).default(1),
  /** Most nodes one BFS visits (the seed included). */
  maxNodes: z.number().int().min(1).max(10_000).default(30),
  /** Per-hop decay of the graph index. */
  decay: z.number().gt(0).max(1).default(DEFAULT_GRAPH_DECAY),
  /** How much a reached node inherits from its seed. */
  expansionWeight: z.number().min(0).max(100).default(1),
  /** Hits taken from each index for the direct scores. */
  candidates: z.number().int().min(1).max(10_000).default(50),
  textWeight: z.number().min(0).max(100).default(1),
  vectorWeight: z.number().min(0).max(100).default(0.5),
  /** 0 by default: the sequence edges already connect a turn with the one before it. */
  previousTurnVector: z.number().min(0).max(10).default(0),
  dropQuestionWords: z.boolean().default(true),
});
export type GraphPresetConfig = z.output<typeof graphPresetConfigSchema>;

const TEXT = 'text';
const VECTOR = 'vector';
const LINKS = 'links';

export class GraphMemory implements MemoryService {
  readonly preset = GRAPH_PRESET;
  // Every vector index here holds SIF vectors from the shared wink embedder.
  readonly embedderName = WINK_EMBEDDER_NAME;
  private readonly order = new Map<string, number>();
  /** Centred vectors of stored turns, for edge weights. */
  private readonly centred = new Map<string, Float32Array>();
  private readonly mean: RunningMean;
  private last: { id: string; session: number } | null = null;
  private edges = { similarity: 0, sequence: 0 };
  private closed = false;

  private constructor(
    private readonly config: GraphPresetConfig,
    private readonly collection: HybridCollection,
    private readonly encoder: TurnEncoder,
    dim: number,
  ) {
    this.mean = new RunningMean(dim);
  }

  static async open(config: GraphPresetConfig, ctx: MemoryServiceContext): Promise<GraphMemory> {
    const { collection, embedder } = await openPresetCollection(GRAPH_PRESET, ctx);
    collection.createIndex(TEXT, { type: 'text' });
    collection.createIndex(VECTOR, { type: 'vector', dim: embedder.dim, space: 'cosine' });
    collection.createIndex(LINKS, {
      type: 'graph',
      directed: false,
      weighted: true,
      decay: config.decay,
    });
    const encoder = new TurnEncoder(embedder, ctx.sample, config.previousTurnVector);
    return new GraphMemory(config, collection, encoder, embedder.dim);
  }

  async insert(packet: Packet): Promise<void> {
    this.assertOpen();
    const c = this.config;
    // One turn at a time, so the second turn of a packet can link to the first.
    for (const turn of this.encoder.encode(packet)) {
      const id = turn.item.id;
      const centred = this.mean.center(turn.vector);
      const edges = new Map<string, number>();
      if (c.neighbours > 0 && this.order.size > 0) {
        // hnsw ranks by raw cosine; a few extra candidates let the centred cosine re-rank them.
        const candidates = await this.collection.retrieve(VECTOR, turn.vector, {
          topK: c.neighbours * 4,
        });
        const sims = candidates
          .map((h) => ({ id: h.id, sim: cosineOf(centred, this.centred.get(h.id) ?? centred) }))
          .filter((h) => h.id !== id && h.sim >= c.minSimilarity)
          .sort(
            (a, b) => b.sim - a.sim || (this.order.get(a.id) ?? 0) - (this.order.get(b.id) ?? 0),
          )
          .slice(0, c.neighbours);
        for (const h of sims) edges.set(h.id, Math.max(0, Math.min(1, h.sim)));
        this.edges.similarity += sims.length;
      }
      if (c.sequenceWeight > 0 && this.last && this.last.session === turn.sessionIndex) {
        edges.set(this.last.id, Math.max(edges.get(this.last.id) ?? 0, c.sequenceWeight));
        this.edges.sequence++;
      }
      const edgeList: EdgeInput[] = [...edges].map(([to, weight]) => ({ to, weight }));
      await this.collection.insert({
        ...turn.item,
        vectors: { [VECTOR]: turn.vector },
        edges: edgeList,
      });
      this.order.set(id, this.order.size);
      this.centred.set(id, centred);
      this.mean.add(turn.vector);
      this.last = { id, session: turn.sessionIndex };
    }
  }

  async retrieve(question: string, topK: number): Promise<MemoryHit[]> {
    this.assertOpen();
    if (topK <= 0 || this.order.size === 0) return [];
    const c = this.config;
    const queries: MultiQuery[] = [];
    if (c.textWeight > 0) {
      const text = c.dropQuestionWords ? stripQuestionWords(question) : question;
      queries.push({ index: TEXT, query: text, weight: c.textWeight });
    }
    if (c.vectorWeight > 0) {
      queries.push({
        index: VECTOR,
        query: this.encoder.embedQuery(question),
        weight: c.vectorWeight,
      });
    }
    if (queries.length === 0) return [];
    const fused = await this.collection.retrieveMulti(queries, {
      topK: c.candidates,
      candidates: c.candidates,
      fusion: 'weighted',
    });
    const direct = normalizeByMax(fused);
    const score = new Map(direct);
    if (c.depth > 0 && c.expansionWeight > 0) {
      for (const seed of fused.slice(0, c.seeds)) {
        const seedScore = direct.get(seed.id) ?? 0;
        if (seedScore <= 0) continue;
        const reached = await this.collection.retrieve(
          LINKS,
          { start: [seed.id] },
          {
            maxDepth: c.depth,
            maxNodes: c.maxNodes,
            topK: c.maxNodes,
          },
        );
        for (const h of reached) {
          if (h.depth === 0) continue;
          score.set(h.id, (score.get(h.id) ?? 0) + seedScore * h.score * c.expansionWeight);
        }
      }
    }
    const ranked = [...score]
      .filter(([, s]) => s > 0)
      .sort((a, b) => b[1] - a[1] || (this.order.get(a[0]) ?? 0) - (this.order.get(b[0]) ?? 0))
      .slice(0, topK);
    const stored = this.collection.get(ranked.map(([id]) => id));
    const hits: MemoryHit[] = [];
    ranked.forEach(([, s], i) => {
      const item = stored[i];
      if (item) hits.push(turnHit(item, s));
    });
    return hits;
  }

  stats(): Record<string, number> {
    const out: Record<string, number> = {
      'edges.similarity': this.edges.similarity,
      'edges.sequence': this.edges.sequence,
    };
    if (!this.closed) {
      out['items'] = this.collection.count();
      out['nodes'] = this.collection.count(LINKS);
    }
    return out;
  }

  notes(): string[] {
    const c = this.config;
    return [
      `graph: turn nodes; edges to ${c.neighbours} nearest earlier turns (centred cosine >= ${c.minSimilarity}) ` +
        `and to the previous turn (weight ${c.sequenceWeight}); retrieval expands the top ${c.seeds} ` +
        `BM25+SIF hits by BFS depth ${c.depth} (decay ${c.decay}, at most ${c.maxNodes} nodes each)`,
    ];
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.collection.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`memory preset ${GRAPH_PRESET}: used after close`);
  }
}

export const graphPreset: MemoryServiceFactory = async (config, ctx) =>
  GraphMemory.open(parsePresetConfig(GRAPH_PRESET, graphPresetConfigSchema, config), ctx);

export const graphPresetDefinition: MemoryPresetDefinition = {
  name: GRAPH_PRESET,
  create: graphPreset,
  configSchema: graphPresetConfigSchema,
};
