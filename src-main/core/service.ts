import { basename } from 'node:path';
import type { ApiEvent, ApiHandlers } from '../../src-shared/api';
import { DatasetStore, resolveInsideDatasetDirs } from './datasets';
import { DesignsService } from './designs';
import { ExperimentManager } from './experiments';
import { ApiKeySource, type KeyEnvPolicy } from './keys';
import { ModelsService, type KeyStore } from './models';
import { appVersion, gitCommit } from './provenance';

export interface ServiceOptions {
  /** Where runs, collections and uploaded datasets live. */
  dataDir: string;
  transport: 'electron' | 'http';
  /** Pushes progress to every connected UI (IPC send or WebSocket broadcast). */
  emit?: (event: ApiEvent) => void;
  /**
   * Browser mode only: the folders whose files `datasets.open` may read (`serve --dataset-dir`);
   * none means uploads only. The desktop app opens whatever the user picked in its dialog.
   */
  datasetDirs?: readonly string[];
  /** Models view: the OS keychain for API keys (desktop app only; browser mode has none). */
  keyStore?: KeyStore;
  /**
   * Which variables may hold API keys (default: names ending in _API_KEY or _TOKEN). API inputs
   * name the variable, so this bounds what a caller can read (core/keys.ts).
   */
  keyPolicy?: KeyEnvPolicy;
}

export interface Service {
  handlers: ApiHandlers;
  /** Cancels running experiments and closes databases. */
  close(): Promise<void>;
}

/** Implements the API contract on top of core/. Both transports call exactly this. */
export function createService(options: ServiceOptions): Service {
  const datasets = new DatasetStore(options.dataDir);
  // The one place keys are read, for the Models view and for experiments alike.
  const apiKeys = new ApiKeySource({
    ...(options.keyPolicy ? { policy: options.keyPolicy } : {}),
    ...(options.keyStore ? { keychain: options.keyStore } : {}),
  });
  const experiments = new ExperimentManager(
    options.dataDir,
    (event) => options.emit?.(event),
    apiKeys,
  );
  const designs = new DesignsService(
    options.dataDir,
    (event) => options.emit?.(event),
    (datasetId, sampleId) => datasets.sample(datasetId, sampleId),
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
    'datasets.upload': ({ name, content }) => datasets.upload(name, content),
    'datasets.get': async ({ datasetId }) => (await datasets.get(datasetId)).summary,
    'datasets.sample': ({ datasetId, sampleId }) => datasets.sample(datasetId, sampleId),
    'datasets.close': async ({ datasetId }) => ({ closed: datasets.close(datasetId) }),

    'memory.presets': () => experiments.presets(),
    'experiments.start': async ({ datasetId, ...config }) => {
      const { summary } = await datasets.get(datasetId);
      return experiments.start({ ...config, datasetPath: summary.path });
    },
    'experiments.cancel': async ({ runId }) => ({ cancelled: experiments.cancel(runId) }),
    'experiments.resume': ({ runId }) => experiments.resume(runId),
    'experiments.active': async () => experiments.activeRuns(),

    'runs.list': async () => experiments.list(),
    'runs.get': async ({ runId }) => experiments.detail(runId),
    'runs.answers': async ({ runId }) => experiments.answers(runId),
    'runs.delete': async ({ runId }) => ({ deleted: experiments.delete(runId) }),
    'runs.export': async ({ runId, format }) => experiments.exportRun(runId, format),
    'runs.compare': async ({ runIds, baselineRunId, metric, seed }) =>
      experiments.compare(runIds, baselineRunId, metric, seed),
    'sweeps.list': async () => experiments.sweeps(),
    'sweeps.get': async ({ sweepId }) => experiments.sweep(sweepId),
    'runs.compareExport': async ({ runIds, baselineRunId, metric, format }) =>
      experiments.compareExport(runIds, baselineRunId, metric, format),

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
  return {
    handlers,
    close: async () => {
      designs.close();
      await experiments.close();
    },
  };
}
