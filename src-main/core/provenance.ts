import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (or the packaged app root): where package.json lives. */
export function appRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    try {
      readFileSync(join(dir, 'package.json'));
      return dir;
    } catch {
      dir = dirname(dir);
    }
  }
  return process.cwd();
}

let cachedVersion: string | undefined;
export function appVersion(): string {
  if (cachedVersion === undefined) {
    const pkg = JSON.parse(readFileSync(join(appRoot(), 'package.json'), 'utf8')) as {
      version?: unknown;
    };
    cachedVersion = typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  }
  return cachedVersion;
}

let cachedCommit: string | null | undefined;
/** The git commit of the running code, or null outside a checkout (a packaged app). */
export function gitCommit(): string | null {
  if (cachedCommit === undefined) {
    try {
      cachedCommit = execFileSync('git', ['rev-parse', 'HEAD'], {
        cwd: appRoot(),
        stdio: ['ignore', 'pipe', 'ignore'],
        timeout: 2000,
      })
        .toString()
        .trim();
    } catch {
      cachedCommit = null;
    }
  }
  return cachedCommit;
}
