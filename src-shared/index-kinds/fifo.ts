import { z } from 'zod';
import { defineIndexKindFace } from './face';
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

/** Entries in arrival order (src-main/core/collection/kinds/fifo.ts). */
export const fifoFace = defineIndexKindFace({
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
});
