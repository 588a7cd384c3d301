import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { DatasetInfo, DatasetProblem, Sample } from '../../../src-shared/dataset/types';
import { WorkbenchError } from '../../../src-shared/errors';
import { jsonArrayElements } from './jsonArrayStream';
import { datasetByteLimit, readFailure } from './load';
import {
  LongMemEvalQuestionReader,
  looksLikeLongMemEvalQuestion,
  readLongMemEvalQuestion,
} from './longmemeval';
import { isRecord } from './problems';

/**
 * A LongMemEval file read as a stream, for files too large to load whole (M: ~2.7 GB). A run
 * makes two passes: an index pass that validates every question, hashes the bytes and keeps only
 * what the run plans with (the caller's `onSample` sees each sample while it is in memory), then
 * a reader that hands out the questions one at a time, in file order, as the run reaches them.
 */

/** What the index pass keeps: no haystack. */
export interface LongMemEvalFileIndex {
  info: DatasetInfo;
  problems: DatasetProblem[];
  /** The valid questions' ids, in file order. */
  sampleIds: string[];
  /** The file's size and mtime when indexed: the reader refuses a file changed since. */
  stamp: FileStamp;
}

export interface FileStamp {
  size: number;
  mtimeMs: number;
}

/** The file's size and mtime now: what says a streamed file was not rewritten since a pass. */
export async function stampOf(file: string): Promise<FileStamp> {
  try {
    const info = await stat(file);
    return { size: info.size, mtimeMs: info.mtimeMs };
  } catch (error) {
    throw readFailure(file, error);
  }
}

/** Far above one LongMemEval M question (~6 MB): a first element larger than this is not one. */
const PEEK_MAX_BYTES = 64 * 1024 * 1024;

/** True when the file's first array element is a LongMemEval question; reads only that element. */
export async function isLongMemEvalFile(file: string, maxBytes = PEEK_MAX_BYTES): Promise<boolean> {
  let read = 0;
  const bounded = (chunk: Buffer): void => {
    read += chunk.length;
    if (read > maxBytes) throw new Error('first element too large');
  };
  const chunkBytes = Math.min(1 << 20, maxBytes);
  try {
    for await (const { value } of jsonArrayElements(file, chunkBytes, bounded)) {
      return looksLikeLongMemEvalQuestion(value);
    }
  } catch {
    // Not a JSON array (or broken before its first element): the whole-file path says what is wrong.
  }
  return false;
}

/**
 * True when the file is over the whole-file limit and a LongMemEval file: a run streams it
 * instead of refusing it (LoCoMo files and files within the limit are loaded whole).
 */
export async function streamsDataset(path: string): Promise<boolean> {
  const { size } = await stampOf(path);
  return size > datasetByteLimit() && (await isLongMemEvalFile(path));
}

/**
 * Validates every question of the file, one at a time, and hashes its bytes in the same pass.
 * Throws like the whole-file loader when no question is usable.
 */
export async function indexLongMemEvalFile(
  file: string,
  onSample: (sample: Sample) => void,
): Promise<LongMemEvalFileIndex> {
  const stamp = await stampOf(file);
  const hash = createHash('sha256');
  let bytes = 0;
  const reader = new LongMemEvalQuestionReader({ source: file });
  const sampleIds: string[] = [];
  try {
    for await (const { index, value } of jsonArrayElements(file, undefined, (chunk) => {
      hash.update(chunk);
      bytes += chunk.length;
    })) {
      const sample = reader.read(value, index);
      if (!sample) continue;
      sampleIds.push(sample.sampleId);
      onSample(sample);
    }
  } catch (error) {
    if (error instanceof WorkbenchError) throw error;
    throw readFailure(file, error);
  }
  const first = reader.problems.find((p) => p.severity === 'error');
  if (sampleIds.length === 0) {
    throw new WorkbenchError(
      first?.code ?? 'DATASET_INVALID',
      `${first?.message ?? `${file}: not a LongMemEval file: the array has no questions`} (no sample could be loaded)`,
      { where: file, ...(first ? { path: first.path } : {}) },
    );
  }
  return {
    info: { format: 'longmemeval', source: file, bytes, sha256: hash.digest('hex') },
    problems: reader.problems,
    sampleIds,
    stamp,
  };
}

/**
 * Hands out an indexed file's questions as samples, reading forward: ask for them in file order
 * (concurrent calls are served in call order). Only the question being handed out is in memory.
 */
export class LongMemEvalFileReader {
  readonly #file: string;
  readonly #stamp: FileStamp;
  #elements: AsyncGenerator<{ index: number; value: unknown }> | null = null;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(file: string, index: LongMemEvalFileIndex) {
    this.#file = file;
    this.#stamp = index.stamp;
  }

  take(sampleId: string): Promise<Sample> {
    const next = this.#queue.then(() => this.#take(sampleId));
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    await this.#queue;
    await this.#elements?.return(undefined);
    this.#elements = null;
  }

  #changed(detail: string): WorkbenchError {
    return new WorkbenchError(
      'DATASET_INVALID',
      `${this.#file}: the file changed since it was indexed (${detail}); start the run again`,
      { where: this.#file },
    );
  }

  async #take(sampleId: string): Promise<Sample> {
    if (this.#elements === null) {
      const now = await stampOf(this.#file);
      if (now.size !== this.#stamp.size || now.mtimeMs !== this.#stamp.mtimeMs) {
        throw this.#changed(`size or modification time differ`);
      }
      this.#elements = jsonArrayElements(this.#file);
    }
    for (;;) {
      const next = await this.#elements.next();
      if (next.done === true) throw this.#changed(`question "${sampleId}" is not where it was`);
      const { index, value } = next.value;
      if (!isRecord(value) || value['question_id'] !== sampleId) continue;
      const read = readLongMemEvalQuestion(value, index, { source: this.#file });
      if (!read.sample) throw this.#changed(`question "${sampleId}" is no longer valid`);
      return read.sample;
    }
  }
}
