/**
 * Memoised pure functions of strings. A run re-asks every visible question at each later test
 * (about six times on LoCoMo) and re-reads the same retrieved turns, so tokenising, stemming and
 * scoring the same strings again is most of the work a cache can save. Each cache holds at most
 * `limit` entries and is emptied when full: bounded memory, no bookkeeping per hit.
 */

export const DEFAULT_MEMO_LIMIT = 50_000;

/** A memoised function and the way to empty its cache. */
export type Memoized<F extends (...args: never[]) => unknown> = F & {
  /** Forgets every entry: for a cache whose function read state that has since changed. */
  clear(): void;
};

/** A string-keyed cache of at most `limit` entries, emptied when a new entry finds it full. */
export class BoundedCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly limit = DEFAULT_MEMO_LIMIT) {}

  has(key: string): boolean {
    return this.entries.has(key);
  }

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: V): void {
    if (this.entries.size >= this.limit && !this.entries.has(key)) this.entries.clear();
    this.entries.set(key, value);
  }

  clear(): void {
    this.entries.clear();
  }
}

/** `compute` memoised by its one string argument. */
export function memoizeString<R>(
  compute: (key: string) => R,
  limit = DEFAULT_MEMO_LIMIT,
): Memoized<(key: string) => R> {
  const cache = new BoundedCache<R>(limit);
  const memoized = (key: string): R => {
    if (cache.has(key)) return cache.get(key) as R;
    const value = compute(key);
    cache.set(key, value);
    return value;
  };
  return Object.assign(memoized, { clear: () => cache.clear() });
}

/** `compute` memoised by its two string arguments. */
export function memoizeStringPair<R>(
  compute: (a: string, b: string) => R,
  limit = DEFAULT_MEMO_LIMIT,
): Memoized<(a: string, b: string) => R> {
  // Nested by the first argument rather than keyed by a joined string: a joined key is a new
  // string whose hash is computed on every call, while the arguments are usually strings the
  // caller holds (a stored turn's text), whose hash V8 keeps.
  let cache = new Map<string, Map<string, R>>();
  let size = 0;
  const memoized = (a: string, b: string): R => {
    let inner = cache.get(a);
    if (inner?.has(b)) return inner.get(b) as R;
    const value = compute(a, b);
    if (size >= limit) {
      cache = new Map();
      size = 0;
      inner = undefined;
    }
    if (inner === undefined) {
      inner = new Map();
      cache.set(a, inner);
    }
    inner.set(b, value);
    size++;
    return value;
  };
  return Object.assign(memoized, {
    clear: () => {
      cache = new Map();
      size = 0;
    },
  });
}
