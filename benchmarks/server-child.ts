/**
 * The server under test for `npm run bench -- server`: the real service behind the real HTTP
 * transport, in its own process so the load generator's work never shares its event loop.
 * argv: <data dir> <read workers> [dataset dir] [dataset worker from bytes]. Prints one JSON line
 * {port, token}; stops on SIGTERM.
 */
import { join } from 'node:path';
import { createService } from '../src-main/core/service';
import { startServer } from '../src-main/server/server';

async function main(): Promise<void> {
  const [dataDir, workers, datasetDir, datasetWorkerFromBytes] = process.argv.slice(2);
  if (dataDir === undefined || workers === undefined)
    throw new Error('usage: <data dir> <read workers> [dataset dir] [dataset worker from bytes]');
  const service = createService({
    dataDir,
    transport: 'http',
    readWorkers: Number(workers),
    ...(datasetDir !== undefined ? { datasetDirs: [datasetDir] } : {}),
    ...(datasetWorkerFromBytes !== undefined
      ? { datasetWorkerFromBytes: Number(datasetWorkerFromBytes) }
      : {}),
  });
  const server = await startServer({
    handlers: service.handlers,
    serialized: service.serialized,
    staticDir: join(dataDir, 'static'),
  });
  process.stdout.write(`${JSON.stringify({ port: server.port, token: server.token })}\n`);
  process.once('SIGTERM', () => {
    void service
      .close()
      .then(() => server.close())
      .then(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
