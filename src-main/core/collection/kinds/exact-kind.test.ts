import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HybridCollection } from '../hybrid-collection';
import { DB_FILE } from '../schema';
import { makeTempDirs } from '../test-helpers';
import type { RetrieveQuery } from '../types';
import {
  defineIndexEngine,
  type AddedItem,
  type IndexHandle,
  type IndexTx,
  type KindContext,
  type OpenedIndex,
  type ScoredSeq,
  type SearchOptions,
} from '../../../../src-shared/index-kinds/engine';
import { indexKindTypes, registerIndexKind } from './registry';

/**
 * The proof that the kind registry is open: a whole index kind — config schema with its
 * defaults, DDL, load, add, remove, search, integrity check — defined and registered in this one
 * file, then used through HybridCollection. Nothing else in the code base knows about it.
 *
 * "exact": an item matches when its whole text equals the query (trimmed; case-folded unless
 * `caseSensitive`). Keys live in its own table; an in-memory key -> seqs map answers queries.
 */
const exactConfigSchema = z.strictObject({
  type: z.literal('exact'),
  caseSensitive: z.boolean().default(false),
});
type ExactConfig = z.output<typeof exactConfigSchema>;

const exactKind = defineIndexEngine({
  type: 'exact',
  configSchema: exactConfigSchema,
  memberTable: 'exact_members',
  ddl: `
    CREATE TABLE IF NOT EXISTS exact_members (
      item_seq INTEGER NOT NULL REFERENCES items(seq) ON DELETE CASCADE,
      index_id INTEGER NOT NULL REFERENCES indexes(index_id) ON DELETE CASCADE,
      key TEXT NOT NULL,
      PRIMARY KEY (item_seq, index_id)
    ) WITHOUT ROWID;`,
  open: (ctx, index) => new ExactHandle(ctx, index),
});

class ExactHandle implements IndexHandle<never> {
  private readonly bySeq = new Map<number, string>();
  private readonly byKey = new Map<string, Set<number>>();

  constructor(
    private readonly ctx: KindContext,
    private readonly index: OpenedIndex<ExactConfig>,
  ) {
    if (index.fresh) return;
    const rows = ctx.db
      .prepare('SELECT item_seq AS seq, key FROM exact_members WHERE index_id = ?')
      .all(index.id) as Array<{ seq: number; key: string }>;
    for (const row of rows) this.remember(row.seq, row.key);
  }

  private key(text: string): string {
    const trimmed = text.trim();
    return this.index.config.caseSensitive ? trimmed : trimmed.toLowerCase();
  }

  private remember(seq: number, key: string): void {
    this.bySeq.set(seq, key);
    const seqs = this.byKey.get(key) ?? new Set<number>();
    seqs.add(seq);
    this.byKey.set(key, seqs);
  }

  addTx(tx: IndexTx, item: AddedItem<never>): boolean {
    const key = this.key(item.text);
    this.ctx
      .stmt('INSERT INTO exact_members (item_seq, index_id, key) VALUES (?, ?, ?)')
      .run(item.seq, this.index.id, key);
    tx.after(() => this.remember(item.seq, key));
    return true;
  }

  removeTx(_tx: IndexTx, seq: number): void {
    this.ctx
      .stmt('DELETE FROM exact_members WHERE item_seq = ? AND index_id = ?')
      .run(seq, this.index.id);
  }

  forget(seq: number): void {
    const key = this.bySeq.get(seq);
    if (key === undefined) return;
    this.bySeq.delete(seq);
    this.byKey.get(key)?.delete(seq);
  }

  search(query: RetrieveQuery, options: SearchOptions): ScoredSeq[] {
    if (typeof query !== 'string') {
      throw this.ctx.error('INVALID_INPUT', `exact index '${this.index.name}' takes a string`);
    }
    const seqs = [...(this.byKey.get(this.key(query)) ?? [])].sort((a, b) => a - b);
    return seqs.slice(0, options.topK).map((seq) => ({ seq, score: 1 }));
  }

  checkIntegrity(stored: ReadonlySet<number>): string[] {
    const same = this.bySeq.size === stored.size && [...stored].every((s) => this.bySeq.has(s));
    return same ? [] : [`index '${this.index.name}': exact keys differ from SQLite`];
  }
}

