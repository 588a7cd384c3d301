import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { Result } from '../../src-shared/errors';

// The renderer's WorkbenchBridge (src-renderer/src/api/client.ts); kept to two functions so the
// surface exposed to web content stays small. Inputs are validated in the main process.
const bridge = {
  call: (name: string, input: unknown): Promise<Result<unknown>> =>
    ipcRenderer.invoke('workbench:api', { name, input }) as Promise<Result<unknown>>,
  // Payloads are checked in the renderer (parseApiEvent), like the browser's socket messages.
  onEvent: (listener: (event: unknown) => void): (() => void) => {
    const wrapped = (_event: IpcRendererEvent, payload: unknown) => listener(payload);
    ipcRenderer.on('workbench:event', wrapped);
    return () => ipcRenderer.removeListener('workbench:event', wrapped);
  },
};

contextBridge.exposeInMainWorld('workbench', bridge);
