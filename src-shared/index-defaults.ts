/**
 * Defaults of the collection's built-in index kinds, declared once. The kinds' config schemas
 * (src-main/core/collection/kinds/) and the design schema (designs.ts), which shows the same
 * settings in the Collections view, both read them, so a design left at its defaults builds
 * exactly the index the engine would build from `{type}` alone.
 */
export const INDEX_DEFAULTS = {
  vector: {
    space: 'cosine',
    M: 16,
    efConstruction: 100,
    ef: 64,
    initialCapacity: 1024,
    seed: 100,
  },
  text: {
    lowercase: true,
    foldAccents: true,
    stopWords: true,
    stem: true,
    prefix: false,
    k1: 1.2,
    b: 0.75,
  },
  fifo: { overflow: 'evict-oldest' },
  sorted: { valueType: 'number' },
  graph: { directed: false, weighted: true, decay: 0.5 },
} as const;
