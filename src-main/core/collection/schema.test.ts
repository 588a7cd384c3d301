import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { textHash } from './hash';
import { DB_FILE, HybridCollection } from './hybrid-collection';
import { MIGRATIONS, SCHEMA_VERSION, migrate, readSchemaVersion } from './schema';
import { makeTempDirs } from './test-helpers';

const temp = makeTempDirs();
afterEach(() => temp.cleanup());

function tables(db: Database.Database): string[] {
  return (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{
      name: string;
    }>
  ).map((r) => r.name);
}

describe('schema migrations', () => {
  it('numbers migrations 1..n without gaps', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
  });

  it('migration 1 creates items, the index registry and the membership tables', () => {
    const db = new Database(':memory:');
    expect(migrate(db, 1)).toBe(0);
    expect(readSchemaVersion(db)).toBe(1);
    expect(tables(db)).toEqual([
      'fifo_entries',
      'graph_edges',
      'graph_nodes',
      'indexes',
      'items',
      'sorted_entries',
      'sqlite_sequence',
      'text_members',
      'vector_members',
    ]);
    db.close();
  });

  it('migration 2 adds items.text_hash and backfills it for existing rows', () => {
    const db = new Database(':memory:');
    migrate(db, 1);
    db.prepare(
      "INSERT INTO items (id, text, created_at) VALUES ('a', 'hello there', 1), ('b', 'général', 2)",
    ).run();
    expect(migrate(db, 2)).toBe(1);
    expect(readSchemaVersion(db)).toBe(2);
    const rows = db.prepare('SELECT id, text, text_hash FROM items ORDER BY seq').all() as Array<{
      id: string;
      text: string;
      text_hash: number;
    }>;
    expect(rows.map((r) => r.text_hash)).toEqual([textHash('hello there'), textHash('général')]);
    db.close();
  });

  it('opens a version-1 collection file, migrates it, and dedups against its old items', async () => {
    const dir = temp.make();
    const db = new Database(join(dir, DB_FILE));
    migrate(db, 1);
    db.prepare(
      "INSERT INTO items (id, text, created_at) VALUES ('old', 'I adopted a dog', 1)",
    ).run();
    db.close();

    const c = HybridCollection.open(dir, { name: 'v1' });
    const result = await c.insert({ text: 'I adopted a dog' }, { dedup: true });
    expect(result.ids).toEqual(['old']);
    expect(result.deduplicated).toEqual(['old']);
    expect(c.count()).toBe(1);
    c.close();
  });

  it('migration 3 drops the CHECK on indexes.type and keeps every index, membership and id of a version-2 collection', async () => {
    // A version-2 collection as the previous build wrote it: foreign keys on, two indexes with
    // members, and a third index deleted (so the next index id must be 4, not 3).
    const dir = temp.make();
    const db = new Database(join(dir, DB_FILE));
    db.pragma('foreign_keys = ON');
    migrate(db, 2);
    // migrate() switches foreign keys off while it runs, and back on.
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    const item = db.prepare(
      'INSERT INTO items (id, text, created_at, text_hash) VALUES (?, ?, 1, ?)',
    );
    for (const [id, text] of [
      ['a', 'I adopted a dog'],
      ['b', 'we went hiking'],
      ['c', 'a pottery class'],
    ] as const) {
      item.run(id, text, textHash(text));
    }
    db.exec(`
      INSERT INTO indexes (name, type, config, created_at) VALUES
        ('words', 'text', '{"type":"text"}', 1),
        ('recent', 'fifo', '{"type":"fifo","capacity":2,"overflow":"evict-oldest"}', 1),
        ('dropped', 'text', '{"type":"text"}', 1);
      DELETE FROM indexes WHERE name = 'dropped';
      INSERT INTO text_members (item_seq, index_id) VALUES (1, 1), (2, 1), (3, 1);
      INSERT INTO fifo_entries (item_seq, index_id, pos) VALUES (2, 2, 1), (3, 2, 2);
    `);
    expect(() =>
      db
        .prepare(
          "INSERT INTO indexes (name, type, config, created_at) VALUES ('x', 'exact', '{}', 1)",
        )
        .run(),
    ).toThrow('CHECK constraint failed');
    db.close();

    const c = HybridCollection.open(dir, { name: 'v2' });
    expect(c.memberIds('words')).toEqual(['a', 'b', 'c']);
    expect((await c.retrieve('words', 'dog')).map((h) => h.id)).toEqual(['a']);
    expect(c.oldest('recent', 10).map((i) => i.id)).toEqual(['b', 'c']);
    expect(c.checkIntegrity()).toEqual([]);
    c.createIndex('later', { type: 'text' });
    c.close();

    const after = new Database(join(dir, DB_FILE));
    expect(readSchemaVersion(after)).toBe(SCHEMA_VERSION);
    const ids = after.prepare('SELECT name, index_id FROM indexes ORDER BY index_id').all();
    expect(ids).toEqual([
      { name: 'words', index_id: 1 },
      { name: 'recent', index_id: 2 },
      { name: 'later', index_id: 4 },
    ]);
    // Any type can be stored now; the registry decides which ones a collection opens.
    after
      .prepare(
        "INSERT INTO indexes (name, type, config, created_at) VALUES ('x', 'exact', '{}', 1)",
      )
      .run();
    after.close();
  });

  it('migration 4 gives text members an index text; members from before keep the item text', async () => {
    const dir = temp.make();
    const db = new Database(join(dir, DB_FILE));
    migrate(db, 3);
    const item = db.prepare(
      'INSERT INTO items (id, text, created_at, text_hash) VALUES (?, ?, 1, ?)',
    );
    for (const [id, text] of [
      ['a', 'I adopted a dog'],
      ['b', 'we went hiking'],
    ] as const) {
      item.run(id, text, textHash(text));
    }
    db.exec(`
      INSERT INTO indexes (name, type, config, created_at) VALUES ('words', 'text', '{"type":"text"}', 1);
      INSERT INTO text_members (item_seq, index_id) VALUES (1, 1), (2, 1);
    `);
    db.close();

    const c = HybridCollection.open(dir, { name: 'v3' });
    expect((await c.retrieve('words', 'dog')).map((h) => h.id)).toEqual(['a']);
    await c.insert({ id: 'c', text: 'yes, a puppy', indexTexts: { words: 'a dog? yes, a puppy' } });
    expect((await c.retrieve('words', 'dog')).map((h) => h.id).sort()).toEqual(['a', 'c']);
    expect(c.checkIntegrity()).toEqual([]);
    c.close();

    const after = new Database(join(dir, DB_FILE));
    expect(readSchemaVersion(after)).toBe(4);
    expect(
      after.prepare('SELECT item_seq, index_text FROM text_members ORDER BY item_seq').all(),
    ).toEqual([
      { item_seq: 1, index_text: null },
      { item_seq: 2, index_text: null },
      { item_seq: 3, index_text: 'a dog? yes, a puppy' },
    ]);
    after.close();
  });

  it('refuses a database from a newer version, naming both versions', () => {
    const dir = temp.make();
    const db = new Database(join(dir, DB_FILE));
    db.pragma('user_version = 99');
    db.close();
    expect(() => HybridCollection.open(dir, { name: 'future' })).toThrow(
      "HybridCollection 'future': collection.db has schema version 99, newer than this build supports (4); open it with a newer Memory Workbench",
    );
  });
});
