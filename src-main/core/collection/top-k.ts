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
