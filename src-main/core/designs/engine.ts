import { existsSync, readdirSync } from 'node:fs';
import type { Sample, Turn } from '../../../src-shared/dataset';
import type {
  CollectionDesign,
  DesignIndex,
  DesignIndexOf,
  PlaygroundFusedHit,
  PlaygroundIndexHits,
} from '../../../src-shared/designs';
import { WorkbenchError } from '../../../src-shared/errors';
import type { AnyIndexKindFace } from '../../../src-shared/index-kinds/face';
import { findIndexKindFace } from '../../../src-shared/index-kinds/registry';
import {
  HybridCollection,
  type CollectionLogger,
  type EdgeInput,
  type IndexConfigInput,
  type ItemInput,
  type MultiQuery,
  type RetrieveQuery,
} from '../collection';
import type { CallMeter } from '../answer/llm-client';
import type { Embedder } from '../embed';
import type { ApiKeys } from '../keys';
import { embedderCounters, openEmbedder } from '../memory/retrieval/embedder';
import { mentionedSpeakers, stripQuestionWords } from '../memory/retrieval/query';
import { TurnOrder } from '../memory/retrieval/rerank';
import { contextVector } from '../memory/retrieval/service';
import { sessionDates, turnMetadata, turnText } from '../memory/retrieval/turns';

/**
 * A collection built from a CollectionDesign: one item per turn (id = dia_id, text
 * `<speaker>: <text>`, turn metadata plus `position`), the design's indexes, and the design's
 * retrieval: every index queried, hits fused by the design's method and weights, then re-ranked
 * by neighbour context and named speakers. The playground and the `designed` memory preset both
 * run exactly this, so what the playground shows is what an experiment retrieves.
 *
 * The re-ranking is the turn presets' own (TurnOrder.rerank, memory/retrieval/README.md): a
 * design prefilled from `hybrid` retrieves the same turns as the hybrid preset (designed.test.ts
 * checks it).
 */

/** What a hit shows of a stored turn. */
interface TurnSlot {
  speaker: string;
  text: string;
  diaId: string;
  sessionDateTime: string | null;
}

export interface DesignedRetrieval {
  fused: PlaygroundFusedHit[];
  /** Each index's own hits (only when asked for: the preset does not need them). */
  perIndex: Omit<PlaygroundIndexHits, 'recall'>[];
  namedSpeakers: string[];
}

export interface DesignedCollectionOptions {
  dir: string;
  sample: Sample;
  /** Used in collection error messages. */
  name?: string;
  /** Where the persistent embedding cache lives (`<dataDir>/cache`); absent: no cache. */
  cacheDir?: string | undefined;
  /** Receives the collection's warnings (default: console). */
  logger?: CollectionLogger;
  /** API keys by variable name, for the OpenAI embedders the design names (see core/keys.ts). */
  apiKeys?: ApiKeys | undefined;
  /** Files embedding requests in a run's call ledger, by model; absent: not metered. */
  embedderMeter?: ((model: string) => CallMeter) | undefined;
  /** False for a design from the network: errors never quote an embedder's replies. */
  quoteReplies?: boolean | undefined;
}

export class DesignedCollection {
  private readonly turns = new TurnOrder();
  private readonly slots = new Map<string, TurnSlot>();
  private readonly dates: Map<number, string | null>;
  private readonly vectorIndexes: DesignIndexOf<'vector'>[];
  private readonly graph: DesignIndexOf<'graph'> | undefined;
  /** Raw vectors (per vector index) of the last inserted turn, for the next turn's context vector. */
  private last: { id: string; session: number; vectors: Map<string, Float32Array> } | null = null;
  private evicted = 0;
  private closed = false;

  private constructor(
    readonly design: CollectionDesign,
    private readonly collection: HybridCollection,
    /** The embedder of each vector index; indexes that name the same one share it. */
    private readonly embedders: ReadonlyMap<string, Embedder>,
    private readonly sample: Sample,
  ) {
    this.dates = sessionDates(sample);
    this.vectorIndexes = design.indexes.filter(
      (i): i is DesignIndexOf<'vector'> => i.type === 'vector',
    );
    this.graph = design.indexes.find((i): i is DesignIndexOf<'graph'> => i.type === 'graph');
  }

