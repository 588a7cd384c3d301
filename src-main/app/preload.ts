import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { ApiInput, ApiName, ApiResponse, WorkbenchBridge } from '../../src-shared/api';
import { IPC_CHANNELS } from '../../src-shared/channels';

// Kept to two functions so the surface exposed to web content stays small. The types follow the
// API map (src-shared/api.ts); inputs are still validated in the main process, which cannot trust
// a renderer.
const bridge = {
  call: <K extends ApiName>(name: K, input: ApiInput<K>): Promise<ApiResponse<K>> =>
    ipcRenderer.invoke(IPC_CHANNELS.api, { name, input }) as Promise<ApiResponse<K>>,
  // Payloads are checked in the renderer (parseApiEvent), like the browser's socket messages.
  onEvent: (listener: (event: unknown) => void): (() => void) => {
    const wrapped = (_event: IpcRendererEvent, payload: unknown) => listener(payload);
    ipcRenderer.on(IPC_CHANNELS.event, wrapped);
    return () => ipcRenderer.removeListener(IPC_CHANNELS.event, wrapped);
  },
} satisfies WorkbenchBridge;

contextBridge.exposeInMainWorld('workbench', bridge);
