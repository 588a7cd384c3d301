import type {
  ApiClient,
  ApiEvent,
  ApiInput,
  ApiName,
  ApiOutput,
  ApiResponse,
  WorkbenchBridge,
} from '@shared/api';
import { HTTP_ROUTES } from '@shared/channels';
import { WorkbenchError, type Result } from '@shared/errors';

export type { WorkbenchBridge };

declare global {
  interface Window {
    workbench?: WorkbenchBridge;
  }
}

type EventParser = (raw: unknown) => ApiEvent | null;
let eventParser: Promise<EventParser> | undefined;

/**
 * The events' check (parseApiEvent) is a chunk of its own: it needs every API schema, and
 * building them (zod, 40-100 ms) was part of the first load's one long task, before any call
 * could start. The client starts loading it when it is made, so the schemas build in their own
 * task while the first view's chunk is on its way, and that chunk finds them built.
 */
function loadEventParser(): Promise<EventParser> {
  return (eventParser ??= import('@shared/api').then((api) => api.parseApiEvent));
}

/** Each event waits on the same promise, so events keep their order. */
function withEventParser(use: (parse: EventParser) => void): void {
  loadEventParser().then(use, (error: unknown) =>
    console.warn(`workbench: cannot check events, ignored one: ${String(error)}`),
  );
}

function unwrap<T>(result: Result<T>): T {
  if (!result.ok) throw WorkbenchError.fromPayload(result.error);
  return result.data;
}

export function electronClient(bridge: WorkbenchBridge): ApiClient {
  return {
    async call<K extends ApiName>(name: K, input: ApiInput<K>): Promise<ApiOutput<K>> {
      return unwrap(await bridge.call(name, input));
    },
    onEvent: (listener) =>
      bridge.onEvent((raw) =>
        withEventParser((parse) => {
          const event = parse(raw);
          if (event === null) console.warn('workbench: ignored a malformed event from the app');
          else listener(event);
        }),
      ),
  };
}

/**
 * The events of one socket message: one event, or an array of them (the server batches progress
 * events); anything that is not an event is dropped with a warning.
 */
function parseEvents(text: string, parse: EventParser): ApiEvent[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    raw = undefined;
  }
  const events: ApiEvent[] = [];
  for (const item of Array.isArray(raw) ? raw : [raw]) {
    const event = parse(item);
    if (event === null) console.warn(`workbench: ignored a malformed event: ${text.slice(0, 200)}`);
    else events.push(event);
  }
  return events;
}

/**
 * Browser mode: the local server's HTTP API. The server traded the token in the printed URL for
 * an HttpOnly cookie on the first load, and the browser sends it with every same-origin request
 * and the WebSocket handshake, so this code never sees the token.
 */
export function httpClient(baseUrl: string): ApiClient {
  const listeners = new Set<(event: ApiEvent) => void>();
  let socket: WebSocket | null = null;

  function connect(): void {
    const wsUrl = new URL(HTTP_ROUTES.events, baseUrl);
    wsUrl.protocol = wsUrl.protocol === 'https:' ? 'wss:' : 'ws:';
    socket = new WebSocket(wsUrl);
    socket.onmessage = (message) => {
      const text = String(message.data);
      withEventParser((parse) => {
        for (const event of parseEvents(text, parse)) {
          for (const listener of listeners) listener(event);
        }
      });
    };
    socket.onclose = () => {
      socket = null;
      // Reconnect while someone listens, so a server restart doesn't silence progress.
      if (listeners.size > 0) setTimeout(connect, 1000);
    };
  }

  return {
    async call<K extends ApiName>(name: K, input: ApiInput<K>): Promise<ApiOutput<K>> {
      const response = await fetch(new URL(`${HTTP_ROUTES.apiPrefix}${name}`, baseUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(input),
      });
      // The server answers with the method's Result; it is the engine's own output.
      const body = (await response.json()) as ApiResponse<K>;
      return unwrap(body);
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
  // Not awaited: calls need no schema, only events do (see loadEventParser).
  void loadEventParser().catch(() => undefined);
  if (window.workbench) return electronClient(window.workbench);
  return httpClient(window.location.origin);
}
