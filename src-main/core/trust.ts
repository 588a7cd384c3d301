import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/**
 * Who a config came from decides what it may make this machine do (DESIGN.md §7): the local user
 * (CLI flags, a config file, the desktop app) may start processes and name any path; the
 * browser-mode API and a Redis queue job may not, and may name only files and sockets inside the
 * folders their operator gave (`serve --dataset-dir`, `worker --dataset-dir`). Every check of a
 * config against its source reads this one policy.
 */
export interface CallerTrust {
  /** The config may start a process (an external memory service's `command`). */
  mayStartProcesses: boolean;
  /**
   * Real paths of the folders whose files and unix sockets the config may name: set for every
   * config from the network (the API's callers default to none). Absent: any path, the local
   * user's own config (also a local `sweep run` or `reproduce`, which start no processes).
   */
  allowedDirs?: readonly string[];
}

/** The local user's own config: the CLI and the desktop app. */
export const LOCAL_USER: CallerTrust = { mayStartProcesses: true };

/** The folders a caller is confined to, or null when it may name any path (the local user). */
export function confinedTo(trust: CallerTrust): readonly string[] | null {
  return trust.allowedDirs ?? null;
}

/**
 * Whether the caller is the local user, who may reach any host and read what a service replied
 * in error messages. Others never see a remote body: it could be a local service's secret.
 */
export function isLocalUser(trust: CallerTrust): boolean {
  return confinedTo(trust) === null;
}

/**
 * Said in place of a reply a caller from the network may not read (isLocalUser is false): an
 * endpoint or memory service URL it names could be any local service, and its reply is not the
 * caller's to read. Status, content type and length are still said.
 */
export const NOT_QUOTED =
  "(the reply is not quoted: this config came from the browser-mode API or a queue job, and the URL could be any local service's)";

/**
 * `path` resolved (symlinks too, when it exists) if it lies strictly inside one of `folders`,
 * else null. A missing path is judged by where it would be, so the answer is the same whether a
 * file outside exists or not.
 */
export function resolveInsideFolders(path: string, folders: readonly string[]): string | null {
  if (folders.length === 0 || !isAbsolute(path)) return null;
  const roots = folders.map((dir) => realpathOr(dir) ?? resolve(dir));
  const inside = (candidate: string): boolean =>
    roots.some((root) => {
      const rel = relative(root, candidate);
      return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
    });
  const candidate = realpathOr(path) ?? wouldBe(resolve(path));
  return inside(candidate) ? candidate : null;
}

/**
 * Where a missing path would be once created: its nearest existing ancestor resolved (symlinks
 * too) and the rest appended. So `<folder>/link-out/missing` is judged where `link-out` leads,
 * the same as `<folder>/link-out/existing`: a refusal never tells whether a file exists.
 */
function wouldBe(path: string): string {
  const parent = dirname(path);
  if (parent === path) return path;
  const real = realpathOr(parent);
  return join(real ?? wouldBe(parent), basename(path));
}

function realpathOr(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}
