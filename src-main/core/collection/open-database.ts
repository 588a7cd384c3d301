import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { WorkbenchError } from '../../../src-shared/errors';
import { openSqlite } from '../sqlite';
import { DB_FILE, SCHEMA_VERSION, migrate, readSchemaVersion } from './schema';

/**
 * The collection directory's database, opened (created when absent) in WAL mode and migrated to
 * this build's schema. A database written by a newer build is refused, untouched.
 */
export function openCollectionDatabase(absolute: string, name: string): Database.Database {
  try {
    mkdirSync(absolute, { recursive: true });
    if (!statSync(absolute).isDirectory()) throw new Error('not a directory');
  } catch (error) {
    throw new WorkbenchError(
      'COLLECTION',
      `HybridCollection '${name}': cannot use ${absolute} as a collection directory (${(error as Error).message})`,
      { where: name, cause: error },
    );
  }
  let db: Database.Database;
  try {
    db = openSqlite(join(absolute, DB_FILE));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
  } catch (error) {
    throw new WorkbenchError(
      'COLLECTION',
      `HybridCollection '${name}': cannot open ${join(absolute, DB_FILE)} (${(error as Error).message})`,
      { where: name, cause: error },
    );
  }
  try {
    const found = readSchemaVersion(db);
    if (found > SCHEMA_VERSION) {
      throw new WorkbenchError(
        'COLLECTION',
        `HybridCollection '${name}': ${DB_FILE} has schema version ${found}, newer than this build supports (${SCHEMA_VERSION}); open it with a newer Memory Workbench`,
        { where: name },
      );
    }
    migrate(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
