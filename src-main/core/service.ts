import type { ApiHandlers } from '../../src-shared/api';
import { appVersion, gitCommit } from './provenance';

export interface ServiceOptions {
  /** Where runs, collections and uploaded datasets live. */
  dataDir: string;
  transport: 'electron' | 'http';
}

/** Implements the API contract on top of core/. Both transports call exactly this. */
export function createService(options: ServiceOptions): ApiHandlers {
  return {
    'app.info': async () => ({
      name: 'Memory Workbench',
      version: appVersion(),
      gitCommit: gitCommit(),
      transport: options.transport,
      dataDir: options.dataDir,
    }),
  };
}
