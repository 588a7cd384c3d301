import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../../../tests/support/redis-server';
import { CallBudget } from './callBudget';
import { RedisTokenBucket } from './redisTokenBucket';

/**
 * One request rate across machines: two budgets, each with its own Redis connection (two
 * `cli worker` processes), take tokens from one bucket in a real redis-server, so the endpoint
 * sees the configured rate in total, not per machine.
 */
const EP = 'http://127.0.0.1:1/v1';
const PER_MINUTE = 1200; // 20 per second
let redis: TestRedis;
const clients: Redis[] = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const c of clients) c.disconnect();
  await redis.stop();
});

function machine(): CallBudget {
  const client = new Redis(redis.url, { maxRetriesPerRequest: null });
  clients.push(client);
  const bucket = new RedisTokenBucket(client, { perMinute: PER_MINUTE, prefix: 'test:' });
  return new CallBudget(64, new Map(), Date.now, (endpoint, signal) =>
    bucket.take(endpoint, signal),
  );
}

describe('Redis token bucket', () => {
  it('holds two machines together to the configured rate', async () => {
    const machines = [machine(), machine()];
    const starts: number[] = [];
    const t0 = Date.now();
    await Promise.all(
      machines.flatMap((budget) =>
        Array.from({ length: 20 }, () =>
          budget.run(EP, async () => {
            starts.push(Date.now() - t0);
          }),
        ),
      ),
    );
    starts.sort((a, b) => a - b);
    expect(starts).toHaveLength(40);
    // 40 requests at 20 per second from a bucket of one token: the last starts after ~1.95 s.
    expect(starts.at(-1)).toBeGreaterThanOrEqual(1_900);
    // No second holds more than its 20 (+1 for where a window's edges fall).
    for (const t of starts) {
      expect(starts.filter((s) => s >= t && s < t + 1_000).length).toBeLessThanOrEqual(21);
    }
  });
});
