import type { ApiHandlers } from '../../src-shared/api';
import { DatasetStore } from './datasets';
import { appVersion, gitCommit } from './provenance';

export interface ServiceOptions {
  /** Where runs, collections and uploaded datasets live. */
  dataDir: string;
  transport: 'electron' | 'http';
}

/** Implements the API contract on top of core/. Both transports call exactly this. */
export function createService(options: ServiceOptions): ApiHandlers {
  const datasets = new DatasetStore(options.dataDir);
  return {
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
  };
}
