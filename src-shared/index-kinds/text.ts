import { z } from 'zod';
import type {
  AddedItem,
  FullTextIndex,
  IndexHandle,
  IndexTx,
  KindContext,
  OpenedIndex,
  ScoredSeq,
  SearchOptions,
} from './engine';
import { describe } from './validate';
import { defineIndexKind } from './kind';
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

/**
 * BM25 over the turns' words (the core's text index, ctx.textIndexes).
 * Membership is stored (`text_members`), with the member's own index text when the caller gave
 * one (`indexTexts`); the index is rebuilt on open from that text, or the item's text when there
 * is none.
 */
export const textKind = defineIndexKind({
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
  memberTable: 'text_members',
  open: (ctx, index) => new TextHandle(ctx, index),
});

/** The payload: the text indexed instead of the item's, when the caller gave one. */
class TextHandle implements IndexHandle<string> {
  private readonly id: number;
  private readonly name: string;
  private readonly index: FullTextIndex;

  constructor(
    private readonly ctx: KindContext,
    opened: OpenedIndex<TextIndexConfig>,
  ) {
    this.id = opened.id;
    this.name = opened.name;
    this.index = ctx.textIndexes.create(opened.config);
    if (opened.fresh) return;
    const rows = ctx.db
      .prepare(
        'SELECT t.item_seq AS seq, COALESCE(t.index_text, i.text) AS text FROM text_members t JOIN items i ON i.seq = t.item_seq WHERE t.index_id = ? ORDER BY t.item_seq',
      )
      .iterate(this.id) as Iterable<{ seq: number; text: string }>;
    for (const row of rows) this.index.add(row.seq, row.text);
  }

  acceptIndexText(text: string): string {
    return text;
  }

  addTx(tx: IndexTx, item: AddedItem<string>): boolean {
    this.ctx
      .stmt('INSERT INTO text_members (item_seq, index_id, index_text) VALUES (?, ?, ?)')
      .run(item.seq, this.id, item.payload ?? null);
    tx.after(() => this.index.add(item.seq, item.payload ?? item.text));
    return true;
  }

  removeTx(_tx: IndexTx, seq: number): void {
    this.ctx.stmt('DELETE FROM text_members WHERE item_seq = ? AND index_id = ?').run(seq, this.id);
  }

  forget(seq: number): void {
    this.index.remove(seq);
  }

  search(query: unknown, options: SearchOptions): ScoredSeq[] {
    if (typeof query !== 'string') {
      throw this.ctx.error(
        'INVALID_INPUT',
        `index '${this.name}' is a text index; its query must be a string, got ${describe(query)}`,
      );
    }
    return this.index.search(query, options.topK);
  }

  checkIntegrity(stored: ReadonlySet<number>): string[] {
    const same = this.index.size === stored.size && [...stored].every((seq) => this.index.has(seq));
    return same ? [] : [`index '${this.name}': text index documents differ from SQLite`];
  }
}
