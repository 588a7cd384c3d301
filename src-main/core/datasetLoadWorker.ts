import type { DatasetStats } from '../../src-shared/dataset/stats';
import type { DatasetLoadResult, Sample } from '../../src-shared/dataset/types';
import { WorkbenchError } from '../../src-shared/errors';
import { sequenceChecker, sequencer } from './pipeline/protocol';
import { DATASET_LOAD_WORKER, startWorker } from './pipeline/workerUrl';
import { datasetByteLimit } from './dataset';
import { loadOutSchema, type LoadIn, type LoadWorkerData } from './datasetLoadProtocol';

/**
 * From this size on, `datasets.open` loads a file in a worker thread. Below it the load takes
 * tens of milliseconds on the main thread, less than starting a worker (which from source also
 * starts tsx), so small files stay inline.
 */
export const OFF_THREAD_LOAD_BYTES = 16 * 1024 * 1024;

export interface OffThreadLoad {
  result: DatasetLoadResult;
  stats: DatasetStats;
}

/**
 * loadDatasetFile and datasetStats in a worker thread (dataset-load-worker-entry.ts): the main
 * thread only receives the validated samples, in batches it acknowledges one by one, so it stays
 * free to answer other requests between them. Errors are the loader's own, coded as when
 * it runs inline; a worker that dies or breaks the protocol fails the load with INTERNAL.
 */
export function loadDatasetFileOffThread(
  file: string,
  maxBytes: number = datasetByteLimit(),
): Promise<OffThreadLoad> {
  const data: LoadWorkerData = { file, maxBytes };
  const worker = startWorker(DATASET_LOAD_WORKER, {
    name: 'dataset load worker',
    workerData: data,
  });
  const stamp = sequencer<LoadIn>();
  const checkSeq = sequenceChecker('main thread (dataset load worker)');
  const samples: Sample[] = [];
  return new Promise<OffThreadLoad>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      outcome();
      void worker.terminate();
    };
    const broken = (why: string): void =>
      finish(() =>
        reject(
          new WorkbenchError('INTERNAL', `dataset load worker (${file}): ${why}`, { where: file }),
        ),
      );
    worker.on('message', (raw: unknown) => {
      if (settled) return;
      const parsed = loadOutSchema.safeParse(raw);
      if (!parsed.success) {
        broken(`sent a bad message: ${parsed.error.message}`);
        return;
      }
      const message = parsed.data;
      const gap = checkSeq(message.seq);
      if (gap !== null) {
        broken(gap);
        return;
      }
      switch (message.type) {
        case 'samples':
          for (const sample of message.samples) samples.push(sample as unknown as Sample);
          worker.postMessage(stamp({ type: 'next' }));
          return;
        case 'done':
          finish(() =>
            resolve({
              result: { info: message.info, samples, problems: message.problems },
              stats: message.stats as unknown as DatasetStats,
            }),
          );
          return;
        case 'error':
          finish(() => reject(WorkbenchError.fromPayload(message.error)));
      }
    });
    worker.on('error', (error) => broken(`crashed: ${error.message}`));
    worker.on('exit', (code) => broken(`exited (code ${code}) before it finished`));
  });
}
