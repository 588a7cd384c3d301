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
import { defineIndexKind } from './kind';
import { designIndexName, int, numberField } from './fields';

/** The fifo kind's defaults, declared once: the collection's config and the design share them. */
export const FIFO_DEFAULTS = { overflow: 'evict-oldest', designCapacity: 20 } as const;

export const fifoIndexConfigSchema = z.strictObject({
  type: z.literal('fifo'),
  capacity: z.number().int().min(1).max(1_000_000_000),
  /**
   * What happens when an insert would exceed capacity. Either way the insert result reports it:
   * 'evict-oldest' removes the oldest entries from this index (the items stay in storage);
   * 'reject' leaves the newest items out of this index (they are still stored and in other indexes).
   */
  overflow: z.enum(['evict-oldest', 'reject']).default(FIFO_DEFAULTS.overflow),
});
export type FifoIndexConfig = z.output<typeof fifoIndexConfigSchema>;

const designSchema = z.strictObject({
  name: designIndexName,
  type: z.literal('fifo'),
  /** The newest `capacity` turns; older ones leave this index (they stay in the others). */
  capacity: int(1, 1_000_000).default(FIFO_DEFAULTS.designCapacity),
});

/** Entries in arrival order (`fifo_entries.pos`); overflow is reported, never silent. */
export const fifoKind = defineIndexKind({
  type: 'fifo',
  description: 'a window of the newest turns',
  configSchema: fifoIndexConfigSchema,
  design: {
    schema: designSchema,
    fields: [numberField(designSchema.shape, 'capacity', 'Capacity', 'newest turns kept')],
    // The window is the design's intent: older turns leave it (counted as evicted in stats).
    collectionConfig: (index) => ({
      type: 'fifo' as const,
      capacity: index.capacity,
      overflow: 'evict-oldest' as const,
    }),
    query: () => ({ query: { order: 'newest' } }),
  },
  memberTable: 'fifo_entries',
  open: (ctx, index) => new FifoHandle(ctx, index),
});

const fifoQuerySchema = z.strictObject({ order: z.enum(['newest', 'oldest']).default('newest') });

class FifoHandle implements IndexHandle<never> {
  private readonly id: number;
  private readonly name: string;
  private readonly config: FifoIndexConfig;
  private nextPos: number;

  constructor(
    private readonly ctx: KindContext,
    opened: OpenedIndex<FifoIndexConfig>,
  ) {
    this.id = opened.id;
    this.name = opened.name;
    this.config = opened.config;
    const row = ctx.db
      .prepare('SELECT MAX(pos) AS pos FROM fifo_entries WHERE index_id = ?')
      .get(this.id) as { pos: number | null };
    this.nextPos = (row.pos ?? 0) + 1;
  }

  private positions(tx: IndexTx): { next: number | undefined } {
    return tx.state(() => ({ next: undefined as number | undefined }));
  }

  addTx(tx: IndexTx, item: AddedItem<never>): boolean {
    if (this.config.overflow === 'reject' && tx.size() >= this.config.capacity) {
      tx.overflow(this.config.overflow).rejected.push(item.id);
      return false;
    }
    const positions = this.positions(tx);
    const pos = positions.next ?? this.nextPos;
    positions.next = pos + 1;
    this.ctx
      .stmt('INSERT INTO fifo_entries (item_seq, index_id, pos) VALUES (?, ?, ?)')
      .run(item.seq, this.id, pos);
    return true;
  }

  /** Evicts the oldest entries this transaction pushed over capacity. */
  finishTx(tx: IndexTx): void {
    const nextPos = this.positions(tx).next;
    if (nextPos === undefined) return;
    tx.after(() => (this.nextPos = nextPos));
    if (this.config.overflow !== 'evict-oldest') return;
    const excess = tx.size() - this.config.capacity;
    if (excess <= 0) return;
    // The oldest go first, but not an item the call itself named (an existing member named
    // again must still be a member afterwards); those only when capacity cannot hold them all.
    const { named } = tx;
    const oldest = this.ctx
      .stmt(
        'SELECT f.item_seq AS seq, i.id AS id FROM fifo_entries f JOIN items i ON i.seq = f.item_seq WHERE f.index_id = ? ORDER BY f.pos ASC LIMIT ?',
      )
      .all(this.id, excess + named.size) as Array<{ seq: number; id: string }>;
    const victims = [
      ...oldest.filter((row) => !named.has(row.seq)),
      ...oldest.filter((row) => named.has(row.seq)),
    ].slice(0, excess);
    const report = tx.overflow(this.config.overflow);
    for (const victim of victims) {
      tx.remove(victim.seq);
      report.evicted.push(victim.id);
    }
  }

  removeTx(_tx: IndexTx, seq: number): void {
    this.ctx.stmt('DELETE FROM fifo_entries WHERE item_seq = ? AND index_id = ?').run(seq, this.id);
  }

  search(query: unknown, options: SearchOptions): ScoredSeq[] {
    const { order } = this.ctx.parse(
      fifoQuerySchema,
      query ?? {},
      `query for fifo index '${this.name}'`,
    );
    const rows = this.ctx
      .stmt(
        `SELECT item_seq AS seq FROM fifo_entries WHERE index_id = ? ORDER BY pos ${order === 'newest' ? 'DESC' : 'ASC'} LIMIT ?`,
      )
      .all(this.id, options.topK) as Array<{ seq: number }>;
    return rows.map((row, rank) => ({ seq: row.seq, score: 1 / (1 + rank) }));
  }

  oldest(n: number): number[] {
    const rows = this.ctx
      .stmt('SELECT item_seq AS seq FROM fifo_entries WHERE index_id = ? ORDER BY pos ASC LIMIT ?')
      .all(this.id, n) as Array<{ seq: number }>;
    return rows.map((row) => row.seq);
  }
}
