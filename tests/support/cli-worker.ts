import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const cli = join(repo, 'src-main/cli/main.ts');

/**
 * A `cli worker` process with `args` (`--redis …`, `--queue …`, …); resolves once it says it is
 * ready, rejects if it exits first. `onStderr` sees its log as it comes (job lines). The caller
 * kills it.
 */
export function startCliWorker(
  args: readonly string[],
  onStderr?: (text: string) => void,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', cli, 'worker', ...args], {
    cwd: repo,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      err += text;
      onStderr?.(text);
      if (err.includes('worker ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${code}): ${err}`)));
  });
}