  /**
   * Creates the design's collection in `dir`, which must be empty or absent: the turn order and
   * context vectors live in memory and are rebuilt by inserting the turns again (as a resumed
   * run does), so reusing a directory would mix two histories.
   */
  static async open(
    design: CollectionDesign,
    options: DesignedCollectionOptions,
  ): Promise<DesignedCollection> {
    const name = options.name ?? `design "${design.name}" ${options.sample.sampleId}`;
    if (existsSync(options.dir) && readdirSync(options.dir).length > 0) {
      throw new WorkbenchError(
        'CONFLICT',
        `${name}: ${options.dir} is not empty; a designed collection is built from its turns in an empty directory`,
      );
    }
    // Built here, not by the collection: turns and questions are embedded by this class and their
    // vectors passed in, so the collection never needs to know which embedder made them.
    const byChoice = new Map<string, Embedder>();
    const embedders = new Map<string, Embedder>();
    for (const index of design.indexes) {
      if (index.type !== 'vector') continue;
      const key = JSON.stringify(index.embedder);
      let embedder = byChoice.get(key);
      if (!embedder) {
        embedder = await openEmbedder(index.embedder, {
          cacheDir: options.cacheDir,
          logger: options.logger,
          apiKeys: options.apiKeys,
          meter: options.embedderMeter,
          quoteReplies: options.quoteReplies,
        });
        byChoice.set(key, embedder);
      }
      embedders.set(index.name, embedder);
    }
    const collection = HybridCollection.open(options.dir, {
      name,
      ...(options.logger ? { logger: options.logger } : {}),
    });
    try {
      for (const index of design.indexes) {
        collection.createIndex(
          index.name,
          collectionConfig(index, embedders.get(index.name) ?? null),
        );
      }
    } catch (error) {
      collection.close();
      throw error;
    }
    return new DesignedCollection(design, collection, embedders, options.sample);
  }

  get size(): number {
    return this.turns.size;
  }

  /**
   * Stores turns in conversation order. One call per turn when the graph links turns to their
   * nearest earlier turns (each turn must see the ones before it in the vector index); one batch
   * otherwise.
   */
  async insertTurns(turns: readonly Turn[], signal?: AbortSignal): Promise<void> {
    this.assertOpen();
    if (turns.length === 0) return;
    const raw = await this.embedEach(turns.map(turnText), signal);
    const perTurn = this.graph !== undefined && this.graph.neighbours > 0;
    let batch: ItemInput[] = [];
    for (let i = 0; i < turns.length; i++) {
      const turn = turns[i] as Turn;
      const prev = this.last && this.last.session === turn.sessionIndex ? this.last : null;
      const vectors: Record<string, Float32Array> = {};
      const own = new Map<string, Float32Array>();
      for (const v of this.vectorIndexes) {
        const vector = raw.get(v.name)?.[i] as Float32Array;
        own.set(v.name, vector);
        vectors[v.name] = contextVector(
          vector,
          prev?.vectors.get(v.name) ?? null,
          v.previousTurnVector,
        );
      }
      const item: ItemInput = {
        id: turn.diaId,
        text: turnText(turn),
        metadata: {
          ...turnMetadata(turn, this.dates.get(turn.sessionIndex) ?? null),
          position: this.turns.size,
        },
        vectors,
        edges: this.graph ? await this.edgesFor(this.graph, vectors, prev?.id ?? null) : [],
      };
      batch.push(item);
      this.last = { id: turn.diaId, session: turn.sessionIndex, vectors: own };
      this.place(turn);
      if (perTurn) {
        await this.store(batch);
        batch = [];
      }
    }
    await this.store(batch);
  }

  /** The design's retrieval: every index, fused, then neighbour context and speaker boost. */
  async retrieve(
    question: string,
    topK: number,
    options: { perIndex?: boolean } = {},
  ): Promise<DesignedRetrieval> {
    this.assertOpen();
    const named = mentionedSpeakers(question, this.sample.speakers);
    if (this.turns.size === 0 || topK <= 0)
      return { fused: [], perIndex: [], namedSpeakers: named };
    const { fusion, retrieval } = this.design;
    const queries = this.queriesFor(question, await this.embedEach([question]));
    const fused = await this.collection.retrieveMulti(queries, {
      topK: retrieval.candidates,
      candidates: retrieval.candidates,
      fusion: fusion.method,
      rrfK: fusion.rrfK,
    });
    const contributions = new Map(fused.map((h) => [h.id, h.contributions]));
    const ranked = this.turns
      .rerank(
        fused.map((h) => [h.id, h.score] as const),
        named,
        retrieval,
      )
      .slice(0, topK);
    const fusedHits: PlaygroundFusedHit[] = [];
    ranked.forEach((r, i) => {
      const slot = this.slots.get(r.id);
      if (!slot) return;
      fusedHits.push({
        ...this.hitOf(r.id, slot, r.score, i + 1),
        contributions: contributions.get(r.id) ?? [],
        fusedScore: r.base,
        speakerBoosted: r.boosted,
      });
    });
    const perIndex: DesignedRetrieval['perIndex'] = [];
    if (options.perIndex) {
      for (const q of queries) {
        const index = this.design.indexes.find((i) => i.name === q.index) as DesignIndex;
        const hits = await this.collection.retrieve(q.index, q.query, { ...q.options, topK });
        perIndex.push({
          index: index.name,
          type: index.type,
          hits: hits.flatMap((h, i) => {
            const slot = this.slots.get(h.id);
            return slot ? [this.hitOf(h.id, slot, h.score, i + 1)] : [];
          }),
        });
      }
    }
    return { fused: fusedHits, perIndex, namedSpeakers: named };
  }

