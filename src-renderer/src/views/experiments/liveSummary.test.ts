import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ThrottledFetcher } from './liveSummary';

describe('ThrottledFetcher (the live card summary)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('asks again after a failed first fetch, without waiting for a committed test', async () => {
    const fetcher = new ThrottledFetcher<string>(1000, 8, () => Date.now());
    // The card mounts before its run can be read; the run is readable from the second ask on.
    let calls = 0;
    const fetch = vi.fn(async () => {
      calls++;
      if (calls === 1) throw new Error('NOT_FOUND: no run r');
      return 'preset designed';
    });
    const results: string[] = [];
    let shown: string | null = null;
    fetcher.request(
      fetch,
      (value) => {
        results.push(value);
        shown = value;
      },
      () => shown === null,
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(results).toEqual([]);
    // No other request (no test committed): the retry alone fills the card, at the throttle's pace.
    await vi.advanceTimersByTimeAsync(999);
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(results).toEqual(['preset designed']);
    // Once shown, nothing more is asked until the next request.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('stops retrying once the request is cancelled (the card unmounted or a newer one replaced it)', async () => {
    const fetcher = new ThrottledFetcher<string>(1000, 8, () => Date.now());
    const fetch = vi.fn(async (): Promise<string> => {
      throw new Error('unreadable');
    });
    const cancel = fetcher.request(
      fetch,
      () => undefined,
      () => true,
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(fetch).toHaveBeenCalledTimes(1);
    cancel();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(fetch).toHaveBeenCalledTimes(1);
  });
});
