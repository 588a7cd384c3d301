/**
 * A bounded FIFO between the packet source and the caller. `push` resolves only when the item has
 * room, so a fast producer waits for a slow memory service instead of buffering the whole sample
 * (backpressure without sleeps). `close` ends the stream after the buffered items; `cancel` drops
 * them and releases a producer blocked in `push`, which then resolves to false.
 */
export class BoundedQueue<T> implements AsyncIterable<T> {
  readonly capacity: number;
  private readonly items: T[] = [];
  private closed = false;
  private cancelled = false;
  /** Producers blocked on a full queue. */
  private readonly spaceWaiters: Array<() => void> = [];
  /** A consumer blocked on an empty queue. */
  private readonly itemWaiters: Array<() => void> = [];
  /** Highest number of items buffered at once (for tests and diagnostics). */
  highWater = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`BoundedQueue: capacity must be a positive integer, got ${capacity}`);
    }
    this.capacity = capacity;
  }

  get size(): number {
    return this.items.length;
  }

  /** Resolves true once the item is queued, false if the queue was closed or cancelled first. */
  async push(item: T): Promise<boolean> {
    while (!this.closed && !this.cancelled && this.items.length >= this.capacity) {
      await new Promise<void>((resolve) => this.spaceWaiters.push(resolve));
    }
    if (this.closed || this.cancelled) return false;
    this.items.push(item);
    if (this.items.length > this.highWater) this.highWater = this.items.length;
    this.wake(this.itemWaiters);
    return true;
  }

  /** No more items will come; the consumer drains what is buffered. */
  close(): void {
    this.closed = true;
    this.wakeAll();
  }

  /** Stop now: buffered items are dropped and blocked producers released. */
  cancel(): void {
    this.cancelled = true;
    this.items.length = 0;
    this.wakeAll();
  }

  /** The next item, or undefined when the stream has ended. */
  async shift(): Promise<{ value: T } | undefined> {
    while (this.items.length === 0) {
      if (this.closed || this.cancelled) return undefined;
      await new Promise<void>((resolve) => this.itemWaiters.push(resolve));
    }
    const value = this.items.shift() as T;
    this.wake(this.spaceWaiters);
    return { value };
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      const next = await this.shift();
      if (!next) return;
      yield next.value;
    }
  }

  private wake(waiters: Array<() => void>): void {
    waiters.shift()?.();
  }

  private wakeAll(): void {
    for (const w of this.spaceWaiters.splice(0)) w();
    for (const w of this.itemWaiters.splice(0)) w();
  }
}

/**
 * Feeds `source` into a bounded queue from its own async task. An error from the source ends the
 * stream and rejects `produced`, which the consumer awaits after draining.
 */
export function streamThrough<T>(
  source: Iterable<T> | AsyncIterable<T>,
  capacity: number,
): { queue: BoundedQueue<T>; produced: Promise<void> } {
  const queue = new BoundedQueue<T>(capacity);
  const produced = (async () => {
    try {
      for await (const item of source) {
        if (!(await queue.push(item))) return;
      }
    } finally {
      queue.close();
    }
  })();
  return { queue, produced };
}
