import type { Worker } from 'node:worker_threads';
import type { ApiOutput, ApiParsedInput } from '../../../src-shared/api';
import { WorkbenchError } from '../../../src-shared/errors';
import type { JsonBytes } from '../dispatch';
import { sequenceChecker, sequencer } from '../pipeline/protocol';
import { RUNS_READ_WORKER, startWorker } from '../pipeline/workerUrl';
import type { WorkerReadMethod } from './queries';
import { readOutSchema, type ReadIn } from './readProtocol';

/**
 * Runs the API's read views (queries.ts) in worker threads over read-only connections to the
 * runs DB, so DESIGN §1's "the main thread never blocks" holds while a full run is read, exported
 * or compared. The main thread keeps the single writer; WAL gives each read the state of the last
 * commit, so a write is visible to every read that starts after it.
 *
 * One call per worker at a time (SQLite reads are synchronous there anyway); the rest wait in a
 * bounded queue. A worker that dies fails only the call it was running, with a coded error, and
 * is replaced on the next call. Idle workers are unref'd: they never keep a CLI alive.
 */
export interface RunReadWorkersOptions {
  /** The runs DB; a writer must have created and migrated it before the first call. */
  file: string;
  /** The data folder, for views that name the user's files (reproduce.results); else they fail. */
  dataDir?: string;
  /** Worker threads (default 1, so reads never take more than one core from experiments). */
  size?: number;
  /** Calls allowed to wait for a worker; beyond it calls fail at once with BUSY. */
  maxQueue?: number;
  /** Sees each worker as it starts (diagnostics; tests use it to kill one). */
  onWorkerStart?: (worker: Worker) => void;
}

export const DEFAULT_READ_WORKERS = 1;
export const DEFAULT_READ_QUEUE = 1000;

interface Call {
  method: WorkerReadMethod;
  input: unknown;
  encoding: ReadIn['encoding'];
  resolve: (data: unknown) => void;
  reject: (error: WorkbenchError) => void;
}

interface Slot {
  worker: Worker;
  stamp: ReturnType<typeof sequencer<ReadIn>>;
  checkSeq: (seq: number) => string | null;
  running: { seq: number; call: Call } | null;
  lost: boolean;
}

export class RunReadWorkers {
  private readonly slots: Slot[] = [];
  private readonly queue: Call[] = [];
  private readonly size: number;
  private readonly maxQueue: number;
  private started = 0;
  private closed = false;

  constructor(private readonly options: RunReadWorkersOptions) {
    this.size = Math.max(1, options.size ?? DEFAULT_READ_WORKERS);
    this.maxQueue = options.maxQueue ?? DEFAULT_READ_QUEUE;
  }

  /** Workers started so far, replacements included. */
  get workersStarted(): number {
    return this.started;
  }

  call<K extends WorkerReadMethod>(method: K, input: ApiParsedInput<K>): Promise<ApiOutput<K>> {
    return this.enqueue(method, input, 'object') as Promise<ApiOutput<K>>;
  }

  /** The same view, as its output's JSON in UTF-8 bytes (for transports that send JSON). */
  callJson<K extends WorkerReadMethod>(
    method: K,
    input: ApiParsedInput<K>,
  ): Promise<JsonBytes<ApiOutput<K>>> {
    return this.enqueue(method, input, 'json') as Promise<JsonBytes<ApiOutput<K>>>;
  }

  private enqueue(
    method: WorkerReadMethod,
    input: unknown,
    encoding: Call['encoding'],
  ): Promise<unknown> {
    if (this.closed) {
      return Promise.reject(
        new WorkbenchError('CANCELLED', `runs read worker: closed before ${method}`),
      );
    }
    if (this.queue.length >= this.maxQueue) {
      return Promise.reject(
        new WorkbenchError(
          'BUSY',
          `runs read worker: ${this.queue.length} reads already waiting; ${method} refused, retry later`,
        ),
      );
    }
    return new Promise<unknown>((resolve, reject) => {
      this.queue.push({ method, input, encoding, resolve, reject });
      this.pump();
    });
  }