  /** The session date-time of a stored turn (the answerer resolves relative dates with it). */
  sessionDateTimeOf(id: string): string | null {
    return this.slots.get(id)?.sessionDateTime ?? null;
  }

  stats(): Record<string, number> {
    const out: Record<string, number> = {
      items: this.turns.size,
      fifoEvicted: this.evicted,
      ...embedderCounters(this.embedders.values()),
    };
    if (this.closed) return out;
    for (const info of this.collection.listIndexes()) out[`index.${info.name}`] = info.count;
    return out;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.collection.close();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private async store(items: ItemInput[]): Promise<void> {
    if (items.length === 0) return;
    const result = await this.collection.insert(items);
    // Fifo overflow is the design's intent (a window of the newest turns), counted for stats.
    for (const o of result.overflow) this.evicted += o.evicted.length;
  }

  /**
   * Edges of a new turn: to the previous turn of its session (weight previousTurnWeight) and to
   * its nearest earlier turns in `neighboursFrom` (weight = similarity, in (0, 1]).
   */
  private async edgesFor(
    graph: DesignIndexOf<'graph'>,
    vectors: Record<string, Float32Array>,
    previous: string | null,
  ): Promise<EdgeInput[]> {
    const edges = new Map<string, number>();
    const source = this.vectorIndexes.find((v) => v.name === graph.neighboursFrom);
    const vector = source ? vectors[source.name] : undefined;
    if (graph.neighbours > 0 && source && vector && this.turns.size > 0) {
      const hits = await this.collection.retrieve(source.name, vector, { topK: graph.neighbours });
      for (const h of hits) {
        // cosine and ip scores are similarities; l2 scores are -(squared distance).
        const weight = source.space === 'l2' ? 1 / (1 - h.score) : Math.min(1, h.score);
        if (weight > 0) edges.set(h.id, weight);
      }
    }
    if (previous !== null && graph.previousTurnWeight > 0) {
      edges.set(previous, Math.max(edges.get(previous) ?? 0, graph.previousTurnWeight));
    }
    return [...edges].map(([to, weight]) => ({ to, weight }));
  }

  /** Each vector index's raw vectors of `texts`: one call per distinct embedder. */
  private async embedEach(
    texts: string[],
    signal?: AbortSignal,
  ): Promise<Map<string, Float32Array[]>> {
    const byEmbedder = new Map<Embedder, Float32Array[]>();
    const out = new Map<string, Float32Array[]>();
    for (const [index, embedder] of this.embedders) {
      let vectors = byEmbedder.get(embedder);
      if (!vectors) {
        vectors = await embedder.embed(texts, signal ? { signal } : {});
        byEmbedder.set(embedder, vectors);
      }
      out.set(index, vectors);
    }
    return out;
  }

  /** One query per index, in design order (fusion ties follow list order); each kind builds its own. */
  private queriesFor(question: string, vectors: Map<string, Float32Array[]>): MultiQuery[] {
    const { fusion, retrieval } = this.design;
    const textQuery = retrieval.dropQuestionWords ? stripQuestionWords(question) : question;
    const directQuery = (name: string): string | Float32Array =>
      this.embedders.has(name) ? (vectors.get(name)?.[0] ?? question) : textQuery;
    return this.design.indexes.map((index): MultiQuery => {
      const { query, options } = faceOf(index).design.query(index, { textQuery, directQuery });
      return {
        index: index.name,
        // The collection validates a query with the index's own kind (its search's schema).
        query: query as RetrieveQuery,
        weight: fusion.weights[index.name] ?? 1,
        ...(options ? { options } : {}),
      };
    });
  }

  private place(turn: Turn): void {
    if (this.turns.has(turn.diaId)) return;
    this.turns.place(turn.diaId, turn.sessionIndex, turn.speaker);
    this.slots.set(turn.diaId, {
      speaker: turn.speaker,
      text: turnText(turn),
      diaId: turn.diaId,
      sessionDateTime: this.dates.get(turn.sessionIndex) ?? null,
    });
  }

  private hitOf(id: string, slot: TurnSlot, score: number, rank: number) {
    return { id, diaId: slot.diaId, speaker: slot.speaker || null, text: slot.text, score, rank };
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`design "${this.design.name}": used after close`);
  }
}

/** The collection's index config for one design index, as its kind's face builds it. */
export function collectionConfig(
  index: DesignIndex,
  embedder: { dim: number } | null,
): IndexConfigInput {
  // createIndex validates it with the kind's configSchema, the one the face declares.
  return faceOf(index).design.collectionConfig(index, { embedder }) as IndexConfigInput;
}

/** The face of a design index's kind (every type the design schema accepts has one). */
function faceOf(index: DesignIndex): AnyIndexKindFace {
  const face = findIndexKindFace(index.type);
  if (!face) throw new Error(`design index '${index.name}': no index kind '${index.type}'`);
  return face;
}
