import { z } from 'zod';
import { defineIndexKindFace } from './face';
import { designIndexName, flag, num, numberField } from './fields';

/** The text kind's defaults, declared once: the collection's config and the design share them. */
export const TEXT_DEFAULTS = {
  lowercase: true,
  foldAccents: true,
  stopWords: true,
  stem: true,
  prefix: false,
  k1: 1.2,
  b: 0.75,
} as const;
const D = TEXT_DEFAULTS;

export const textIndexConfigSchema = z.strictObject({
  type: z.literal('text'),
  lowercase: z.boolean().default(D.lowercase),
  foldAccents: z.boolean().default(D.foldAccents),
  stopWords: z.boolean().default(D.stopWords),
  stem: z.boolean().default(D.stem),
  /** true: a query term also matches longer words that start with it (flexsearch `forward`). */
  prefix: z.boolean().default(D.prefix),
  k1: z.number().min(0).max(10).default(D.k1),
  b: z.number().min(0).max(1).default(D.b),
});
export type TextIndexConfig = z.output<typeof textIndexConfigSchema>;

const designSchema = z.strictObject({
  name: designIndexName,
  type: z.literal('text'),
  /** BM25 term saturation and length normalisation. */
  k1: num(0, 10).default(D.k1),
  b: num(0, 1).default(D.b),
  stem: flag.default(D.stem),
  stopWords: flag.default(D.stopWords),
});

/** BM25 over the turns' words (src-main/core/collection/kinds/text.ts). */
export const textFace = defineIndexKindFace({
  type: 'text',
  description: 'BM25 over stemmed words',
  configSchema: textIndexConfigSchema,
  design: {
    schema: designSchema,
    fields: [
      numberField(designSchema.shape, 'k1', 'BM25 k1'),
      numberField(designSchema.shape, 'b', 'BM25 b'),
      { key: 'stem', label: 'Porter stemming', kind: 'bool' },
      { key: 'stopWords', label: 'Drop stop words', kind: 'bool' },
    ],
    collectionConfig: (index) => ({
      type: 'text' as const,
      k1: index.k1,
      b: index.b,
      stem: index.stem,
      stopWords: index.stopWords,
    }),
    query: (index, { directQuery }) => ({ query: directQuery(index.name) }),
  },
});
