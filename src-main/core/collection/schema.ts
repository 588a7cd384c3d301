import type Database from 'better-sqlite3';
import { textHash } from './hash';

/** The collection's database file, inside the collection directory. */
export const DB_FILE = 'collection.db';

/**
 * Schema migrations, applied in order. `PRAGMA user_version` holds how many have run. A migration
 * never changes once released: fix forward with a new one (and a test beside the others).
 */
export interface Migration {
  version: number;
  description: string;
  up(db: Database.Database): void;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'items, index registry and per-index membership tables',
    up(db) {
      // Member tables key on (item_seq, index_id) so deleting an item (ON DELETE CASCADE) finds
      // its rows through the primary key instead of scanning every table.
      db.exec(`
        CREATE TABLE items (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          id TEXT NOT NULL UNIQUE,
          text TEXT NOT NULL,
          metadata TEXT NOT NULL DEFAULT '{}',
          created_at INTEGER NOT NULL
        );
        CREATE TABLE indexes (
          index_id INTEGER PRIMARY KEY AUTOINCREMENT,
          name TEXT NOT NULL UNIQUE,
          type TEXT NOT NULL CHECK (type IN ('vector', 'text', 'fifo', 'sorted', 'graph')),
          config TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          -- vector indexes: 1 while the .hnsw file lags behind the members stored here
          dirty INTEGER NOT NULL DEFAULT 0,
          -- vector indexes: sha1 of the .hnsw file as last written
          file_checksum TEXT
        );
        CREATE TABLE vector_members (
          item_seq INTEGER NOT NULL REFERENCES items(seq) ON DELETE CASCADE,
          index_id INTEGER NOT NULL REFERENCES indexes(index_id) ON DELETE CASCADE,
          label INTEGER NOT NULL,
          vector BLOB NOT NULL,
          PRIMARY KEY (item_seq, index_id)
        ) WITHOUT ROWID;
        CREATE TABLE text_members (
          item_seq INTEGER NOT NULL REFERENCES items(seq) ON DELETE CASCADE,
          index_id INTEGER NOT NULL REFERENCES indexes(index_id) ON DELETE CASCADE,
          PRIMARY KEY (item_seq, index_id)
        ) WITHOUT ROWID;
        CREATE TABLE fifo_entries (
          item_seq INTEGER NOT NULL REFERENCES items(seq) ON DELETE CASCADE,
          index_id INTEGER NOT NULL REFERENCES indexes(index_id) ON DELETE CASCADE,
          pos INTEGER NOT NULL,
          PRIMARY KEY (item_seq, index_id)
        ) WITHOUT ROWID;
        CREATE INDEX fifo_entries_pos ON fifo_entries (index_id, pos);
        CREATE TABLE sorted_entries (
          item_seq INTEGER NOT NULL REFERENCES items(seq) ON DELETE CASCADE,
          index_id INTEGER NOT NULL REFERENCES indexes(index_id) ON DELETE CASCADE,
          value NOT NULL,
          PRIMARY KEY (item_seq, index_id)
        ) WITHOUT ROWID;
        CREATE INDEX sorted_entries_value ON sorted_entries (index_id, value, item_seq);
        CREATE TABLE graph_nodes (
          item_seq INTEGER NOT NULL REFERENCES items(seq) ON DELETE CASCADE,
          index_id INTEGER NOT NULL REFERENCES indexes(index_id) ON DELETE CASCADE,
          PRIMARY KEY (item_seq, index_id)
        ) WITHOUT ROWID;
        CREATE TABLE graph_edges (
          src INTEGER NOT NULL REFERENCES items(seq) ON DELETE CASCADE,
          index_id INTEGER NOT NULL REFERENCES indexes(index_id) ON DELETE CASCADE,
          dst INTEGER NOT NULL REFERENCES items(seq) ON DELETE CASCADE,
          weight REAL NOT NULL,
          PRIMARY KEY (src, index_id, dst)
        ) WITHOUT ROWID;
        CREATE INDEX graph_edges_dst ON graph_edges (dst, index_id);
      `);
    },
  },
  {
    version: 2,
    description: 'items.text_hash for dedup lookups, backfilled',
    up(db) {
      db.exec(`
        ALTER TABLE items ADD COLUMN text_hash INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX items_text_hash ON items (text_hash);
      `);
      const update = db.prepare('UPDATE items SET text_hash = ? WHERE seq = ?');
      const rows = db.prepare('SELECT seq, text FROM items').all() as Array<{
        seq: number;
        text: string;
      }>;
      for (const row of rows) update.run(textHash(row.text), row.seq);
    },
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export function readSchemaVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Brings the database to `target` (default: the newest version), each migration in its own
 * transaction together with the version bump. Returns the version found before migrating.
 * The caller refuses databases newer than SCHEMA_VERSION before calling this.
 */
export function migrate(db: Database.Database, target: number = SCHEMA_VERSION): number {
  const found = readSchemaVersion(db);
  for (const migration of MIGRATIONS) {
    if (migration.version <= found || migration.version > target) continue;
    db.transaction(() => {
      migration.up(db);
      db.pragma(`user_version = ${migration.version}`);
    })();
  }
  return found;
}
