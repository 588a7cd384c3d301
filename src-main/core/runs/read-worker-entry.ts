// Worker thread entry for runs DB reads: the API's heavy read views (runs.get, runs.answers,
// exports, comparisons) run here over a read-only connection, so the main thread (the single
// writer, and the one serving every other request) never blocks on them. electron-vite builds it
// as out/main/runs-read-worker.js; from source it is started through tsx (see
// pipeline/workerUrl.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { z } from 'zod';
import { apiMethods } from '../../../src-shared/api';
import { toErrorPayload, zodError } from '../../../src-shared/errors';
import { sequenceChecker, sequencer } from '../pipeline/protocol';
import { runQueries, type ReadMethod, type RunQueries } from './queries';
import { SqliteRunReader } from './reader';
import { readInSchema, type ReadOut } from './readProtocol';
import { installPunktModel } from '../scoring/punktModel';

const encoder = new TextEncoder();
const workerDataSchema = z.object({ file: z.string().min(1) });

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

function serve(port: NonNullable<typeof parentPort>, file: string): void {
  // Rows stored before a metric existed are scored on read; BLEU-1 needs the Punkt model too.
  installPunktModel();
  const stamp = sequencer<ReadOut>();
  const send = (message: Parameters<typeof stamp>[0], transfer: ArrayBuffer[] = []): void =>
    port.postMessage(stamp(message), transfer);
  const checkSeq = sequenceChecker('runs read worker');
  // Opened on the first call: a file that cannot be read yet fails that call, not the worker.
  let opened: { queries: RunQueries; snapshot: (view: () => unknown) => unknown } | undefined;
  const open = (): NonNullable<typeof opened> => {
    const reader = SqliteRunReader.openReadOnly(file);
    // Each view reads in one transaction, so it sees one commit's state even when the writer
    // deletes or adds a run between its queries (as it did when views ran on the main thread).
    return {
      queries: runQueries(reader),
      snapshot: reader.db.transaction((view: () => unknown) => view()),
    };
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
    try {
      opened ??= open();
      const { queries, snapshot } = opened;
      const data = snapshot(() => run(queries, message.method, message.input));
      if (message.encoding === 'object') {
        send({ type: 'result', re: message.seq, data });
      } else {
        const bytes = encoder.encode(JSON.stringify(data));
        send({ type: 'result', re: message.seq, data: bytes }, [bytes.buffer]);
      }
    } catch (error) {
      send({ type: 'error', re: message.seq, error: errorOf(error) });
    }
  });
}

if (parentPort) serve(parentPort, workerDataSchema.parse(workerData).file);
