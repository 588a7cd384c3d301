import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where runs, collections and uploaded datasets live: $MEMORY_WORKBENCH_DATA or ~/.memory-workbench. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.MEMORY_WORKBENCH_DATA ?? join(homedir(), '.memory-workbench');
}

export function defaultRunsDbPath(dataDir: string = defaultDataDir()): string {
  return join(dataDir, 'runs.db');
}
