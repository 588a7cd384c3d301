import type { ApiClient, ApiEvent, ApiInput, ApiName, ApiOutput } from '@shared/api';
import { WorkbenchError, type Result } from '@shared/errors';

/** The preload bridge Electron exposes on `window.workbench` (see src-main/app/preload.ts). */
export interface WorkbenchBridge {
  call(name: string, input: unknown): Promise<Result<unknown>>;
  onEvent(listener: (event: ApiEvent) => void): () => void;
}

declare global {
  interface Window {
    workbench?: WorkbenchBridge;
  }
}

function unwrap<K extends ApiName>(result: Result<unknown>): ApiOutput<K> {
  if (!result.ok) throw WorkbenchError.fromPayload(result.error);
  return result.data as ApiOutput<K>;
}

export function electronClient(bridge: WorkbenchBridge): ApiClient {
  return {
    async call<K extends ApiName>(name: K, input: ApiInput<K>): Promise<ApiOutput<K>> {
      return unwrap<K>(await bridge.call(name, input));
    },
    onEvent: (listener) => bridge.onEvent(listener),
  };
}

/** Browser mode: the local server's HTTP API, authorised by the token from the page URL. */
export function httpClient(baseUrl: string, token: string): ApiClient {
  const listeners = new Set<(event: ApiEvent) => void>();
  let socket: WebSocket | null = null;

  function connect(): void {
    const wsUrl = new URL('/api/events', baseUrl);
    wsUrl.protocol = wsUrl.protocol === 'https:' ? 'wss:' : 'ws:';
    wsUrl.searchParams.set('token', token);
    socket = new WebSocket(wsUrl);
    socket.onmessage = (message) => {
      const event = JSON.parse(String(message.data)) as ApiEvent;
      for (const listener of listeners) listener(event);
    };
    socket.onclose = () => {
      socket = null;
      // Reconnect while someone listens, so a server restart doesn't silence progress.
      if (listeners.size > 0) setTimeout(connect, 1000);
    };
  }

  return {
    async call<K extends ApiName>(name: K, input: ApiInput<K>): Promise<ApiOutput<K>> {
      const response = await fetch(new URL(`/api/${name}`, baseUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(input),
      });
      const body = (await response.json()) as Result<unknown>;
      return unwrap<K>(body);
    },
    onEvent(listener) {
      listeners.add(listener);
      if (socket === null) connect();
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) socket?.close();
      };
    },
  };
}

export function createClient(): ApiClient {
  if (window.workbench) return electronClient(window.workbench);
  const token = new URLSearchParams(window.location.search).get('token') ?? '';
  return httpClient(window.location.origin, token);
}
