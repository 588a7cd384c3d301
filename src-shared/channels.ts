/**
 * Where the renderer reaches the engine, named once: Electron's IPC channels (main, preload) and
 * the browser-mode server's routes (server, renderer client).
 */
export const IPC_CHANNELS = {
  /** invoke({ name, input }) → Result: one API call. */
  api: 'workbench:api',
  /** main → renderer: ApiEvent payloads. */
  event: 'workbench:event',
} as const;

export const HTTP_ROUTES = {
  /** POST `${apiPrefix}${name}`: one API call. */
  apiPrefix: '/api/',
  /** The WebSocket that carries ApiEvents. */
  events: '/api/events',
} as const;
