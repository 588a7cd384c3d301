import { z } from 'zod';
import { EmbedderChoiceSchema, WINK_EMBEDDER } from '../embedders';
import type {
  AddedItem,
  AnnIndex,
  IndexHandle,
  IndexTx,
  KindContext,
  OpenedIndex,
  PendingItem,
  ScoredSeq,
  SearchOptions,
} from './engine';
import { checkVector, describe, sameSet, textProblem } from './validate';
import { defineIndexKind } from './kind';
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

/**
 * hnsw nearest neighbours over embedded turns (hnswlib in the core, ctx.vectorIndexes), over the
 * Float32 vectors stored in `vector_members`. The `.hnsw` file beside the database is a cache
 * written on flush; `indexes.dirty` says it lags behind SQLite and `indexes.file_checksum` what
 * was written, so a stale, missing or corrupt file is rebuilt on open from the stored vectors
 * (with a warning).
 */
export const vectorKind = defineIndexKind({
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
  memberTable: 'vector_members',
  createTx(ctx, indexId) {
    // No file has been written for it yet.
    ctx.stmt('UPDATE indexes SET dirty = 1 WHERE index_id = ?').run(indexId);
  },
  open: (ctx, index) => new VectorHandle(ctx, index),
});

class VectorHandle implements IndexHandle<Float32Array> {
  private readonly id: number;
  private readonly name: string;
  private readonly config: VectorIndexConfig;
  private readonly file: string;
  private index: AnnIndex;
  /** The .hnsw file lags behind SQLite (mirrors indexes.dirty). */
  private dirty = true;

  constructor(
    private readonly ctx: KindContext,
    opened: OpenedIndex<VectorIndexConfig>,
  ) {
    this.id = opened.id;
    this.name = opened.name;
    this.config = opened.config;
    this.file = ctx.pathOf(`${opened.name}.hnsw`);
    if (opened.fresh) {
      ctx.vectorIndexes.removeFile(this.file);
      this.index = ctx.vectorIndexes.empty(this.config);
    } else {
      this.index = this.load();
    }
  }

  private load(): AnnIndex {
    const { db, vectorIndexes } = this.ctx;
    const state = db
      .prepare('SELECT dirty, file_checksum FROM indexes WHERE index_id = ?')
      .get(this.id) as { dirty: number; file_checksum: string | null };
    const dirty = state.dirty === 1;
    const labels = (
      db.prepare('SELECT label FROM vector_members WHERE index_id = ?').all(this.id) as Array<{
        label: number;
      }>
    ).map((r) => r.label);
    let problem: string;
    if (dirty)
      problem = 'the index file was not written after the last change (not closed cleanly)';
    else {
      const loaded = vectorIndexes.load(this.config, this.file, state.file_checksum, labels);
      if (typeof loaded !== 'string') {
        this.dirty = false;
        return loaded;
      }
      problem = loaded;
    }
    const rows = db
      .prepare('SELECT label, vector FROM vector_members WHERE index_id = ? ORDER BY item_seq')
      .iterate(this.id) as Iterable<{ label: number; vector: Uint8Array }>;
    const index = vectorIndexes.rebuild(
      this.config,
      mapIter(rows, (r) => ({ label: r.label, vector: vectorIndexes.fromBlob(r.vector) })),
      labels.length,
    );
    // An index that never held anything needs no warning; anything else is worth knowing about.
    if (labels.length > 0 || !dirty) {
      this.ctx.logger.warn(
        `HybridCollection '${this.ctx.collectionName}': index '${this.name}': ${problem}; rebuilt ${labels.length} vectors from ${this.ctx.databaseFile}`,
      );
    }
    db.prepare('UPDATE indexes SET dirty = 1 WHERE index_id = ?').run(this.id);
    return index;
  }

  acceptVector(value: unknown, context: string): Float32Array {
    const checked = checkVector(value, this.name, this.config.dim, this.config.space);
    if (!checked.ok) throw this.ctx.error('INVALID_INPUT', `${checked.problem} (${context})`);
    return checked.vector;
  }

