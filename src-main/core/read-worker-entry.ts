// Worker thread entry for runs DB reads: the API's heavy read views (runs.get, runs.answers,
// exports, comparisons, a reproduce pack's stored results) run here over a read-only connection,
// so the main thread (the single writer, and the one serving every other request) never blocks
// on them. It sits beside the service, not in runs/, because it serves views of more than one
// domain (runs/queries.ts and reproduce/service.ts). electron-vite builds it as
// out/main/runs-read-worker.js; from source it is started through tsx (see pipeline/workerUrl.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { z } from 'zod';
import { apiMethods } from '../../src-shared/api';
import { WorkbenchError, toErrorPayload, zodError } from '../../src-shared/errors';
import { sequenceChecker, sequencer } from './pipeline/protocol';
import { runQueries, type ReadMethod, type RunQueries } from './runs/queries';
import { SqliteRunReader } from './runs/reader';
import { readInSchema, type ReadIn, type ReadOut } from './runs/readProtocol';
import { installPunktModel } from './scoring/punktModel';

const encoder = new TextEncoder();
const workerDataSchema = z.object({
  file: z.string().min(1),
  /** The data folder: where reproduce.results finds the files the user gave for uploads. */
  dataDir: z.string().min(1).optional(),
});

function errorOf(error: unknown): Extract<ReadOut, { type: 'error' }>['error'] {
  const payload = toErrorPayload(error);
  return { ...payload, path: payload.path ? [...payload.path] : undefined };
}

/** Calls one view with an input checked against the API contract's schema for that method. */
function run<K extends ReadMethod>(queries: RunQueries, method: K, input: unknown): unknown {
  const parsed = apiMethods[method].input.safeParse(input);
  if (!parsed.success) throw zodError(parsed.error, `runs read worker: ${method} input`);
  const view = queries[method] as (input: unknown) => unknown;
  return view(parsed.data);
}

/**
 * A reproduce pack's stored results (`reproduce.results`): the same function the main thread ran,
 * imported on the first call so a worker that never serves it starts as fast as before; the pack
 * is loaded (awaited) before the one transaction that reads its runs.
 */
async function packResults(
  input: unknown,
  reader: SqliteRunReader,
  snapshot: <T>(view: () => T) => T,
  dataDir: string | undefined,
): Promise<unknown> {
  const parsed = apiMethods['reproduce.results'].input.safeParse(input);
  if (!parsed.success) throw zodError(parsed.error, 'runs read worker: reproduce.results input');
  if (dataDir === undefined)
    throw new WorkbenchError(
      'INTERNAL',
      'runs read worker: reproduce.results needs the data folder (dataDir), which this worker was not given',
    );
  const [{ reproduceResults }, { recordedUserFiles }] = await Promise.all([
    import('./reproduce/service'),
    import('./datasets'),
  ]);
  return reproduceResults(parsed.data.packId, reader, recordedUserFiles(dataDir), snapshot);
}

function serve(
  port: NonNullable<typeof parentPort>,
  { file, dataDir }: z.output<typeof workerDataSchema>,
): void {
  // Rows stored before a metric existed are scored on read; BLEU-1 needs the Punkt model too.
  installPunktModel();
  const stamp = sequencer<ReadOut>();
  const send = (message: Parameters<typeof stamp>[0], transfer: ArrayBuffer[] = []): void =>
    port.postMessage(stamp(message), transfer);
  const checkSeq = sequenceChecker('runs read worker');
  // Opened on the first call: a file that cannot be read yet fails that call, not the worker.
  let opened:
    { reader: SqliteRunReader; queries: RunQueries; snapshot: <T>(view: () => T) => T } | undefined;
  const open = (): NonNullable<typeof opened> => {
    const reader = SqliteRunReader.openReadOnly(file);
    // Each view reads in one transaction, so it sees one commit's state even when the writer
    // deletes or adds a run between its queries (as it did when views ran on the main thread).
    const snapshot = reader.db.transaction((view: () => unknown) => view());
    return {
      reader,
      queries: runQueries(reader),
      snapshot: <T>(view: () => T): T => snapshot(view) as T,
    };
  };
  const answer = async (message: ReadIn): Promise<unknown> => {
    opened ??= open();
    const { reader, queries, snapshot } = opened;
    const { method, input } = message;
    if (method === 'reproduce.results') return packResults(input, reader, snapshot, dataDir);
    return snapshot(() => run(queries, method, input));
  };

  port.on('message', (raw: unknown) => {
    const parsed = readInSchema.safeParse(raw);
    if (!parsed.success) {
      send({
        type: 'error',
        re: null,
        error: {
          code: 'INTERNAL',
          message: `runs read worker: bad message: ${parsed.error.message}`,
        },
      });
      return;
    }
    const message = parsed.data;
    const gap = checkSeq(message.seq);
    if (gap !== null) {
      send({ type: 'error', re: message.seq, error: { code: 'INTERNAL', message: gap } });
      return;
    }
    // The pool sends one call at a time, so an awaited view never overlaps another.
    // A result that cannot be sent (or serialised) is answered as an error, as a failed view is.
    answer(message)
      .then((data) => {
        if (message.encoding === 'object') {
          send({ type: 'result', re: message.seq, data });
        } else {
          const bytes = encoder.encode(JSON.stringify(data));
          send({ type: 'result', re: message.seq, data: bytes }, [bytes.buffer]);
        }
      })
      .catch((error: unknown) => send({ type: 'error', re: message.seq, error: errorOf(error) }));
  });
}

if (parentPort) serve(parentPort, workerDataSchema.parse(workerData));
