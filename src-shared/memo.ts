/**
 * Memoised pure functions of strings. A run re-asks every visible question at each later test
 * (about six times on LoCoMo) and re-reads the same retrieved turns, so tokenising, stemming and
 * scoring the same strings again is most of the work a cache can save. Each cache holds at most
 * `limit` entries and `maxChars` characters of keys (long LLM answers and whole sessions must not
 * pile up in a long-lived process), and is emptied when a new entry would pass either: bounded
 * memory, no bookkeeping per hit.
 */

export const DEFAULT_MEMO_LIMIT = 50_000;
/** Characters of keys a cache keeps at most: 8 M (16 MB of UTF-16) before it is emptied. */
export const DEFAULT_MEMO_CHARS = 8_000_000;

export interface MemoBounds {
  limit?: number;
  maxChars?: number;
}

/** A memoised function and the way to empty its cache. */
export type Memoized<F extends (...args: never[]) => unknown> = F & {
  /** Forgets every entry: for a cache whose function read state that has since changed. */
  clear(): void;
};

/**
 * The entries and key characters a cache holds. `take` books a new entry: `kept` when it fits,
 * `reset` when the cache must be emptied first (the entry then starts the new count), `skipped`
 * for an entry larger than the whole budget (computed, never kept).
 */
class KeyBudget {
  private entries = 0;
  private chars = 0;
  private readonly limit: number;
  private readonly maxChars: number;

  constructor(bounds: number | MemoBounds) {
    const { limit = DEFAULT_MEMO_LIMIT, maxChars = DEFAULT_MEMO_CHARS } =
      typeof bounds === 'number' ? { limit: bounds } : bounds;
    this.limit = limit;
    this.maxChars = maxChars;
  }

  take(chars: number): 'kept' | 'reset' | 'skipped' {
    if (chars > this.maxChars) return 'skipped';
    const fits = this.entries < this.limit && this.chars + chars <= this.maxChars;
    if (!fits) this.reset();
    this.entries++;
    this.chars += chars;
    return fits ? 'kept' : 'reset';
  }

  reset(): void {
    this.entries = 0;
    this.chars = 0;
  }
}

/** A string-keyed cache within a budget of entries and key characters. */
export class BoundedCache<V> {
  private readonly entries = new Map<string, V>();
  private readonly budget: KeyBudget;

  constructor(bounds: number | MemoBounds = {}) {
    this.budget = new KeyBudget(bounds);
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: V): void {
    if (!this.entries.has(key)) {
      const booked = this.budget.take(key.length);
      if (booked === 'skipped') return;
      if (booked === 'reset') this.entries.clear();
    }
    this.entries.set(key, value);
  }

  clear(): void {
    this.entries.clear();
    this.budget.reset();
  }
}

/** `compute` memoised by its one string argument. */
export function memoizeString<R>(
  compute: (key: string) => R,
  bounds: number | MemoBounds = {},
): Memoized<(key: string) => R> {
  const cache = new BoundedCache<R>(bounds);
  const memoized = (key: string): R => {
    if (cache.has(key)) return cache.get(key) as R;
    const value = compute(key);
    cache.set(key, value);
    return value;
  };
  return Object.assign(memoized, { clear: () => cache.clear() });
}

/** `compute` memoised by its two string arguments, within one budget for all pairs. */
export function memoizeStringPair<R>(
  compute: (a: string, b: string) => R,
  bounds: number | MemoBounds = {},
): Memoized<(a: string, b: string) => R> {
  // Nested by the first argument rather than keyed by a joined string: a joined key is a new
  // string whose hash is computed on every call, while the arguments are usually strings the
  // caller holds (a stored turn's text), whose hash V8 keeps.
  let cache = new Map<string, Map<string, R>>();
  const budget = new KeyBudget(bounds);
  const memoized = (a: string, b: string): R => {
    let inner = cache.get(a);
    if (inner?.has(b)) return inner.get(b) as R;
    const value = compute(a, b);
    const booked = budget.take(a.length + b.length);
    if (booked === 'skipped') return value;
    if (booked === 'reset') {
      cache = new Map();
      inner = undefined;
    }
    if (inner === undefined) {
      inner = new Map();
      cache.set(a, inner);
    }
    inner.set(b, value);
    return value;
  };
  return Object.assign(memoized, {
    clear: () => {
      cache = new Map();
      budget.reset();
    },
  });
}
