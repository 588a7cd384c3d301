// Worker thread entry for opening a large dataset file: reading, JSON parsing, zod validation,
// normalising and the stats tally run here, so the main thread (which serves every other request)
// only receives the samples, in batches. electron-vite builds it as
// out/main/dataset-load-worker.js; from source it is started through tsx (pipeline/workerUrl.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { benchmarkProfile } from '../../src-shared/benchmarks';
import { toErrorPayload } from '../../src-shared/errors';
import { sequenceChecker, sequencer } from './pipeline/protocol';
import { datasetStats, loadDatasetFile } from './dataset';
import {
  HANDOVER_BATCH_BYTES,
  loadInSchema,
  loadWorkerDataSchema,
  type LoadOut,
} from './datasetLoadProtocol';

async function serve(port: NonNullable<typeof parentPort>): Promise<void> {
  const stamp = sequencer<LoadOut>();
  const send = (message: Parameters<typeof stamp>[0]): void => port.postMessage(stamp(message));
  const checkSeq = sequenceChecker('dataset load worker');
  try {
    const { file, maxBytes } = loadWorkerDataSchema.parse(workerData);
    const result = await loadDatasetFile(file, { maxBytes });
    const stats = datasetStats(result.samples, {}, benchmarkProfile(result.info.format));
    // The file's bytes per sample stand in for a sample's clone size: a batch is about
    // HANDOVER_BATCH_BYTES, so a 400 MB file is ~100 round trips, not one per sample.
    const perBatch = Math.max(
      1,
      Math.floor(HANDOVER_BATCH_BYTES / ((result.info.bytes ?? 0) / result.samples.length || 1)),
    );
    const sendNext = (): void => {
      // Taken out as they go: the worker's copy need not outlive the hand-over.
      const batch = result.samples.splice(0, perBatch);
      if (batch.length > 0) {
        send({ type: 'samples', samples: batch as unknown as Array<Record<string, unknown>> });
        return;
      }
      port.off('message', onNext);
      send({
        type: 'done',
        info: {
          format: result.info.format,
          source: result.info.source,
          bytes: result.info.bytes ?? 0,
          sha256: result.info.sha256 ?? '',
        },
        problems: result.problems.map((p) => ({ ...p, path: [...p.path] })),
        stats: stats as unknown as Record<string, unknown>,
      });
    };
    const onNext = (raw: unknown): void => {
      const parsed = loadInSchema.safeParse(raw);
      const gap = parsed.success ? checkSeq(parsed.data.seq) : parsed.error.message;
      if (gap !== null) {
        port.off('message', onNext);
        send({
          type: 'error',
          error: { code: 'INTERNAL', message: `dataset load worker: bad message: ${gap}` },
        });
        return;
      }
      sendNext();
    };
    port.on('message', onNext);
    sendNext();
  } catch (error) {
    const payload = toErrorPayload(error);
    send({
      type: 'error',
      error: { ...payload, path: payload.path ? [...payload.path] : undefined },
    });
  }
}

if (parentPort) void serve(parentPort);
