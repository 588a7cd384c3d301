import { z } from 'zod';
import type {
  AddedItem,
  IncomingItem,
  IndexHandle,
  IndexTx,
  KindContext,
  OpenedIndex,
  Preparation,
  ScoredSeq,
  SearchOptions,
} from './engine';
import { describe, readPath } from './validate';
import { defineIndexKind } from './kind';
import { designIndexName, oneOf, selectField } from './fields';

/**
 * Turn metadata a sorted index can order by, with its value type. `position` is the turn's place
 * in the whole conversation (0-based), which the designs engine adds to every turn it stores.
 */
export const TURN_SORT_FIELDS = {
  position: 'number',
  sessionIndex: 'number',
  turnIndex: 'number',
  sessionDateTime: 'string',
  speaker: 'string',
  diaId: 'string',
} as const;
export type TurnSortField = keyof typeof TURN_SORT_FIELDS;
const SORT_FIELD_NAMES = Object.keys(TURN_SORT_FIELDS) as [TurnSortField, ...TurnSortField[]];

/** The sorted kind's defaults, declared once: the collection's config and the design share them. */
export const SORTED_DEFAULTS = { valueType: 'number' } as const;

export const sortedIndexConfigSchema = z.strictObject({
  type: z.literal('sorted'),
  /** Metadata field; dotted paths (`time.ts`) reach into nested objects. */
  field: z.string().min(1).max(200),
  valueType: z.enum(['number', 'string']).default(SORTED_DEFAULTS.valueType),
});
export type SortedIndexConfig = z.output<typeof sortedIndexConfigSchema>;

const designSchema = z.strictObject({
  name: designIndexName,
  type: z.literal('sorted'),
  field: oneOf(SORT_FIELD_NAMES).default('position'),
  /** desc: the largest values first (the latest turns, for position). */
  order: oneOf(['asc', 'desc']).default('desc'),
});

/** Items ordered by a metadata field (`sorted_entries.value`); range and top-n queries. */
export const sortedKind = defineIndexKind({
  type: 'sorted',
  description: 'turns ordered by a metadata field',
  configSchema: sortedIndexConfigSchema,
  design: {
    schema: designSchema,
    fields: [
      selectField(designSchema.shape, 'field', 'Field'),
      selectField(designSchema.shape, 'order', 'Order'),
    ],
    collectionConfig: (index) => ({
      type: 'sorted' as const,
      field: index.field,
      valueType: TURN_SORT_FIELDS[index.field],
    }),
    query: (index) => ({ query: { order: index.order } }),
  },
  memberTable: 'sorted_entries',
  open: (ctx, index) => new SortedHandle(ctx, index),
});

const sortedQuerySchema = z.strictObject({
  order: z.enum(['asc', 'desc']).default('desc'),
  min: z.union([z.number(), z.string()]).optional(),
  max: z.union([z.number(), z.string()]).optional(),
  top: z.number().int().min(1).optional(),
});

type SortValue = number | string;

class SortedHandle implements IndexHandle<SortValue> {
  private readonly id: number;
  private readonly name: string;
  private readonly config: SortedIndexConfig;

  constructor(
    private readonly ctx: KindContext,
    opened: OpenedIndex<SortedIndexConfig>,
  ) {
    this.id = opened.id;
    this.name = opened.name;
    this.config = opened.config;
  }

  /**
   * An item without the field is left out of this index when it joins by default ("every
   * index"), and refused when the caller named this index.
   */
  prepare(item: IncomingItem, explicit: boolean): Preparation<SortValue> {
    const { field, valueType } = this.config;
    const value = readPath(item.metadata, field);
    if (value === undefined || value === null) {
      if (explicit) {
        throw this.ctx.error(
          'INVALID_INPUT',
          `${item.label} has no metadata field '${field}' for sorted index '${this.name}'`,
        );
      }
      return { skip: `no metadata field '${field}'` };
    }
    const ok =
      valueType === 'number'
        ? typeof value === 'number' && Number.isFinite(value)
        : typeof value === 'string';
    if (!ok) {
      throw this.ctx.error(
        'INVALID_INPUT',
        `${item.label}: metadata field '${field}' for sorted index '${this.name}' must be a ${valueType === 'number' ? 'finite number' : 'string'}, got ${describe(value)}`,
      );
    }
    return { payload: value as SortValue };
  }

  addTx(_tx: IndexTx, item: AddedItem<SortValue>): boolean {
    if (item.payload === undefined) {
      throw this.ctx.error('INTERNAL', `index '${this.name}': no sort value for item '${item.id}'`);
    }
    this.ctx
      .stmt('INSERT INTO sorted_entries (item_seq, index_id, value) VALUES (?, ?, ?)')
      .run(item.seq, this.id, item.payload);
    return true;
  }

  removeTx(_tx: IndexTx, seq: number): void {
    this.ctx
      .stmt('DELETE FROM sorted_entries WHERE item_seq = ? AND index_id = ?')
      .run(seq, this.id);
  }

  search(query: unknown, options: SearchOptions): ScoredSeq[] {
    const q = this.ctx.parse(
      sortedQuerySchema,
      query ?? {},
      `query for sorted index '${this.name}'`,
    );
    const { valueType } = this.config;
    for (const bound of ['min', 'max'] as const) {
      const value = q[bound];
      if (value !== undefined && typeof value !== valueType) {
        throw this.ctx.error(
          'INVALID_INPUT',
          `sorted index '${this.name}' holds ${valueType}s; query.${bound} ${describe(value)} is not one`,
        );
      }
    }
    const where = ['index_id = ?'];
    const params: SortValue[] = [this.id];
    if (q.min !== undefined) {
      where.push('value >= ?');
      params.push(q.min);
    }
    if (q.max !== undefined) {
      where.push('value <= ?');
      params.push(q.max);
    }
    const dir = q.order === 'asc' ? 'ASC' : 'DESC';
    const limit = Math.min(options.topK, q.top ?? options.topK);
    const rows = this.ctx
      .stmt(
        `SELECT item_seq AS seq, value FROM sorted_entries WHERE ${where.join(' AND ')} ORDER BY value ${dir}, item_seq ASC LIMIT ?`,
      )
      .all(...params, limit) as Array<{ seq: number; value: SortValue }>;
    return rows.map((row, rank) => ({
      seq: row.seq,
      score:
        typeof row.value === 'number'
          ? q.order === 'asc'
            ? -row.value
            : row.value
          : 1 / (1 + rank),
    }));
  }
}
