import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import {
  apiMethods,
  type ApiInput,
  type ApiOutput,
  type ApiParsedInput,
} from '../../src-shared/api';
import { zodError } from '../../src-shared/errors';
import { runsHandlers, type RunsMethod } from '../core/runs/handlers';
import { labelsHandlers } from '../core/runs/labelHandlers';
import type { DomainMethod } from '../core/handlers';
import { defaultDataDir, defaultRunsDbPath } from '../core/runs/paths';
import { RunStore } from '../core/runs/store';
import type { ApiKeySource } from '../core/keys';

export interface Stores {
  store: RunStore;
  dataDir: string;
}

/** The runs database named by `--runs-db`, or `<--data-dir>/runs.db`, and the data directory. */
export function openStore(runsDb: string | undefined, dataDirFlag: string | undefined): Stores {
  const { dataDir, file } = storePaths(runsDb, dataDirFlag);
  mkdirSync(dirname(file), { recursive: true });
  return { store: RunStore.open(file), dataDir };
}

/** `openStore` for a command that only reads: null where no runs database exists yet. */
export function openExistingStore(
  runsDb: string | undefined,
  dataDirFlag: string | undefined,
): Stores | null {
  const { dataDir, file } = storePaths(runsDb, dataDirFlag);
  return existsSync(file) ? { store: RunStore.open(file), dataDir } : null;
}

function storePaths(
  runsDb: string | undefined,
  dataDirFlag: string | undefined,
): { dataDir: string; file: string } {
  const dataDir = resolve(dataDirFlag ?? defaultDataDir());
  return { dataDir, file: resolve(runsDb ?? defaultRunsDbPath(dataDir)) };
}

/**
 * The runs database as the CLI sees it: the API's `runs.*` methods (core/runs/handlers.ts, what
 * the UI calls through the service), their input checked by the same schemas as at the IPC/HTTP
 * door. The store itself is there for what no API method reports (its file name in messages).
 */
export interface RunsApi {
  call<K extends RunsMethod | DomainMethod<'labels'>>(
    name: K,
    input: ApiInput<K>,
  ): Promise<ApiOutput<K>>;
  store: RunStore;
}

/**
 * Opens the runs database named by `--runs-db`/`--data-dir`, lends it to `use`, closes it.
 * `apiKeys`: where a rescore's judge reads its key (the command's `--allow-key-env` policy).
 */
export async function withRunsApi<T>(
  flags: { 'runs-db'?: string | undefined; 'data-dir'?: string | undefined },
  use: (api: RunsApi) => Promise<T>,
  apiKeys?: ApiKeySource,
  /** Hears what a write is doing as it goes (a rescore's judge retries): the command's stderr. */
  log?: (message: string) => void,
): Promise<T> {
  const { store } = openStore(flags['runs-db'], flags['data-dir']);
  const handlers = {
    ...runsHandlers(store, apiKeys, log ? { log } : {}),
    ...labelsHandlers(() => store),
  };
  const api: RunsApi = {
    store,
    async call(name, input) {
      const parsed = apiMethods[name].input.safeParse(input);
      if (!parsed.success) throw zodError(parsed.error, `${name} input`);
      // One handler per method name: the map's type cannot say so per K, hence the cast.
      const handler = handlers[name] as unknown as (
        input: ApiParsedInput<typeof name>,
      ) => ApiOutput<typeof name> | Promise<ApiOutput<typeof name>>;
      return handler(parsed.data as ApiParsedInput<typeof name>);
    },
  };
  try {
    return await use(api);
  } finally {
    store.close();
  }
}
