import type { ApiEvent, ApiHandlers } from '../../src-shared/api';
import { DatasetStore, datasetsHandlers } from './datasets';
import type { SerializedHandlers } from './dispatch';
import { DesignsService, designsHandlers } from './designs';
import { ExperimentManager } from './experiments';
import { ApiKeySource, type KeyEnvPolicy } from './keys';
import { ModelsService, modelsHandlers, type KeyStore } from './models';
import { appVersion, gitCommit } from './provenance';
import { reproduceHandlers } from './reproduce/service';
import { installPunktModel } from './scoring/punktModel';
import { LOCAL_USER, isLocalUser, type CallerTrust } from './trust';

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
   * Which variables may hold API keys (default: core/keys.ts KEY_ENV_RULE). API inputs
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
  const datasetFolders = options.transport === 'http' ? (options.datasetDirs ?? []) : null;
  const datasets = new DatasetStore(
    options.dataDir,
    options.datasetWorkerFromBytes,
    datasetFolders,
  );
  // The one place keys are read, for the Models view and for experiments alike.
  const apiKeys = new ApiKeySource({
    ...(options.keyPolicy ? { policy: options.keyPolicy } : {}),
    ...(options.keyStore ? { keychain: options.keyStore } : {}),
  });
  // The desktop app's user typed the config; a browser page must not start programs here, reaches
  // unix sockets only in the folders `serve` was given, and never reads an endpoint's reply.
  const trust: CallerTrust =
    options.transport === 'electron'
      ? LOCAL_USER
      : { mayStartProcesses: false, allowedDirs: options.datasetDirs ?? [] };
  const experiments = new ExperimentManager(
    options.dataDir,
    (event) => options.emit?.(event),
    apiKeys,
    options.readWorkers,
    trust,
  );
  const designs = new DesignsService(
    options.dataDir,
    (event) => options.emit?.(event),
    (datasetId, sampleId) => datasets.sample(datasetId, sampleId),
    apiKeys,
    isLocalUser(trust),
  );
  const models = new ModelsService(options.dataDir, {
    keyStore: options.keyStore,
    apiKeys,
    quoteReplies: isLocalUser(trust),
  });
  const datasetPath = async (datasetId: string) => (await datasets.get(datasetId)).summary.path;

  // One map per domain, each declared beside its engine with its guards; the type asks for every
  // method of the contract.
  const handlers: ApiHandlers = {
    'app.info': async () => ({
      name: 'Memory Workbench',
      version: appVersion(),
      gitCommit: gitCommit(),
      transport: options.transport,
      dataDir: options.dataDir,
    }),
    ...datasetsHandlers(datasets, datasetFolders),
    ...experiments.experimentHandlers((datasetId) => datasets.get(datasetId)),
    ...experiments.runsHandlers(),
    ...experiments.labelsHandlers(),
    ...reproduceHandlers(
      datasetPath,
      () => experiments.packRunOptions(),
      (packId) => experiments.packResults(packId),
    ),
    ...designsHandlers(designs),
    ...modelsHandlers(models),
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
