import { WorkbenchError } from '../../src-shared/errors';

/** The errno code of a Node system error (`ENOSPC`, `EADDRINUSE`, …), if it is one. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) ? code : undefined;
  }
  return undefined;
}

/** Words a person can act on for the errno codes users meet, without the paths Node adds. */
export function errnoReason(code: string): string {
  switch (code) {
    case 'ENOSPC':
      return 'the disk is full (ENOSPC)';
    case 'EDQUOT':
      return 'the disk quota is used up (EDQUOT)';
    case 'EACCES':
    case 'EPERM':
      return `permission denied (${code})`;
    case 'EROFS':
      return 'the file system is read-only (EROFS)';
    case 'ENOENT':
      return 'no such file or folder (ENOENT)';
    case 'ENOTDIR':
      return 'a part of the path is not a folder (ENOTDIR)';
    case 'EISDIR':
      return 'it is a folder (EISDIR)';
    case 'EPIPE':
      return 'the reader closed the pipe (EPIPE)';
    case 'EADDRINUSE':
      return 'the address is already in use (EADDRINUSE)';
    default:
      return code;
  }
}

/**
 * A Node system error (file system, network, pipe) as a coded WorkbenchError: the environment
 * failed, not the program, so the user gets one line saying what failed and why. `what` names
 * the operation ("export: cannot write out.csv"). Null for anything that is not a system error.
 */
export function fromSystemError(error: unknown, what: string): WorkbenchError | null {
  const code = errnoCode(error);
  if (code === undefined) return null;
  return new WorkbenchError(
    code === 'EADDRINUSE' ? 'CONFLICT' : 'IO',
    `${what}: ${errnoReason(code)}`,
    {
      cause: error,
    },
  );
}
