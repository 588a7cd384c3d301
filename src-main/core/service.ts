import { reproducePacks, reproducePlan, reproduceRun } from './reproduce/service';
import { basename } from 'node:path';
import type { ApiEvent, ApiHandlers } from '../../src-shared/api';
import { DatasetStore, listDatasetFolderFiles, resolveInsideDatasetDirs } from './datasets';
import type { SerializedHandlers } from './dispatch';
import { DesignsService } from './designs';
import { ExperimentManager } from './experiments';
import { ApiKeySource, type KeyEnvPolicy } from './keys';
import { ModelsService, type KeyStore } from './models';
import { appVersion, gitCommit } from './provenance';
import { installPunktModel } from './scoring/punktModel';
import { LOCAL_USER } from './trust';

export interface ServiceOptions {
  /** Where runs, collections and uploaded datasets live. */
  dataDir: string;
  transport: 'electron' | 'http';
  /** Pushes progress to every connected UI (IPC send or WebSocket broadcast). */
  emit?: (event: ApiEvent) => void;
  /**
   * Browser mode only: the folders whose files `datasets.open` may read and whose unix sockets a
   * memory service url may name (`serve --dataset-dir`); none means uploads only and no sockets.
   * The desktop app opens whatever the user picked in its dialog.
   */
  datasetDirs?: readonly string[];
  /** Models view: the OS keychain for API keys (desktop app only; browser mode has none). */
  keyStore?: KeyStore;
  /**
   * Which variables may hold API keys (default: names ending in _API_KEY or _TOKEN). API inputs
   * name the variable, so this bounds what a caller can read (core/keys.ts).
   */
  keyPolicy?: KeyEnvPolicy;
  /** Threads that serve the runs DB's read views (default 1); 0 reads on the main thread. */
  readWorkers?: number;
  /**
   * Dataset files from this size on open in a worker thread (default OFF_THREAD_LOAD_BYTES);
   * Infinity opens every file on the main thread (the old behaviour, for comparison).
   */
  datasetWorkerFromBytes?: number;
}

export interface Service {
  handlers: ApiHandlers;
  /**
   * The runs DB's read views again, answering with their JSON bytes serialised in the read
   * worker: for the HTTP transport (dispatchJson), so a full run's export never passes through the
   * main thread as objects. Electron IPC uses `handlers`.
   */
  serialized: SerializedHandlers;
  /** Starts the runs DB's read worker before the first read needs it (a long-lived server or app). */
  warm(): void;
  /** Cancels running experiments and closes databases. */
  close(): Promise<void>;
}

