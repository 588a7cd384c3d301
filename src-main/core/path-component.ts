import { join } from 'node:path';
import { sha256Hex } from './canonical-hash';

/**
 * The one way an id that came from outside (a dataset's sample id, a run id, a queue job's id, a
 * collection name) becomes part of a path: `pathComponentOf(id)` is one folder name, never `.`,
 * `..`, empty or over 72 characters, and distinct ids always give distinct names.
 *
 * An id of 1 to 72 characters from `[a-z0-9_-]` (not a Windows device name) is its own name, so
 * the folders of ordinary ids stay readable. Any other id becomes its allowed characters (the rest
 * as `_`, lower case, at most 40) + `.` + 24 hex digits of its sha256: a plain name never holds a
 * `.`, so it cannot equal a hashed one, and two hashed names differ when their ids do (unless
 * sha256 collides in 96 bits). Upper case is hashed too: `Conv-1` and `conv-1` are one folder on
 * a case-insensitive disk (macOS, Windows).
 */

const PLAIN = /^[a-z0-9_-]{1,72}$/;
const DEVICE_NAMES = /^(con|prn|aux|nul|com\d|lpt\d)$/;

export function pathComponentOf(id: string): string {
  if (PLAIN.test(id) && !DEVICE_NAMES.test(id)) return id;
  const readable = id
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, '_')
    .slice(0, 40);
  return `${readable}.${sha256Hex(id).slice(0, 24)}`;
}

/** `base` joined with one path component per id, each made by `pathComponentOf`. */
export function joinIds(base: string, ...ids: readonly string[]): string {
  return join(base, ...ids.map(pathComponentOf));
}
