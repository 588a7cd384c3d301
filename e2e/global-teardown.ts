import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SERVE_PIDS_ENV } from './serve-pids';

/**
 * The suite leaves no `serve` behind: a pid still recorded (fixtures.ts removes each once its
 * server has exited) whose process is a running `serve` fails the suite, after it is killed.
 */
export default function globalTeardown(): void {
  const dir = process.env[SERVE_PIDS_ENV];
  if (dir === undefined) return;
  const alive: string[] = [];
  for (const pid of readdirSync(dir)) {
    let argv: string;
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue; // gone
    }
    // A zombie has an empty command line; a reused pid is some other program.
    if (!argv.split('\0').includes('serve')) continue;
    alive.push(`${pid} (data ${readFileSync(join(dir, pid), 'utf8')})`);
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // exited meanwhile
    }
  }
  rmSync(dir, { recursive: true, force: true });
  if (alive.length > 0) {
    throw new Error(`cli serve still running after the suite (now killed): ${alive.join(', ')}`);
  }
}
