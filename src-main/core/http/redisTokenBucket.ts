import type { Redis } from 'ioredis';
import { sleep } from './retry';

/**
 * An endpoint's request rate as one budget across machines: a token bucket in Redis, refilled at
 * `perMinute / 60 s` up to `burst` tokens, taken atomically by a Lua script on Redis's own clock
 * (so the machines' clocks never matter). Every LLM request of every `cli worker` sharing the
 * Redis takes a token before it starts (CallBudget's `beforeStart`), so the cap holds for the
 * sum of them, not per machine.
 */

const TAKE = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = math.ceil((1 - tokens) / rate) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate) + 60000)
return wait
`;

export interface RedisTokenBucketOptions {
  /** Requests per minute across every process sharing the Redis. */
  perMinute: number;
  /** Tokens that may be taken at once after a quiet spell (default 1: no bursts). */
  burst?: number;
  /** Key prefix; the endpoint's base URL follows it. */
  prefix?: string;
}

export class RedisTokenBucket {
  private readonly ratePerMs: number;
  private readonly burst: number;
  private readonly prefix: string;

  constructor(
    private readonly redis: Redis,
    options: RedisTokenBucketOptions,
  ) {
    this.ratePerMs = options.perMinute / 60_000;
    this.burst = options.burst ?? 1;
    this.prefix = options.prefix ?? 'mw:llm-rate:';
  }

  /** Waits until a token for `endpoint` is this caller's. */
  async take(endpoint: string, signal?: AbortSignal): Promise<void> {
    for (;;) {
      const wait = Number(
        await this.redis.eval(TAKE, 1, this.prefix + endpoint, this.ratePerMs, this.burst),
      );
      if (wait <= 0) return;
      await sleep(wait, signal, `request rate of ${endpoint}`);
    }
  }
}
