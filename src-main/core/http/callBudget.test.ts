import { afterEach, describe, expect, it, vi } from 'vitest';
import { CallBudget, type Release } from './callBudget';
import { DEFAULT_MAX_RETRY_AFTER_MS } from './retry';

const EP = 'http://127.0.0.1:1/v1';

/** Acquires `n` slots; resolves with the releases granted so far once the queue settles. */
async function grab(budget: CallBudget, n: number): Promise<Release[]> {
  const granted: Release[] = [];
  for (let i = 0; i < n; i++) void budget.acquire(EP).then((r) => granted.push(r));
  await vi.advanceTimersByTimeAsync(0);
  return granted;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('CallBudget', () => {
  it('holds at most `limit` slots per endpoint, one queue per endpoint', async () => {
    vi.useFakeTimers();
    const budget = new CallBudget(3);
    const granted = await grab(budget, 5);
    expect(granted).toHaveLength(3);
    // Another endpoint has its own slots.
    const other = await budget.acquire('http://127.0.0.1:2/v1');
    other();
    granted[0]?.();
    await vi.advanceTimersByTimeAsync(0);
    expect(granted).toHaveLength(4);
    expect(budget.stats()[EP]).toMatchObject({ active: 3, peak: 3, limit: 3 });
  });

  it('pauses an endpoint no longer than the retry policy cap, whatever Retry-After asks, and says so', async () => {
    vi.useFakeTimers();
    const capped: Array<[string, number, number]> = [];
    const budget = new CallBudget(2, new Map(), Date.now, undefined, {
      onCapped: (...args) => capped.push(args),
    });
    const [first] = await grab(budget, 1);
    // Retry-After: 100000 (seconds), as a server once sent.
    first?.({ throttled: true, retryAfterMs: 100_000_000 });
    expect(capped).toEqual([[EP, 100_000_000, DEFAULT_MAX_RETRY_AFTER_MS]]);
    const waiting = await grab(budget, 1);
    await vi.advanceTimersByTimeAsync(DEFAULT_MAX_RETRY_AFTER_MS - 1);
    expect(waiting).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(waiting).toHaveLength(1);
    // A wait under the cap is the server's own, and nothing is said.
    waiting[0]?.({ throttled: true, retryAfterMs: 1_000 });
    const next = await grab(budget, 1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(next).toHaveLength(1);
    expect(capped).toHaveLength(1);
  });

  it('halves the limit on a 429, waits out Retry-After, then adds a slot back per `limit` successes', async () => {
    vi.useFakeTimers();
    const budget = new CallBudget(8);
    const first = await grab(budget, 8);
    first[0]?.({ throttled: true, retryAfterMs: 1000 });
    expect(budget.stats()[EP]).toMatchObject({ limit: 4, throttles: 1 });
    // The others end without a verdict (cancelled), so the limit stays halved.
    for (const release of first.slice(1)) release();
    // Nothing starts before Retry-After has passed, however many slots are free.
    const waiting = await grab(budget, 8);
    expect(waiting).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(999);
    expect(waiting).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(waiting).toHaveLength(4);
    // Additive increase: 4 successes -> 5 slots, 5 more -> 6 ... back to the configured 8.
    let released = 0;
    while (released < waiting.length) {
      waiting[released++]?.({ throttled: false });
      await vi.advanceTimersByTimeAsync(0);
    }
    for (let i = 0; i < 40; i++) {
      const r = await budget.acquire(EP);
      r({ throttled: false });
    }
    expect(budget.stats()[EP]?.limit).toBe(8);
  });

  it('starts at most requestsPerMinute requests in any 60 s window', async () => {
    vi.useFakeTimers();
    const budget = new CallBudget(100, new Map([[EP, { requestsPerMinute: 5 }]]));
    const started: number[] = [];
    for (let i = 0; i < 12; i++) {
      void budget.acquire(EP).then((release) => {
        started.push(Date.now());
        release({ throttled: false });
      });
    }
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toHaveLength(5);
    // 60 s and the second of slack for the server's later count.
    await vi.advanceTimersByTimeAsync(60_999);
    expect(started).toHaveLength(5);
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toHaveLength(10);
    await vi.advanceTimersByTimeAsync(61_000);
    expect(started).toHaveLength(12);
    for (const t of started) {
      expect(started.filter((s) => s > t - 60_000 && s <= t).length).toBeLessThanOrEqual(5);
    }
  });

  it('keeps reserved tokens under tokensPerMinute, counting replies at their reported usage', async () => {
    vi.useFakeTimers();
    const budget = new CallBudget(100, new Map([[EP, { tokensPerMinute: 1000 }]]));
    const started: number[] = [];
    const releases: Release[] = [];
    const ask = (tokens: number): void =>
      void budget.acquire(EP, undefined, tokens).then((release) => {
        started.push(tokens);
        releases.push(release);
      });
    ask(400);
    ask(400);
    ask(400);
    await vi.advanceTimersByTimeAsync(0);
    // 800 reserved; a third 400 would make 1,200.
    expect(started).toEqual([400, 400]);
    // The first reply used 100 tokens, not the 400 reserved: 500 in the window, room for 400.
    releases[0]?.({ throttled: false, tokens: 100 });
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toEqual([400, 400, 400]);
    // 900 in the window: a request estimated over the cap waits until the window is empty...
    ask(5000);
    await vi.advanceTimersByTimeAsync(60_999);
    expect(started).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    // ...and then runs alone, rather than never.
    expect(started).toEqual([400, 400, 400, 5000]);
    ask(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(started).toHaveLength(4);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(started).toHaveLength(5);
  });

  it('wakes sooner when the waiter that needed a later start is cancelled', async () => {
    vi.useFakeTimers();
    const budget = new CallBudget(100, new Map([[EP, { tokensPerMinute: 1000 }]]));
    const t0 = Date.now();
    const first = await budget.acquire(EP, undefined, 600);
    first({ throttled: false });
    await vi.advanceTimersByTimeAsync(30_000);
    const second = await budget.acquire(EP, undefined, 300);
    second({ throttled: false });
    // 900 in the window: 800 must wait for both reservations to leave it (t0 + 91 s).
    const abort = new AbortController();
    const big = budget.acquire(EP, abort.signal, 800);
    big.catch(() => undefined);
    // 200 queued behind it would fit once the first leaves (t0 + 61 s).
    let smallAt: number | null = null;
    void budget.acquire(EP, undefined, 200).then((release) => {
      smallAt = Date.now() - t0;
      release();
    });
    await vi.advanceTimersByTimeAsync(1_000);
    abort.abort();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(smallAt).toBe(61_000);
  });

  it('gives a cancelled waiter no slot', async () => {
    const budget = new CallBudget(1);
    const held = await budget.acquire(EP);
    const abort = new AbortController();
    const waiting = budget.acquire(EP, abort.signal);
    abort.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'CANCELLED' });
    held();
    const next = await budget.acquire(EP);
    expect(budget.stats()[EP]).toMatchObject({ active: 1 });
    next();
  });
});
