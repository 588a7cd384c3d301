import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Where the worker entries live and how to start them, in one place.
 *
 * - Built app: electron-vite bundles this module into out/main/index.js and each worker entry into
 *   its own file beside it (out/main/worker.js, out/main/runs-read-worker.js,
 *   out/main/dataset-load-worker.js); start the .js
 *   directly.
 * - Source (CLI via tsx, Vitest): start the entry's .ts through tsx. Node 20 does not apply
 *   `execArgv: ['--import', 'tsx']` hooks to a worker's entry module (ERR_UNKNOWN_FILE_EXTENSION),
 *   so a tiny evaluated bootstrap registers tsx's ESM hooks inside the worker and then imports the
 *   entry.
 */
export interface WorkerLaunch {
  mode: 'built' | 'source';
  /** The file the worker runs. */
  entry: string;
}

/** A worker entry: its bundle beside the built main, and its source relative to this folder. */
export interface WorkerEntry {
  built: string;
  source: string;
}

export const EXPERIMENT_WORKER: WorkerEntry = { built: 'worker.js', source: 'worker-entry.ts' };
export const RUNS_READ_WORKER: WorkerEntry = {
  built: 'runs-read-worker.js',
  source: join('..', 'read-worker-entry.ts'),
};
export const DATASET_LOAD_WORKER: WorkerEntry = {
  built: 'dataset-load-worker.js',
  source: join('..', 'dataset-load-worker-entry.ts'),
};

export function resolveWorkerLaunch(
  moduleUrl: string = import.meta.url,
  worker: WorkerEntry = EXPERIMENT_WORKER,
): WorkerLaunch {
  const here = dirname(fileURLToPath(moduleUrl));
  if (!moduleUrl.endsWith('.ts')) {
    // A packaged app keeps the bundle unpacked beside the asar (electron-builder asarUnpack),
    // because a worker thread cannot start from a file inside the archive.
    const built = join(here, worker.built).replace(`app.asar${sep}`, `app.asar.unpacked${sep}`);
    if (existsSync(built)) return { mode: 'built', entry: built };
  }
  return { mode: 'source', entry: join(here, worker.source) };
}

/** tsx's ESM register API as a file URL (the .mjs build; the .cjs one resolves its hooks wrongly). */
function tsxApiUrl(): string {
  const resolved = createRequire(import.meta.url).resolve('tsx/esm/api');
  const esm = resolved.replace(/\.cjs$/, '.mjs');
  return pathToFileURL(existsSync(esm) ? esm : resolved).href;
}

export function startWorker(worker: WorkerEntry, options: WorkerOptions = {}): Worker {
  const launch = resolveWorkerLaunch(import.meta.url, worker);
  if (launch.mode === 'built') return new Worker(launch.entry, options);
  const entry = pathToFileURL(launch.entry).href;
  const bootstrap = `import(${JSON.stringify(tsxApiUrl())})
    .then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })
    .catch((error) => { console.error(error); process.exit(70); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}

export function startExperimentWorker(options: WorkerOptions = {}): Worker {
  return startWorker(EXPERIMENT_WORKER, options);
}
