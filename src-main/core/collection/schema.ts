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
  {
    version: 3,
    description:
      'indexes.type without CHECK: the kind registry validates it, so a new kind needs no rebuild',
    up(db) {
      // SQLite cannot drop a CHECK in place: rebuild the table (its rows keep their ids, which the
      // member tables reference) and keep its AUTOINCREMENT counter, so a deleted index's id is
      // never reused. migrate() turns foreign keys off around this, or dropping the old table
      // would cascade into every membership.
      const counter = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'indexes'").get() as
        { seq: number } | undefined;
      db.exec(`
        CREATE TABLE indexes_new (
          index_id INTEGER PRIMARY KEY AUTOINCREMENT,
          name TEXT NOT NULL UNIQUE,
          type TEXT NOT NULL,
          config TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          -- vector indexes: 1 while the .hnsw file lags behind the members stored here
          dirty INTEGER NOT NULL DEFAULT 0,
          -- vector indexes: sha1 of the .hnsw file as last written
          file_checksum TEXT
        );
        INSERT INTO indexes_new (index_id, name, type, config, created_at, dirty, file_checksum)
          SELECT index_id, name, type, config, created_at, dirty, file_checksum FROM indexes;
        DROP TABLE indexes;
        ALTER TABLE indexes_new RENAME TO indexes;
      `);
      db.prepare("DELETE FROM sqlite_sequence WHERE name = 'indexes'").run();
      if (counter) {
        db.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('indexes', ?)").run(
          counter.seq,
        );
      }
    },
  },
  {
    version: 4,
    description:
      'text_members.index_text: the text a text index indexes for a member when it is not the item text',
    up(db) {
      // NULL for every existing member: they keep indexing the item's own text.
      db.exec('ALTER TABLE text_members ADD COLUMN index_text TEXT');
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
 *
 * Foreign keys are off while migrating (SQLite's own procedure for rebuilding a table: with them
 * on, dropping a referenced table deletes every referencing row) and each migration must leave
 * no dangling reference (`PRAGMA foreign_key_check`) before it commits.
 */
export function migrate(db: Database.Database, target: number = SCHEMA_VERSION): number {
  const found = readSchemaVersion(db);
  const pending = MIGRATIONS.filter((m) => m.version > found && m.version <= target);
  if (pending.length === 0) return found;
  const foreignKeys = db.pragma('foreign_keys', { simple: true }) as number;
  // The pragma is a no-op inside a transaction, so it is switched here, around them.
  db.pragma('foreign_keys = OFF');
  try {
    for (const migration of pending) {
      db.transaction(() => {
        migration.up(db);
        const dangling = db.pragma('foreign_key_check') as unknown[];
        if (dangling.length > 0) {
          throw new Error(
            `schema migration ${migration.version} (${migration.description}) left ${dangling.length} dangling references`,
          );
        }
        db.pragma(`user_version = ${migration.version}`);
      })();
    }
  } finally {
    db.pragma(`foreign_keys = ${foreignKeys === 1 ? 'ON' : 'OFF'}`);
  }
  return found;
}
