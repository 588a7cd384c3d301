import { WorkbenchError } from '../../../src-shared/errors';
import { DEFAULT_MAX_RETRY_AFTER_MS, spokenWait } from './retry';

/**
 * A run's LLM request budget: at most `limit` HTTP requests in flight per endpoint, shared by every
 * sample and every worker thread of the run (the workers ask the main thread's budget by message,
 * see pipeline/remoteGate.ts), so an endpoint's rate limit is one budget, not one per worker.
 *
 * Why one budget in the main thread rather than `limit / workers` per worker: a split budget
 * leaves slots idle whenever a worker has fewer questions in flight than its share (the tail of a
 * run, a sample that is inserting), and an adaptive limit (429s) must slow every worker at once.
 * A grant costs one message each way, microseconds against an LLM call.
 *
 * Adaptive (AIMD): a 429 halves the endpoint's limit and, with Retry-After, holds every new
 * request until then, but never longer than the retry policy's cap (`PauseCap`: a server cannot
 * hold a run for a day); each run of `limit` successes adds one slot back, up to the configured
 * limit. A requests-per-minute cap is a sliding window: never more than `rpm` request starts in
 * any 60 s. A tokens-per-minute cap is one too: a request reserves its estimated tokens (prompt
 * plus its answer allowance) when it starts, the reservation becomes the reply's reported usage
 * when it ends, and a request starts only while the window has room for its estimate (or the
 * window is empty, so one request larger than the cap still runs, alone).
 */
export interface CallGate {
  /**
   * Runs `task` once `endpoint` has a free slot; the slot is held until the task settles.
   * `outcome` reads the task's result: a throttled one (a 429) slows the endpoint down.
   */
  run<T>(
    endpoint: string,
    task: () => Promise<T>,
    signal?: AbortSignal,
    outcome?: (result: T) => SlotOutcome,
    /** The request's estimated tokens, reserved against a tokens-per-minute cap. */
    tokens?: number,
  ): Promise<T>;
}

/**
 * How a request that held a slot ended, as far as the budget cares; `tokens`: the usage the
 * reply reported, which replaces the start's estimate in the tokens-per-minute window.
 */
export type SlotOutcome =
  | { throttled: false; tokens?: number }
  | { throttled: true; retryAfterMs?: number; tokens?: number };

/**
 * The longest pause a 429's Retry-After may impose on an endpoint (default: the retry policy's
 * cap, http/retry.ts DEFAULT_MAX_RETRY_AFTER_MS), and who hears of a pause it cut short.
 */
export interface PauseCap {
  maxMs?: number;
  onCapped?: (endpoint: string, askedMs: number, capMs: number) => void;
}

/** What a run's warnings say when a pause was cut to the cap. */
export function cappedPauseMessage(endpoint: string, askedMs: number, capMs: number): string {
  return `${endpoint}: server asked to wait ${spokenWait(askedMs)}; waiting the cap of ${spokenWait(capMs)}`;
}

/** Gives a slot back; calling it again does nothing. */
export type Release = (outcome?: SlotOutcome) => void;

export interface EndpointLimits {
  /** Request starts allowed in any 60 s window. */
  requestsPerMinute?: number | undefined;
  /** Prompt plus completion tokens allowed in any 60 s window. */
  tokensPerMinute?: number | undefined;
}

/**
 * The requests-per-minute window, with a second's slack: the server counts a request when it
 * arrives, a little after this side let it start, so an exact 60 s window could put one request
 * over the limit in the server's count.
 */
const MINUTE_MS = 61_000;

class EndpointGate {
  active = 0;
  /** Most requests ever in flight at once (what a benchmark checks against the limit). */
  peak = 0;
  /** 429s seen, and how often the limit was lowered or raised. */
  throttles = 0;
  limit: number;
  private successes = 0;
  private pausedUntil = 0;
  private readonly starts: number[] = [];
  /** Token reservations of the last minute, oldest first (tokens-per-minute cap only). */
  private readonly spent: Array<{ at: number; tokens: number }> = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = 0;
  private readonly waiting: Array<{ grant: () => void; tokens: number }> = [];

  constructor(
    readonly maxLimit: number,
    private readonly rpm: number | undefined,
    private readonly tpm: number | undefined,
    private readonly now: () => number,
    private readonly capped: (askedMs: number) => number,
  ) {
    this.limit = maxLimit;
  }

