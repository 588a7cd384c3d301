import { WorkbenchError } from '../../../src-shared/errors';

/**
 * A run's LLM request budget: at most `limit` HTTP requests in flight per endpoint, shared by every
 * sample and every worker thread of the run (the workers ask the main thread's budget by message,
 * see pipeline/remoteGate.ts), so an endpoint's rate limit is one budget, not one per worker.
 *
 * Why one budget in the main thread rather than `limit / workers` per worker: a split budget
 * leaves slots idle whenever a worker has fewer questions in flight than its share (the tail of a
 * run, a sample that is inserting), and an adaptive limit (429s) must slow every worker at once.
 * A grant costs one message each way, microseconds against an LLM call.
 */
export interface CallGate {
  /** Runs `task` once `endpoint` has a free slot; the slot is held until the task settles. */
  run<T>(endpoint: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
}

/** Gives a slot back; calling it again does nothing. */
export type Release = () => void;

class EndpointGate {
  active = 0;
  /** Most requests ever in flight at once (what a benchmark checks against the limit). */
  peak = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(public limit: number) {}

  acquire(signal: AbortSignal | undefined, label: string): Promise<Release> {
    return new Promise<Release>((resolve, reject) => {
      if (signal?.aborted) {
        reject(cancelled(label));
        return;
      }
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        this.active++;
        this.peak = Math.max(this.peak, this.active);
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          this.active--;
          this.pump();
        });
      };
      const onAbort = (): void => {
        const i = this.waiting.indexOf(grant);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(cancelled(label));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(grant);
      this.pump();
    });
  }

  private pump(): void {
    while (this.active < this.limit && this.waiting.length > 0) this.waiting.shift()?.();
  }

  setLimit(limit: number): void {
    this.limit = limit;
    this.pump();
  }
}

function cancelled(label: string): WorkbenchError {
  return new WorkbenchError('CANCELLED', `${label}: cancelled while waiting for a request slot`);
}

export class CallBudget implements CallGate {
  private readonly gates = new Map<string, EndpointGate>();

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new WorkbenchError(
        'INVALID_INPUT',
        `call budget: limit ${limit} is not a positive integer`,
      );
    }
  }

  private gate(endpoint: string): EndpointGate {
    let gate = this.gates.get(endpoint);
    if (!gate) {
      gate = new EndpointGate(this.limit);
      this.gates.set(endpoint, gate);
    }
    return gate;
  }

  /** Holds a slot of `endpoint` until the returned release is called. */
  acquire(endpoint: string, signal?: AbortSignal): Promise<Release> {
    return this.gate(endpoint).acquire(signal, `request budget of ${endpoint}`);
  }

  async run<T>(endpoint: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(endpoint, signal);
    try {
      return await task();
    } finally {
      release();
    }
  }

  /** Requests in flight now and at most so far, per endpoint. */
  stats(): Record<string, { active: number; peak: number; limit: number }> {
    const out: Record<string, { active: number; peak: number; limit: number }> = {};
    for (const [endpoint, g] of this.gates) {
      out[endpoint] = { active: g.active, peak: g.peak, limit: g.limit };
    }
    return out;
  }
}
