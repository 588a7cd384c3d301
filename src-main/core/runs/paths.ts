import { homedir } from 'node:os';
import { join } from 'node:path';

/** The variable naming the data folder, and the folder in the home directory otherwise. */
export const DATA_DIR_ENV = 'MEMORY_WORKBENCH_DATA';
export const HOME_DATA_DIR = '.memory-workbench';
/** The runs database's file name in the data folder. */
export const RUNS_DB_FILE = 'runs.db';

/** Where runs, collections and uploaded datasets live: $MEMORY_WORKBENCH_DATA or ~/.memory-workbench. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env[DATA_DIR_ENV] ?? join(homedir(), HOME_DATA_DIR);
}

export function defaultRunsDbPath(dataDir: string = defaultDataDir()): string {
  return join(dataDir, RUNS_DB_FILE);
}