  acquire(signal: AbortSignal | undefined, endpoint: string, tokens = 0): Promise<Release> {
    return new Promise<Release>((resolve, reject) => {
      if (signal?.aborted) {
        reject(slotWaitCancelled(endpoint));
        return;
      }
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        this.active++;
        this.peak = Math.max(this.peak, this.active);
        const reservation = this.tpm === undefined ? null : { at: this.now(), tokens };
        if (reservation) this.spent.push(reservation);
        let released = false;
        resolve((outcome) => {
          if (released) return;
          released = true;
          this.active--;
          if (reservation && outcome?.tokens !== undefined) reservation.tokens = outcome.tokens;
          if (outcome) this.learn(outcome);
          this.pump();
        });
      };
      const waiter = { grant, tokens };
      const onAbort = (): void => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(slotWaitCancelled(endpoint));
        // The head may have been what held the others back.
        this.pump();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
      this.pump();
    });
  }

  /** AIMD: halve on a throttle (and hold until Retry-After), one more slot per `limit` successes. */
  private learn(outcome: SlotOutcome): void {
    if (outcome.throttled) {
      this.throttles++;
      this.successes = 0;
      this.limit = Math.max(1, Math.floor(this.limit / 2));
      if (outcome.retryAfterMs !== undefined) {
        const pause = this.capped(outcome.retryAfterMs);
        this.pausedUntil = Math.max(this.pausedUntil, this.now() + pause);
      }
      return;
    }
    if (this.limit >= this.maxLimit) return;
    if (++this.successes >= this.limit) {
      this.successes = 0;
      this.limit++;
    }
  }

  /**
   * When the next request, reserving `tokens`, may start by time (Retry-After, the rpm and tpm
   * windows); 0: now.
   */
  private notBefore(now: number, tokens: number): number {
    let at = this.pausedUntil > now ? this.pausedUntil : 0;
    if (this.rpm !== undefined) {
      while (this.starts.length > 0 && (this.starts[0] as number) <= now - MINUTE_MS) {
        this.starts.shift();
      }
      if (this.starts.length >= this.rpm) {
        at = Math.max(at, (this.starts[0] as number) + MINUTE_MS);
      }
    }
    if (this.tpm !== undefined) {
      while (this.spent.length > 0 && (this.spent[0]?.at as number) <= now - MINUTE_MS) {
        this.spent.shift();
      }
      // Waits until enough of the oldest reservations leave the window to make room.
      let inWindow = this.spent.reduce((sum, r) => sum + r.tokens, 0);
      for (const r of this.spent) {
        if (inWindow + tokens <= this.tpm) break;
        inWindow -= r.tokens;
        at = Math.max(at, r.at + MINUTE_MS);
      }
    }
    return at;
  }

  private pump(): void {
    while (this.active < this.limit && this.waiting.length > 0) {
      const now = this.now();
      const at = this.notBefore(now, this.waiting[0]?.tokens ?? 0);
      if (at > now) {
        // A sooner wake-up replaces a later one (the waiter that needed it was cancelled).
        if (this.timer !== undefined && at < this.timerAt) {
          clearTimeout(this.timer);
          this.timer = undefined;
        }
        if (this.timer === undefined) {
          this.timerAt = at;
          this.timer = setTimeout(() => {
            this.timer = undefined;
            this.pump();
          }, at - now);
        }
        return;
      }
      if (this.rpm !== undefined) this.starts.push(now);
      this.waiting.shift()?.grant();
    }
  }
}

/** The error of a request cancelled before `endpoint`'s budget gave it a slot. */
export function slotWaitCancelled(endpoint: string): WorkbenchError {
  return new WorkbenchError(
    'CANCELLED',
    `request budget of ${endpoint}: cancelled while waiting for a request slot`,
  );
}

export interface EndpointBudgetStats {
  active: number;
  peak: number;
  limit: number;
  throttles: number;
}

export class CallBudget implements CallGate {
  private readonly gates = new Map<string, EndpointGate>();

  constructor(
    readonly limit: number,
    /** Per-endpoint caps by base URL. */
    private readonly limits: ReadonlyMap<string, EndpointLimits> = new Map(),
    private readonly now: () => number = Date.now,
    /**
     * Awaited with a slot held, before the request starts: a rate budget shared beyond this
     * process (http/redisTokenBucket.ts). A rejection gives the slot back.
     */
    private readonly beforeStart?: (endpoint: string, signal?: AbortSignal) => Promise<void>,
    private readonly pauseCap: PauseCap = {},
  ) {
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
      const limits = this.limits.get(endpoint);
      gate = new EndpointGate(
        this.limit,
        limits?.requestsPerMinute,
        limits?.tokensPerMinute,
        this.now,
        (askedMs) => {
          const capMs = this.pauseCap.maxMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
          if (askedMs <= capMs) return askedMs;
          this.pauseCap.onCapped?.(endpoint, askedMs, capMs);
          return capMs;
        },
      );
      this.gates.set(endpoint, gate);
    }
    return gate;
  }

  /**
   * Holds a slot of `endpoint` until the returned release is called; `tokens`: the request's
   * estimate, reserved against a tokens-per-minute cap.
   */
  async acquire(endpoint: string, signal?: AbortSignal, tokens = 0): Promise<Release> {
    const release = await this.gate(endpoint).acquire(signal, endpoint, tokens);
    if (!this.beforeStart) return release;
    try {
      await this.beforeStart(endpoint, signal);
    } catch (error) {
      release();
      throw error;
    }
    return release;
  }

  async run<T>(
    endpoint: string,
    task: () => Promise<T>,
    signal?: AbortSignal,
    outcome?: (result: T) => SlotOutcome,
    tokens?: number,
  ): Promise<T> {
    const release = await this.acquire(endpoint, signal, tokens);
    let result: SlotOutcome | undefined;
    try {
      const value = await task();
      result = outcome?.(value);
      return value;
    } finally {
      release(result);
    }
  }

  /** Requests in flight now and at most so far, the current limit and 429s, per endpoint. */
  stats(): Record<string, EndpointBudgetStats> {
    const out: Record<string, EndpointBudgetStats> = {};
    for (const [endpoint, g] of this.gates) {
      out[endpoint] = { active: g.active, peak: g.peak, limit: g.limit, throttles: g.throttles };
    }
    return out;
  }
}
