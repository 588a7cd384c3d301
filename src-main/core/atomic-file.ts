import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Replaces `file` with `content` so that a crash leaves the old file or the new one, never half
 * of one: a temp file beside it, fsync, then rename. On failure the temp file is removed and the
 * error is rethrown for the caller to word. The temp name is unique per call (pid + random), so
 * concurrent writers of one file, in this process or another, never share a temp file.
 */
export function writeFileAtomic(file: string, content: string, options: { mode?: number } = {}) {
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const fd = openSync(temp, 'w', options.mode);
    try {
      writeSync(fd, content);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
