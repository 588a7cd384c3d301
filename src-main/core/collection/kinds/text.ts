import { textFace, type TextIndexConfig } from '../../../../src-shared/index-kinds/text';
import { TextIndex } from '../text-index';
import type { RetrieveQuery } from '../types';
import { describe } from '../validate';
import {
  defineIndexKind,
  type AddedItem,
  type IndexHandle,
  type IndexTx,
  type KindContext,
  type OpenedIndex,
  type ScoredSeq,
  type SearchOptions,
} from './kind';

/**
 * BM25 over flexsearch candidates (text-index.ts). Membership is stored (`text_members`), with
 * the member's own index text when the caller gave one (`indexTexts`); the index is rebuilt on
 * open from that text, or the item's text when there is none.
 */
export const textKind = defineIndexKind({
  type: textFace.type,
  configSchema: textFace.configSchema,
  memberTable: 'text_members',
  open: (ctx, index) => new TextHandle(ctx, index),
});

/** The payload: the text indexed instead of the item's, when the caller gave one. */
class TextHandle implements IndexHandle<string> {
  private readonly id: number;
  private readonly name: string;
  private readonly index: TextIndex;

  constructor(
    private readonly ctx: KindContext,
    opened: OpenedIndex<TextIndexConfig>,
  ) {
    this.id = opened.id;
    this.name = opened.name;
    this.index = new TextIndex(opened.config);
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

  search(query: RetrieveQuery, options: SearchOptions): ScoredSeq[] {
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
