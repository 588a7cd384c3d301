import { z } from 'zod';
import { defineIndexKindFace } from './face';
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

/** Members ordered by a metadata field (src-main/core/collection/kinds/sorted.ts). */
export const sortedFace = defineIndexKindFace({
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
});
