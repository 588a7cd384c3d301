import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { ApiEvent } from '../../src-shared/api';
import type { Result } from '../../src-shared/errors';

// The renderer's WorkbenchBridge (src-renderer/src/api/client.ts); kept to two functions so the
// surface exposed to web content stays small. Inputs are validated in the main process.
const bridge = {
  call: (name: string, input: unknown): Promise<Result<unknown>> =>
    ipcRenderer.invoke('workbench:api', { name, input }) as Promise<Result<unknown>>,
  onEvent: (listener: (event: ApiEvent) => void): (() => void) => {
    const wrapped = (_event: IpcRendererEvent, payload: ApiEvent) => listener(payload);
    ipcRenderer.on('workbench:event', wrapped);
    return () => ipcRenderer.removeListener('workbench:event', wrapped);
  },
};

contextBridge.exposeInMainWorld('workbench', bridge);