  /**
   * Starts one worker ahead of the first read, idle and unref'd (it never keeps a process alive):
   * a cold worker takes seconds to load on a busy machine, and the first read would wait for it.
   */
  warm(): void {
    if (this.closed || this.slots.length > 0) return;
    this.spawn().worker.unref();
  }

  /** Fails waiting and running calls with CANCELLED and ends every worker. */
  async close(): Promise<void> {
    this.closed = true;
    const cancelled = (call: Call): void =>
      call.reject(
        new WorkbenchError('CANCELLED', `runs read worker: closed during ${call.method}`),
      );
    for (const call of this.queue.splice(0)) cancelled(call);
    const slots = this.slots.splice(0);
    for (const slot of slots) {
      slot.lost = true;
      if (slot.running) cancelled(slot.running.call);
      slot.running = null;
    }
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  private pump(): void {
    while (this.queue.length > 0 && !this.closed) {
      let slot = this.slots.find((s) => s.running === null);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      const call = this.queue.shift() as Call;
      const message = slot.stamp({
        type: 'call',
        method: call.method,
        input: call.input,
        encoding: call.encoding,
      });
      slot.running = { seq: message.seq, call };
      slot.worker.ref();
      slot.worker.postMessage(message);
    }
  }

  private spawn(): Slot {
    this.started++;
    const worker = startWorker(RUNS_READ_WORKER, {
      name: `runs read worker ${this.started}`,
      workerData: {
        file: this.options.file,
        ...(this.options.dataDir !== undefined ? { dataDir: this.options.dataDir } : {}),
      },
    });
    const slot: Slot = {
      worker,
      stamp: sequencer<ReadIn>(),
      checkSeq: sequenceChecker('main thread (runs read worker)'),
      running: null,
      lost: false,
    };
    worker.on('message', (raw: unknown) => this.onMessage(slot, raw));
    worker.on('error', (error) => this.lose(slot, `crashed: ${error.message}`));
    worker.on('exit', (code) => this.lose(slot, `exited (code ${code})`));
    this.slots.push(slot);
    this.options.onWorkerStart?.(worker);
    return slot;
  }

  private onMessage(slot: Slot, raw: unknown): void {
    if (slot.lost) return;
    const parsed = readOutSchema.safeParse(raw);
    if (!parsed.success) {
      this.lose(slot, `sent a bad message: ${parsed.error.message}`);
      return;
    }
    const message = parsed.data;
    const gap = slot.checkSeq(message.seq);
    if (gap !== null) {
      this.lose(slot, gap);
      return;
    }
    const running = slot.running;
    if (running === null || message.re !== running.seq) {
      this.lose(
        slot,
        message.type === 'error'
          ? `protocol error: ${message.error.message}`
          : `answered call ${message.re ?? 'none'}, but call ${running?.seq ?? 'none'} was running`,
      );
      return;
    }
    if (
      message.type === 'result' &&
      running.call.encoding === 'json' &&
      !(message.data instanceof Uint8Array)
    ) {
      this.lose(slot, `answered ${running.call.method} with something other than JSON bytes`);
      return;
    }
    slot.running = null;
    slot.worker.unref();
    if (message.type === 'result') running.call.resolve(message.data);
    else running.call.reject(WorkbenchError.fromPayload(message.error));
    this.pump();
  }

  /** A dead or broken worker: fail its call, drop it, and let the next call start a new one. */
  private lose(slot: Slot, why: string): void {
    if (slot.lost) return;
    slot.lost = true;
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    void slot.worker.terminate();
    const running = slot.running;
    slot.running = null;
    running?.call.reject(
      new WorkbenchError(
        'INTERNAL',
        `runs read worker ${why} during ${running.call.method}; the read was not completed`,
        { where: this.options.file },
      ),
    );
    if (!this.closed) this.pump();
  }
}
