import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { WorkbenchError } from '../../src-shared/errors';

/**
 * Opens a better-sqlite3 database. node_modules holds the addon built for plain Node (tests, CLI,
 * server); the Electron app points MEMORY_WORKBENCH_SQLITE_BINDING at a copy built for Electron's
 * ABI (see scripts/prepare-electron-native.mjs), so `npm test` and `npm start` both work in any
 * order without rebuilding node_modules.
 */
export function openSqlite(file: string, options: Database.Options = {}): Database.Database {
  const nativeBinding = process.env.MEMORY_WORKBENCH_SQLITE_BINDING;
  return new Database(file, nativeBinding ? { ...options, nativeBinding } : options);
}

export type SqliteDatabase = Database.Database;

export interface CacheDbSpec {
  /** The folder the file lives in (created if missing). */
  dir: string;
  fileName: string;
  /** What the file is, for the error (`embedding cache`). */
  label: string;
  schemaVersion: number;
  /** `CREATE TABLE IF NOT EXISTS …`: run on every open. */
  ddl: string;
}

/**
 * Opens (creating) a cache file shared by every worker thread and process of the data folder:
 * WAL, a busy timeout so concurrent writers wait rather than fail, and a refusal of a file a newer
 * build wrote. A failure is an INTERNAL error naming the file; nothing stays open.
 */
export function openCacheDb(spec: CacheDbSpec): { db: SqliteDatabase; file: string } {
  const file = join(spec.dir, spec.fileName);
  let db: SqliteDatabase | undefined;
  try {
    mkdirSync(spec.dir, { recursive: true });
    db = openSqlite(file);
    db.pragma(`busy_timeout = ${CACHE_BUSY_TIMEOUT_MS}`);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > spec.schemaVersion) {
      throw new Error(`schema version ${version} is newer than this app's (${spec.schemaVersion})`);
    }
    db.exec(spec.ddl);
    if (version < spec.schemaVersion) db.pragma(`user_version = ${spec.schemaVersion}`);
    return { db, file };
  } catch (error) {
    db?.close();
    throw new WorkbenchError(
      'INTERNAL',
      `${spec.label}: cannot open ${file} (${(error as Error).message})`,
      { where: file, cause: error },
    );
  }
}

const CACHE_BUSY_TIMEOUT_MS = 10_000;
