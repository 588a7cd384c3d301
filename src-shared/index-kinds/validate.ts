/**
 * Input checks shared by the collection (items, ids, edges) and the index kinds' engines
 * (vectors, queries). Pure, so a kind's one file in this folder can use them.
 */

/** A vector as a caller gives it. */
export type VectorInput = readonly number[] | Float32Array;

/** Largest accepted item text, in UTF-8 bytes. */
export const MAX_TEXT_BYTES = 1_048_576;
export const MAX_ID_LENGTH = 512;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function hex4(code: number): string {
  return code.toString(16).toUpperCase().padStart(4, '0');
}

/**
 * Why a text cannot be stored, or null when it can. Lone surrogates are refused rather than
 * replaced: they mean the caller decoded something wrongly, and silently storing U+FFFD would
 * hide that. NUL is refused because SQLite's text functions stop at it. Other control
 * characters are kept as given.
 */
export function textProblem(text: unknown, what: string): string | null {
  if (typeof text !== 'string') return `${what} must be a string, got ${describe(text)}`;
  if (text.trim() === '') return `${what} is empty`;
  // Cheap upper bound first: UTF-8 needs at most 3 bytes per UTF-16 code unit.
  if (text.length * 3 > MAX_TEXT_BYTES) {
    // TextEncoder counts a lone surrogate as U+FFFD (3 bytes), as Buffer.byteLength does.
    const bytes = new TextEncoder().encode(text).byteLength;
    if (bytes > MAX_TEXT_BYTES) {
      return `${what} is ${bytes} bytes, over the 1 MB (${MAX_TEXT_BYTES}-byte) limit`;
    }
  }
  const nul = text.indexOf('\0');
  if (nul >= 0) return `${what} contains a NUL character (U+0000) at offset ${nul}`;
  const lone = LONE_SURROGATE.exec(text);
  if (lone) {
    return `${what} has a lone surrogate U+${hex4(lone[0].charCodeAt(0))} at offset ${lone.index}; fix its encoding (e.g. replace it with U+FFFD) before inserting`;
  }
  return null;
}

export function idProblem(id: unknown, what: string): string | null {
  if (typeof id !== 'string') return `${what} must be a string, got ${describe(id)}`;
  if (id === '') return `${what} is empty`;
  if (id.length > MAX_ID_LENGTH)
    return `${what} is ${id.length} characters, over the ${MAX_ID_LENGTH} limit`;
  if (id.includes('\0')) return `${what} contains a NUL character (U+0000)`;
  if (LONE_SURROGATE.test(id)) return `${what} has a lone surrogate`;
  return null;
}

export type VectorCheck = { ok: true; vector: Float32Array } | { ok: false; problem: string };

/** Checks a vector's type, length and values; the problem names the index and the bad value. */
export function checkVector(
  value: unknown,
  index: string,
  dim: number,
  space: string,
): VectorCheck {
  if (!(value instanceof Float32Array) && !Array.isArray(value)) {
    return {
      ok: false,
      problem: `index '${index}' expects a vector (number[] or Float32Array), got ${describe(value)}`,
    };
  }
  const input = value as VectorInput;
  if (input.length !== dim) {
    return { ok: false, problem: `index '${index}' expects ${dim} dims, got ${input.length}` };
  }
  const vector = new Float32Array(dim);
  let norm = 0;
  for (let i = 0; i < dim; i++) {
    const x = input[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) {
      return {
        ok: false,
        problem: `index '${index}': vector value ${describe(x)} at position ${i} is not a finite number`,
      };
    }
    const f = Math.fround(x);
    if (!Number.isFinite(f)) {
      return {
        ok: false,
        problem: `index '${index}': vector value ${x} at position ${i} overflows float32`,
      };
    }
    vector[i] = f;
    norm += f * f;
  }
  if (space === 'cosine' && norm === 0) {
    return {
      ok: false,
      problem: `index '${index}': a zero vector has no direction, so cosine space cannot use it`,
    };
  }
  return { ok: true, vector };
}

/** Why an edge weight cannot be used, or null when it can (absent means 1). */
export function weightProblem(weight: unknown, what: string): string | null {
  if (weight === undefined) return null;
  if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0) {
    return `${what} must be a finite number >= 0, got ${describe(weight)}`;
  }
  return null;
}

/** Whether two sets hold the same members. */
export function sameSet(a: ReadonlySet<number>, b: ReadonlySet<number>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string')
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return typeof value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Reads `a.b.c` from nested objects; undefined when any step is missing. */
export function readPath(object: Record<string, unknown>, path: string): unknown {
  let current: unknown = object;
  for (const key of path.split('.')) {
    if (!isPlainObject(current)) return undefined;
    current = current[key];
  }
  return current;
}
