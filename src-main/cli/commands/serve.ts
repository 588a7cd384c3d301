import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { WorkbenchError } from '../../../src-shared/errors';
import { defineCommand } from '../command';
import { appRoot } from '../../core/provenance';
import { defaultDataDir } from '../../core/runs/paths';
import { createService } from '../../core/service';
import { errnoCode, fromSystemError } from '../../core/system-errors';
import { startServer, type RunningServer } from '../../server/server';
import { DATA_DIR_OPTION, DATASET_DIR_OPTION, KEY_ENV_OPTION } from '../options';
import { datasetDirsFromArgs, keyPolicyFromArgs } from '../request';

const DESCRIPTION = `Serves the workbench UI and API on 127.0.0.1 only, with a per-launch token in the printed URL.
Reach it from another machine through an SSH tunnel (ssh -L <port>:127.0.0.1:<port> host).`;

export { defaultDataDir };

/** The port `serve` listens on unless told otherwise. */
const DEFAULT_PORT = '5174';

export const serveCommand = defineCommand({
  summary: 'serve the workbench UI and API on 127.0.0.1 (browser mode)',
  usage: 'usage: npm run -s cli -- serve [options]',
  description: DESCRIPTION,
  options: {
    port: {
      type: 'string',
      default: DEFAULT_PORT,
      value: '<n>',
      help: 'the port on 127.0.0.1 (0 picks a free one)',
    },
    ...DATA_DIR_OPTION,
    ...DATASET_DIR_OPTION,
    static: {
      type: 'string',
      value: '<dir>',
      help: "the UI's built files",
      absent: 'out/renderer in the app',
    },
    ...KEY_ENV_OPTION,
  },
  positionals: false,
  async run({ values }, io) {
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new WorkbenchError(
        'INVALID_INPUT',
        `serve: --port must be 0-65535, got ${values.port}`,
      );
    }
    const dataDir = resolve(values['data-dir'] ?? defaultDataDir());
    mkdirSync(dataDir, { recursive: true });
    const staticDir = resolve(values.static ?? join(appRoot(), 'out', 'renderer'));
    const datasetDirs = datasetDirsFromArgs(values['dataset-dir'], 'serve');

    // The service exists before the server that relays its events, hence the late-bound target.
    const relay: { server?: RunningServer } = {};
    const service = createService({
      dataDir,
      transport: 'http',
      datasetDirs,
      emit: (event) => relay.server?.broadcast(event),
      keyPolicy: keyPolicyFromArgs(values['allow-key-env'], 'start serve with'),
    });
    let server: RunningServer;
    try {
      server = await startServer({
        handlers: service.handlers,
        serialized: service.serialized,
        staticDir,
        port,
      });
    } catch (error) {
      await service.close();
      if (errnoCode(error) === 'EADDRINUSE') {
        throw new WorkbenchError(
          'CONFLICT',
          `serve: port ${port} on 127.0.0.1 is already in use; choose another with --port (0 picks a free one)`,
          { cause: error },
        );
      }
      throw fromSystemError(error, `serve: cannot listen on 127.0.0.1:${port}`) ?? error;
    }
    relay.server = server;
    service.warm();
    // Tests and scripts read this exact line to find the URL.
    io.stdout(`Memory Workbench is serving at ${server.url}\n`);
    io.stdout(`data: ${dataDir}\n`);
    io.stdout(
      datasetDirs.length === 0
        ? 'datasets: upload only (--dataset-dir <folder> lets the page open files in it by path)\n'
        : `datasets: upload, or open by path in ${datasetDirs.join(', ')}\n`,
    );

    await new Promise<void>((resolveStop) => {
      const stop = () => resolveStop();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    // A second signal ends it at once.
    const now = (): never => process.exit(130);
    process.once('SIGINT', now);
    process.once('SIGTERM', now);
    return stopServing(server, service, io);
  },
});

/** How long the stop after a signal may take before the process exits anyway. */
export const SERVE_STOP_GRACE_MS = 5000;

/**
 * Ends `serve` on its first signal, whatever is going on. Work a request started (a judge rescore
 * retrying an endpoint that does not answer) is not a run the service cancels, and it kept the
 * process alive after the server had closed: so once the server and the service are closed (or
 * the grace is over) the process exits, instead of returning and waiting for the event loop.
 */
async function stopServing(
  server: RunningServer,
  service: ReturnType<typeof createService>,
  io: { stderr(text: string): void },
): Promise<number> {
  const overdue = setTimeout(() => {
    io.stderr(`serve: did not stop within ${SERVE_STOP_GRACE_MS} ms; exiting anyway\n`);
    process.exit(1);
  }, SERVE_STOP_GRACE_MS);
  let code = 0;
  try {
    // The server first: no request starts anything while the runs are being cancelled.
    await server.close();
    await service.close();
  } catch (error) {
    io.stderr(
      `serve: stopping failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    code = 1;
  } finally {
    clearTimeout(overdue);
  }
  // Whatever is still pending (a request's own work) does not keep the process: it is over.
  setImmediate(() => process.exit(code)).unref();
  return code;
}
