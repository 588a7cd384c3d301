import { describe, expect, it } from 'vitest';
import { BoundedQueue, streamThrough } from './queue';

describe('BoundedQueue', () => {
  it('blocks the producer while full and releases it when the consumer takes an item', async () => {
    const q = new BoundedQueue<number>(2);
    await q.push(1);
    await q.push(2);
    let third = false;
    const pushing = q.push(3).then((ok) => {
      third = ok;
    });
    // Let every pending microtask run: the push must still be waiting for space.
    await new Promise((r) => setImmediate(r));
    expect(third).toBe(false);
    expect(q.size).toBe(2);
    expect(await q.shift()).toEqual({ value: 1 });
    await pushing;
    expect(third).toBe(true);
    expect(q.highWater).toBe(2);
  });

  it('never buffers more than its capacity however fast the source is', async () => {
    const { queue, produced } = streamThrough(
      Array.from({ length: 100 }, (_, i) => i),
      3,
    );
    const seen: number[] = [];
    for await (const item of queue) {
      seen.push(item);
      await new Promise((r) => setImmediate(r));
    }
    await produced;
    expect(seen).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(queue.highWater).toBeLessThanOrEqual(3);
  });

  it('cancel releases a blocked producer with false and ends the stream', async () => {
    const q = new BoundedQueue<number>(1);
    await q.push(1);
    const blocked = q.push(2);
    q.cancel();
    expect(await blocked).toBe(false);
    expect(await q.shift()).toBeUndefined();
  });

  it('refuses a capacity below 1', () => {
    expect(() => new BoundedQueue(0)).toThrow(
      'BoundedQueue: capacity must be a positive integer, got 0',
    );
  });
});
