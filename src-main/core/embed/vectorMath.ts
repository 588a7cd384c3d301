/**
 * Small numeric helpers shared by the embedders. Everything here works in place on typed arrays so
 * the hot paths allocate one output vector per text and nothing per token.
 */

/** Euclidean norm, accumulated in double precision. */
export function l2norm(v: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < v.length; i++) {
    const x = v[i] as number;
    sum += x * x;
  }
  return Math.sqrt(sum);
}

/**
 * Scales `v` to unit length in place. Returns false (and leaves `v` alone) when the norm is zero or
 * not finite, so callers decide what a degenerate vector means instead of writing NaN.
 */
export function normalizeInPlace(v: Float32Array | Float64Array): boolean {
  const norm = l2norm(v);
  if (!(norm > 0) || !Number.isFinite(norm)) return false;
  const inv = 1 / norm;
  for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) * inv;
  return true;
}

export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let sum = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}

/** Cosine similarity; 0 when either vector is zero. */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const na = l2norm(a);
  const nb = l2norm(b);
  return na > 0 && nb > 0 ? dot(a, b) / (na * nb) : 0;
}

/** FNV-1a over UTF-16 code units of `text[start, end)`: the same hash wherever it is computed. */
export function fnv1a(text: string, start = 0, end = text.length): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * Adds a deterministic pseudo-random vector seeded by `seed` (mulberry32, values in [-1, 1)) to
 * `out`. Random directions in 100+ dimensions are nearly orthogonal to each other and to real
 * sentence vectors, which is what a fallback for unknown text should be.
 */
export function addSeededVector(out: Float32Array | Float64Array, seed: number): void {
  let state = seed >>> 0;
  for (let i = 0; i < out.length; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const r = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    out[i] = (out[i] as number) + (r * 2 - 1);
  }
}