/** Implements the API contract on top of core/. Both transports call exactly this. */
export function createService(options: ServiceOptions): Service {
  installPunktModel();
  const datasets = new DatasetStore(options.dataDir, options.datasetWorkerFromBytes);
  // The one place keys are read, for the Models view and for experiments alike.
  const apiKeys = new ApiKeySource({
    ...(options.keyPolicy ? { policy: options.keyPolicy } : {}),
    ...(options.keyStore ? { keychain: options.keyStore } : {}),
  });
  const experiments = new ExperimentManager(
    options.dataDir,
    (event) => options.emit?.(event),
    apiKeys,
    options.readWorkers,
    // The desktop app's user typed the config; a browser page must not start programs here, and
    // reaches unix sockets only in the folders `serve` was given.
    options.transport === 'electron'
      ? LOCAL_USER
      : { mayStartProcesses: false, allowedDirs: options.datasetDirs ?? [] },
  );
  const designs = new DesignsService(
    options.dataDir,
    (event) => options.emit?.(event),
    (datasetId, sampleId) => datasets.sample(datasetId, sampleId),
    apiKeys,
  );
  // ---- Models view ----
  const models = new ModelsService(options.dataDir, { keyStore: options.keyStore, apiKeys });

  const handlers: ApiHandlers = {
    'app.info': async () => ({
      name: 'Memory Workbench',
      version: appVersion(),
      gitCommit: gitCommit(),
      transport: options.transport,
      dataDir: options.dataDir,
    }),
    'datasets.list': () => datasets.list(),
    'datasets.open': async ({ path }) =>
      datasets.openPath(
        options.transport === 'http'
          ? resolveInsideDatasetDirs(path, options.datasetDirs ?? [])
          : path,
        basename(path),
      ),
    // The desktop app picks files in its own dialog; only browser mode has folders to list.
    'datasets.folderFiles': async () =>
      options.transport === 'http' ? listDatasetFolderFiles(options.datasetDirs ?? []) : [],
    'datasets.upload': ({ name, content }) => datasets.upload(name, content),
    'datasets.sample': ({ datasetId, sampleId }) => datasets.sample(datasetId, sampleId),

    'memory.presets': () => experiments.presets(),
    'memory.checkConfig': ({ preset, config }) => experiments.checkConfig(preset, config),
    'experiments.start': async ({ datasetId, identity, responseCache, ...config }) => {
      const { summary, loaded } = await datasets.get(datasetId);
      const opened = { sha256: summary.sha256, loaded };
      return experiments.start({ ...config, datasetPath: summary.path }, opened, identity, {
        ...(responseCache ? { responseCache } : {}),
      });
    },
    'experiments.estimate': async ({
      datasetId,
      identity: _identity,
      responseCache: _responseCache,
      ...config
    }) => {
      const { summary, loaded } = await datasets.get(datasetId);
      return experiments.estimate(
        { ...config, datasetPath: summary.path },
        { sha256: summary.sha256, loaded },
      );
    },
    'experiments.cancel': async ({ runId }) => ({ cancelled: experiments.cancel(runId) }),
    'experiments.resume': ({ runId }) => experiments.resume(runId),
    'experiments.active': async () => experiments.activeRuns(),
    'experiments.live': async () => experiments.liveRuns(),

    // Read views run in the runs read worker (core/runs/queries.ts): never on this thread.
    ...experiments.readHandlers(),
    // Writes: on this thread, the runs DB's only writer, guarded against a running run.
    ...experiments.writeHandlers(),

    // ---- Reproduce view (core/reproduce) ----
    'reproduce.packs': () => reproducePacks(),
    'reproduce.plan': async (input) =>
      reproducePlan(input, (await datasets.get(input.datasetId)).summary.path),
    'reproduce.run': async (input) =>
      reproduceRun(
        input,
        (await datasets.get(input.datasetId)).summary.path,
        experiments.packRunOptions(),
      ),

    // ---- Collections view (core/designs) ----
    'designs.list': async () => designs.list(),
    'designs.save': async ({ design }) => designs.save(design),
    'designs.delete': async ({ name }) => ({ deleted: designs.delete(name) }),
    'designs.fromPreset': async ({ preset }) => designs.fromPreset(preset),
    'playground.build': ({ datasetId, sampleId, design }) =>
      designs.build(datasetId, sampleId, design),
    'playground.query': ({ playgroundId, query, topK }) => designs.query(playgroundId, query, topK),
    'playground.dispose': async ({ playgroundId }) => ({
      disposed: designs.dispose(playgroundId),
    }),

    // ---- Models view (core/models): keys are never returned, logged or stored in a file ----
    'models.list': async () => models.list(),
    'models.save': async ({ endpoint }) => models.save(endpoint),
    'models.delete': async ({ endpointId }) => ({ deleted: models.delete(endpointId) }),
    'models.test': ({ endpointId }) => models.test(endpointId),
    'models.keyStatus': async () => models.keyStatus(),
    'models.setKey': async ({ apiKeyEnv, key }) => {
      models.setKey(apiKeyEnv, key);
      return { set: true };
    },
    'models.clearKey': async ({ apiKeyEnv }) => ({ cleared: models.clearKey(apiKeyEnv) }),
  };
  const serialized = experiments.serializedReadHandlers();
  return {
    handlers,
    serialized,
    warm: () => experiments.warmReads(),
    close: async () => {
      designs.close();
      await experiments.close();
    },
  };
}
