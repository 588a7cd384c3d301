import Database from 'better-sqlite3';

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
