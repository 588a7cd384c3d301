import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { WorkbenchError } from '../../../src-shared/errors';
import type { CliCommand, CliIO } from '../command';
import { appRoot } from '../../core/provenance';
import { defaultDataDir } from '../../core/runs/paths';
import { createService } from '../../core/service';
import { startServer, type RunningServer } from '../../server/server';

const SERVE_USAGE = `usage: npm run -s cli -- serve [--port n] [--data-dir dir] [--static dir]
  Serves the workbench UI and API on 127.0.0.1 only, with a per-launch token in the printed URL.
  Reach it from another machine through an SSH tunnel (ssh -L 5174:127.0.0.1:5174 host).`;

export { defaultDataDir };

async function runServe(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', default: '5174' },
      'data-dir': { type: 'string' },
      static: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: false,
  });
  if (values.help) {
    io.stdout(`${SERVE_USAGE}\n`);
    return 0;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new WorkbenchError('INVALID_INPUT', `serve: --port must be 0-65535, got ${values.port}`);
  }
  const dataDir = resolve(values['data-dir'] ?? defaultDataDir());
  mkdirSync(dataDir, { recursive: true });
  const staticDir = resolve(values.static ?? join(appRoot(), 'out', 'renderer'));

  // The service exists before the server that relays its events, hence the late-bound target.
  const relay: { server?: RunningServer } = {};
  const service = createService({
    dataDir,
    transport: 'http',
    emit: (event) => relay.server?.broadcast(event),
  });
  const server = await startServer({
    handlers: service.handlers,
    serialized: service.serialized,
    staticDir,
    port,
  });
  relay.server = server;
  // Tests and scripts read this exact line to find the URL.
  io.stdout(`Memory Workbench is serving at ${server.url}\n`);
  io.stdout(`data: ${dataDir}\n`);

  await new Promise<void>((resolveStop) => {
    const stop = () => resolveStop();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await service.close();
  await server.close();
  return 0;
}

export const serveCommand: CliCommand = {
  summary: 'serve the workbench UI and API on 127.0.0.1 (browser mode)',
  usage: SERVE_USAGE,
  run: runServe,
};
