import type { WorkbenchError } from '../../../src-shared/errors';
import {
  slotWaitCancelled,
  type CallBudget,
  type CallGate,
  type Release,
  type SlotOutcome,
} from '../http/callBudget';

/**
 * The run's request budget across the worker boundary. The budget lives in the main thread (one
 * per run, see http/callBudget.ts); a worker's clients ask it for a slot per HTTP attempt with
 * `slot-acquire`, wait for `slot-granted`, and give the slot back with `slot-release`. Both sides
 * send what one run of microtasks produced as one message (protocol.ts's outbox, and the lender's
 * grants here): at 0.1 s a call, a message each way per ask and release was a good part of a lane's
 * postMessage time.
 */

export type SlotRequest =
  | { type: 'slot-acquire'; id: number; endpoint: string; tokens?: number }
  | {
      type: 'slot-release';
      id: number;
      throttled?: boolean;
      retryAfterMs?: number;
      tokens?: number;
    };

/** Worker side: a CallGate whose slots come from the main thread. */
export class RemoteCallGate implements CallGate {
  private nextId = 0;
  private readonly waiting = new Map<number, () => void>();

  constructor(private readonly send: (message: SlotRequest) => void) {}

  /** Main granted slot `id`; a grant for an ask already withdrawn is ignored (it was released). */
  granted(id: number): void {
    const go = this.waiting.get(id);
    this.waiting.delete(id);
    go?.();
  }

  async run<T>(
    endpoint: string,
    task: () => Promise<T>,
    signal?: AbortSignal,
    outcome?: (result: T) => SlotOutcome,
    tokens?: number,
  ): Promise<T> {
    const id = ++this.nextId;
    await new Promise<void>((resolve, reject) => {
      const refuse = (): WorkbenchError => slotWaitCancelled(endpoint);
      if (signal?.aborted) {
        reject(refuse());
        return;
      }
      const onAbort = (): void => {
        this.waiting.delete(id);
        this.send({ type: 'slot-release', id });
        reject(refuse());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(id, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      this.send({
        type: 'slot-acquire',
        id,
        endpoint,
        ...(tokens !== undefined ? { tokens } : {}),
      });
    });
    let result: SlotOutcome | undefined;
    try {
      const value = await task();
      result = outcome?.(value);
      return value;
    } finally {
      this.send({ type: 'slot-release', id, ...result });
    }
  }
}

/**
 * Main side, one per sample a worker runs: lends the worker slots of the run's budget and takes
 * back every one still out when the sample ends (a crashed or cancelled worker never leaks them).
 */
export class SlotLender {
  private readonly held = new Map<number, Release>();
  private readonly pending = new Map<number, AbortController>();
  private closed = false;
  /** Granted in this run of microtasks, sent together once it ends. */
  private granting: number[] = [];

  constructor(
    private readonly budget: CallBudget | undefined,
    private readonly sendGrants: (ids: number[]) => void,
  ) {}

  private grant(id: number): void {
    if (this.granting.length === 0) {
      // The slots one release or one pump frees are granted in the same run of microtasks.
      queueMicrotask(() => {
        const ids = this.granting;
        this.granting = [];
        // A sample that ended meanwhile took its slots back (close).
        if (!this.closed && ids.length > 0) this.sendGrants(ids);
      });
    }
    this.granting.push(id);
  }

  handle(message: SlotRequest): void {
    if (message.type === 'slot-acquire') {
      this.acquire(message.id, message.endpoint, message.tokens ?? 0);
      return;
    }
    const { throttled, retryAfterMs, tokens } = message;
    const used = tokens !== undefined ? { tokens } : {};
    this.release(
      message.id,
      throttled
        ? { throttled: true, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}), ...used }
        : tokens !== undefined
          ? { throttled: false, ...used }
          : undefined,
    );
  }

  private acquire(id: number, endpoint: string, tokens: number): void {
    if (this.closed) return;
    // Without a run budget (no `concurrency`) a worker never asks; if it does, it need not wait.
    if (!this.budget) {
      this.grant(id);
      return;
    }
    const abort = new AbortController();
    this.pending.set(id, abort);
    this.budget.acquire(endpoint, abort.signal, tokens).then(
      (release) => {
        this.pending.delete(id);
        if (this.closed) {
          release();
          return;
        }
        this.held.set(id, release);
        this.grant(id);
      },
      () => this.pending.delete(id),
    );
  }

  private release(id: number, outcome?: SlotOutcome): void {
    this.held.get(id)?.(outcome ?? { throttled: false });
    this.held.delete(id);
    this.pending.get(id)?.abort();
    this.pending.delete(id);
  }

  /** The sample ended: every slot still lent goes back to the budget. */
  close(): void {
    this.closed = true;
    for (const release of this.held.values()) release();
    for (const abort of this.pending.values()) abort.abort();
    this.held.clear();
    this.pending.clear();
  }
}