  async complete(items: Array<PendingItem<Float32Array>>): Promise<void> {
    const missing = items.filter((item) => item.payload === undefined);
    if (missing.length === 0) return;
    const vectors = await this.embed(
      missing.map((item) => item.text),
      missing.map((item) => item.label),
    );
    missing.forEach((item, i) => (item.payload = vectors[i]));
  }

  private async embed(texts: string[], labels: string[]): Promise<Float32Array[]> {
    const { embedder } = this.ctx;
    if (!embedder) {
      throw this.ctx.error(
        'INVALID_INPUT',
        `index '${this.name}' needs a vector for ${labels[0] ?? 'the item'} and the collection has no embedder`,
      );
    }
    const raw = await embedder.embed(texts);
    if (!Array.isArray(raw) || raw.length !== texts.length) {
      throw this.ctx.error(
        'COLLECTION',
        `embedder '${embedder.name}' returned ${Array.isArray(raw) ? raw.length : describe(raw)} vectors for ${texts.length} texts`,
      );
    }
    return raw.map((v, i) =>
      this.acceptVector(v, `${labels[i] ?? 'item'}, embedder '${embedder.name}'`),
    );
  }

  addTx(tx: IndexTx, item: AddedItem<Float32Array>): boolean {
    const vector = item.payload;
    if (!vector) {
      throw this.ctx.error(
        'INTERNAL',
        `index '${this.name}': no vector prepared for item '${item.id}'`,
      );
    }
    this.ctx
      .stmt('INSERT INTO vector_members (item_seq, index_id, label, vector) VALUES (?, ?, ?, ?)')
      .run(item.seq, this.id, item.seq, this.ctx.vectorIndexes.toBlob(vector));
    this.markDirtyTx(tx);
    tx.after(() => this.index.add(item.seq, vector));
    return true;
  }

  removeTx(tx: IndexTx, seq: number): void {
    this.ctx
      .stmt('DELETE FROM vector_members WHERE item_seq = ? AND index_id = ?')
      .run(seq, this.id);
    this.markDirtyTx(tx);
  }

  forget(seq: number): void {
    this.index.remove(seq);
  }

  private markDirtyTx(tx: IndexTx): void {
    const state = tx.state(() => ({ dirtied: false }));
    if (this.dirty || state.dirtied) return;
    this.ctx.stmt('UPDATE indexes SET dirty = 1 WHERE index_id = ?').run(this.id);
    state.dirtied = true;
    tx.after(() => (this.dirty = true));
  }

  async search(query: unknown, options: SearchOptions): Promise<ScoredSeq[]> {
    const vector = await this.queryVector(query);
    this.ctx.assertOpen();
    return this.index
      .search(vector, options.topK)
      .map((hit) => ({ seq: hit.label, score: hit.score }));
  }

  private async queryVector(query: unknown): Promise<Float32Array> {
    if (typeof query === 'string') {
      const problem = textProblem(query, 'query');
      if (problem) throw this.ctx.error('INVALID_INPUT', `index '${this.name}': ${problem}`);
      if (!this.ctx.embedder) {
        throw this.ctx.error(
          'INVALID_INPUT',
          `index '${this.name}' got a text query and the collection has no embedder; pass a vector`,
        );
      }
      return (await this.embed([query], ['query']))[0] as Float32Array;
    }
    return this.acceptVector(query, 'query');
  }

  checkIntegrity(stored: ReadonlySet<number>): string[] {
    return sameSet(stored, this.index.live)
      ? []
      : [`index '${this.name}': hnsw live labels differ from SQLite`];
  }

  flush(): void {
    if (!this.dirty) return;
    const checksum = this.index.write(this.file);
    this.ctx
      .stmt('UPDATE indexes SET dirty = 0, file_checksum = ? WHERE index_id = ?')
      .run(checksum, this.id);
    this.dirty = false;
  }

  drop(): void {
    this.ctx.vectorIndexes.removeFile(this.file);
  }
}

function* mapIter<T, U>(items: Iterable<T>, fn: (item: T) => U): Iterable<U> {
  for (const item of items) yield fn(item);
}
