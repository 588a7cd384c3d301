// Worker thread entry for experiments: samples one after another (the executor reuses a worker
// so tsx and the word vectors load once per worker, not once per sample). electron-vite builds it as
// out/main/worker.js; from source it is started through tsx (see workerUrl.ts). The worker only
// computes: it sends each complete test to the main thread, which is the runs DB's single writer.
import { parentPort, workerData } from 'node:worker_threads';
import { WorkbenchError, toErrorPayload } from '../../../src-shared/errors';
import { createAnswerer } from './answerers';
import { adoptServiceChildTable } from '../memory/external/children';
import { createMemoryService } from '../memory/registry';
import { loadMemoryPresets } from './loadPresets';
import {
  ReportOutbox,
  sequenceChecker,
  sequencer,
  workerInSchema,
  workerInitSchema,
  type WorkerIn,
  type WorkerOut,
} from './protocol';
import {
  answererMeter,
  openResponseCache,
  runSample,
  type SampleHooks,
  type SampleJob,
} from './runSample';
import { RemoteCallGate } from './remoteGate';
import { installPunktModel } from '../scoring/punktModel';
import { shareWordVectorsFrom } from '../embed/winkVectors';
import { threadCpuMs } from './threadCpu';

function errorMessage(error: unknown): Extract<WorkerOut, { type: 'error' }>['error'] {
  const payload = toErrorPayload(error);
  return { ...payload, path: payload.path ? [...payload.path] : undefined };
}

/** The sample job a start message carries, as the worker runs it. */
function jobOf(message: Extract<WorkerIn, { type: 'start' }>): SampleJob {
  return {
    runId: message.runId,
    sample: message.sample,
    plan: message.plan,
    config: message.config,
    benchmark: message.benchmark,
    skipTests: new Set(message.skipTests),
    collectionDir: message.collectionDir,
    ...(message.cacheDir !== undefined ? { cacheDir: message.cacheDir } : {}),
    ...(message.responseCache !== undefined ? { responseCache: message.responseCache } : {}),
    ...(message.responseCacheScope !== undefined
      ? { responseCacheScope: message.responseCacheScope }
      : {}),
    ...(message.quoteReplies === false ? { quoteReplies: false } : {}),
    apiKeys: message.apiKeys,
  };
}

/** A sample's hooks in the worker: every report waits in the outbox for the next batch. */
function outboxHooks(outbox: ReportOutbox, stampCpu: boolean): SampleHooks {
  return {
    emit: (event) =>
      outbox.add({
        type: 'progress',
        // An extra field the envelope's loose schema carries through to onProgress.
        event: stampCpu ? Object.assign({ ...event }, { threadCpuMs: threadCpuMs() }) : event,
      }),
    commitTest: (test) => outbox.add({ type: 'test-result', test }),
    memoryDone: () => outbox.add({ type: 'memory-done' }),
    recordCalls: (record) => outbox.add({ type: 'calls', record }),
    log: (level, message) => outbox.add({ type: 'log', level, message }),
  };
}

function serve(port: NonNullable<typeof parentPort>, init: unknown): void {
  // Answers are scored here; BLEU-1 tokenises with NLTK's Punkt model when it is installed.
  installPunktModel();
  const stamp = sequencer<WorkerOut>();
  const outbox = new ReportOutbox((reports) => port.postMessage(stamp({ type: 'batch', reports })));
  // Reports wait in the outbox; any other message sends them first, so the order holds.
  const send = (message: Parameters<typeof stamp>[0]): void => {
    outbox.flush();
    port.postMessage(stamp(message));
  };
  const checkSeq = sequenceChecker('experiment worker');
  let cancel = new AbortController();
  let busy = false;
  // The run's request budget lives in the main thread; slots are asked for in the outbox's batches.
  const gate = new RemoteCallGate((request) => outbox.add(request));
  let stampCpu = false;
  // The word vectors are the process's, read once by the main thread and shared, not per worker.
  const vectorReplies = new Map<number, (image: SharedArrayBuffer | null) => void>();
  shareWordVectorsFrom(
    (request) =>
      new Promise((resolve) => {
        const id = vectorReplies.size + 1;
        vectorReplies.set(id, (image) => resolve(image === null ? null : new Uint8Array(image)));
        send({ type: 'word-vectors-acquire', id, request });
      }),
  );
  // Extra presets are the worker's, given once when it was started; a bad list fails every sample.
  const presetsLoaded = (async () => {
    const parsed = workerInitSchema.safeParse(init);
    if (!parsed.success) {
      throw new WorkbenchError(
        'INTERNAL',
        `experiment worker: bad workerData: ${parsed.error.message}`,
      );
    }
    adoptServiceChildTable(parsed.data.serviceChildren);
    stampCpu = parsed.data.threadCpu === true;
    await loadMemoryPresets(parsed.data.presetModules);
  })();
  // Reported by the first start; not an unhandled rejection before it.
  presetsLoaded.catch(() => undefined);

  const start = async (message: Extract<WorkerIn, { type: 'start' }>): Promise<void> => {
    cancel = new AbortController();
    await presetsLoaded;
    const { config } = message;
    const budget = message.budget === true ? gate : undefined;
    const job = jobOf(message);
    const cache = openResponseCache(job);
    const hooks = outboxHooks(outbox, stampCpu);
    const outcome = await runSample(job, hooks, {
      createMemory: (ctx) => createMemoryService(config.memory.preset, config.memory.config, ctx),
      answerer: createAnswerer(
        config.answerer,
        message.apiKeys,
        answererMeter(config.answerer, hooks),
        budget,
        cache,
        job.quoteReplies !== false,
      ),
      ...(budget ? { budget } : {}),
      ...(cache ? { responseCache: cache } : {}),
      signal: cancel.signal,
    }).finally(() => cache?.close());
    send({ type: 'done', outcome });
  };

  port.on('message', (raw: unknown) => {
    const parsed = workerInSchema.safeParse(raw);
    if (!parsed.success) {
      send({
        type: 'error',
        error: {
          code: 'INTERNAL',
          message: `experiment worker: bad message: ${parsed.error.message}`,
        },
      });
      return;
    }
    const message = parsed.data;
    const gap = checkSeq(message.seq);
    if (gap !== null) {
      send({ type: 'error', error: { code: 'INTERNAL', message: gap } });
      return;
    }
    if (message.type === 'cancel') {
      cancel.abort();
      return;
    }
    if (message.type === 'slot-granted') {
      for (const id of message.ids) gate.granted(id);
      return;
    }
    if (message.type === 'word-vectors') {
      vectorReplies.get(message.id)?.(message.image);
      return;
    }
    if (busy) {
      send({
        type: 'error',
        error: { code: 'INTERNAL', message: 'experiment worker: started while busy' },
      });
      return;
    }
    busy = true;
    start(message)
      .catch((error: unknown) => send({ type: 'error', error: errorMessage(error) }))
      .finally(() => {
        busy = false;
      });
  });
}

if (parentPort) serve(parentPort, workerData);