registerIndexKind(exactKind);

// Typed configs for createIndex: the kind joins the registry's type map from here too.
declare module './registry' {
  interface IndexKindMap {
    exact: typeof exactKind;
  }
}

const temp = makeTempDirs();
afterEach(() => temp.cleanup());

function tables(dir: string): string[] {
  const db = new Database(join(dir, DB_FILE), { readonly: true });
  const rows = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{
    name: string;
  }>;
  db.close();
  return rows.map((r) => r.name);
}

describe('a test-only index kind registered from its own file', () => {
  it('is created, filled, searched, fused, reopened and checked through HybridCollection', async () => {
    const dir = temp.make();
    let c = HybridCollection.open(dir, { name: 'exact-demo' });
    // Its table appears only once an index of the kind exists.
    c.flush();
    expect(tables(dir)).not.toContain('exact_members');
    const info = c.createIndex('whole', { type: 'exact' });
    expect(info).toEqual({
      name: 'whole',
      type: 'exact',
      config: { type: 'exact', caseSensitive: false },
      count: 0,
    });
    c.createIndex('words', { type: 'text' });
    await c.insert([
      { id: 'a', text: 'I adopted a dog' },
      { id: 'b', text: 'I adopted a dog last week' },
      { id: 'c', text: '  i ADOPTED a DOG ' },
      { id: 'd', text: 'pottery class' },
    ]);
    // Exact matching ignores case and surrounding space; the partial match 'b' is no hit.
    const exact = async (col: HybridCollection) =>
      (await col.retrieve('whole', 'I adopted a dog')).map((h) => [h.id, h.score]);
    expect(await exact(c)).toEqual([
      ['a', 1],
      ['c', 1],
    ]);
    // Fused with the text index, the exact hits rank above the partial match.
    const fused = await c.retrieveMulti(
      [
        { index: 'whole', query: 'I adopted a dog' },
        { index: 'words', query: 'I adopted a dog' },
      ],
      { topK: 3 },
    );
    expect(
      fused
        .map((h) => h.id)
        .slice(0, 2)
        .sort(),
    ).toEqual(['a', 'c']);

    expect(c.removeFromIndex('whole', ['c'])).toEqual({ removed: ['c'], notMember: [] });
    expect(c.delete(['a'])).toEqual({ deleted: ['a'], missing: [] });
    await c.insertToIndex('whole', ['c']);
    expect(c.memberIds('whole')).toEqual(['b', 'c', 'd']);
    expect(await exact(c)).toEqual([['c', 1]]);
    expect(c.checkIntegrity()).toEqual([]);

    c.close();
    c = HybridCollection.open(dir, { name: 'exact-demo' });
    expect(await exact(c)).toEqual([['c', 1]]);
    expect(c.listIndexes().map((i) => [i.name, i.type, i.count])).toEqual([
      ['whole', 'exact', 3],
      ['words', 'text', 3],
    ]);
    expect(c.checkIntegrity()).toEqual([]);

    // Deleting the index deletes its rows (the kind's table references indexes ON DELETE CASCADE).
    c.deleteIndex('whole');
    c.close();
    const db = new Database(join(dir, DB_FILE), { readonly: true });
    expect(db.prepare('SELECT COUNT(*) AS n FROM exact_members').get()).toEqual({ n: 0 });
    db.close();
  });

  it('validates its config with its own schema, and the collection names it in errors', () => {
    const c = HybridCollection.open(temp.make(), { name: 'exact-demo' });
    try {
      expect(() => c.createIndex('bad', { type: 'exact', caseSensitive: 'yes' } as never)).toThrow(
        "HybridCollection 'exact-demo': index 'bad' config: caseSensitive: Invalid input: expected boolean, received string",
      );
      expect(() => c.createIndex('bad', { type: 'nope' } as never)).toThrow(
        `HybridCollection 'exact-demo': index 'bad' config: type: must be one of ${indexKindTypes().join(', ')}, got "nope"`,
      );
      c.createIndex('whole', { type: 'exact' });
      expect(() => c.oldest('whole', 1)).toThrow(
        "HybridCollection 'exact-demo': index 'whole' is a exact index, not a fifo index",
      );
    } finally {
      c.close();
    }
  });
});
