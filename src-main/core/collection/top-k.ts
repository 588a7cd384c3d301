/**
 * The first `k` items of `items` in the order `compare` defines, best first: exactly
 * `[...items].sort(compare).slice(0, k)` when `compare` is a total order (no two items compare
 * equal), in O(n log k) instead of O(n log n).
 *
 * A ranker scores thousands of documents and keeps a few dozen; sorting them all made a query's
 * cost grow with the conversation's length. A bounded max-heap (the worst kept item on top) keeps
 * the k best seen so far; each later item is compared with the worst kept one only.
 */
export function selectTop<T>(items: Iterable<T>, k: number, compare: (a: T, b: T) => number): T[] {
  if (k <= 0) return [];
  // heap[0] is the worst of the kept items: "a is heavier than b" when a sorts after b.
  const heap: T[] = [];
  const after = (i: number, j: number) => compare(heap[i] as T, heap[j] as T) > 0;
  const swap = (i: number, j: number) => {
    const t = heap[i] as T;
    heap[i] = heap[j] as T;
    heap[j] = t;
  };
  const siftDown = (start: number) => {
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < heap.length && after(l, worst)) worst = l;
      if (r < heap.length && after(r, worst)) worst = r;
      if (worst === i) return;
      swap(i, worst);
      i = worst;
    }
  };
  for (const item of items) {
    if (heap.length < k) {
      heap.push(item);
      let i = heap.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!after(i, parent)) break;
        swap(i, parent);
        i = parent;
      }
    } else if (compare(item, heap[0] as T) < 0) {
      heap[0] = item;
      siftDown(0);
    }
  }
  return heap.sort(compare);
}

/**
 * The k-th best of the numbers added so far, kept as they come (a bounded min-heap of the k best):
 * a ranker that prunes by "can this still reach the top k" asks after every batch of documents,
 * and selecting over all scores each time cost as much as scoring them.
 */
export class KthBest {
  private readonly heap: number[] = [];

  constructor(private readonly k: number) {}

  /** Whether k numbers have been added (before that there is no k-th best). */
  get full(): boolean {
    return this.k > 0 && this.heap.length >= this.k;
  }

  /** The k-th best added; meaningful once `full`. */
  get kth(): number {
    return this.heap[0] as number;
  }

  add(value: number): void {
    const heap = this.heap;
    if (this.k <= 0) return;
    if (heap.length < this.k) {
      heap.push(value);
      let i = heap.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if ((heap[parent] as number) <= value) break;
        heap[i] = heap[parent] as number;
        i = parent;
      }
      heap[i] = value;
      return;
    }
    if (value <= (heap[0] as number)) return;
    // Replace the smallest kept and sift it down.
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= heap.length) break;
      const r = l + 1;
      const child = r < heap.length && (heap[r] as number) < (heap[l] as number) ? r : l;
      if ((heap[child] as number) >= value) break;
      heap[i] = heap[child] as number;
      i = child;
    }
    heap[i] = value;
  }
}
