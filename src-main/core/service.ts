import type { ApiEvent, ApiHandlers } from '../../src-shared/api';
import { DatasetStore } from './datasets';
import { ExperimentManager } from './experiments';
import { appVersion, gitCommit } from './provenance';

export interface ServiceOptions {
  /** Where runs, collections and uploaded datasets live. */
  dataDir: string;
  transport: 'electron' | 'http';
  /** Pushes progress to every connected UI (IPC send or WebSocket broadcast). */
  emit?: (event: ApiEvent) => void;
}

export interface Service {
  handlers: ApiHandlers;
  /** Cancels running experiments and closes databases. */
  close(): Promise<void>;
}

/** Implements the API contract on top of core/. Both transports call exactly this. */
export function createService(options: ServiceOptions): Service {
  const datasets = new DatasetStore(options.dataDir);
  const experiments = new ExperimentManager(options.dataDir, (event) => options.emit?.(event));

  const handlers: ApiHandlers = {
    'app.info': async () => ({
      name: 'Memory Workbench',
      version: appVersion(),
      gitCommit: gitCommit(),
      transport: options.transport,
      dataDir: options.dataDir,
    }),
    'datasets.list': () => datasets.list(),
    'datasets.open': ({ path }) => datasets.openPath(path),
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
    'runs.compareExport': async ({ runIds, baselineRunId, metric, format }) =>
      experiments.compareExport(runIds, baselineRunId, metric, format),
  };
  return { handlers, close: () => experiments.close() };
}
