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
    expect(migrate(db)).toBe(1);
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

  it('refuses a database from a newer version, naming both versions', () => {
    const dir = temp.make();
    const db = new Database(join(dir, DB_FILE));
    db.pragma('user_version = 99');
    db.close();
    expect(() => HybridCollection.open(dir, { name: 'future' })).toThrow(
      "HybridCollection 'future': collection.db has schema version 99, newer than this build supports (2); open it with a newer Memory Workbench",
    );
  });
});
