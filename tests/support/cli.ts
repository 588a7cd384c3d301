import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The real CLI from its sources through tsx (`npm run -s cli -- …` runs the same code as built
 * JavaScript, out/cli/main.js; tests/integration/cli-bundle.test.ts runs that), in a child process,
 * for the integration tests that assert its output and exit code.
 */
export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const CLI_ARGS: readonly string[] = ['--import', 'tsx', join(REPO, 'src-main/cli/main.ts')];

export interface CliResult {
  code: number | null;
  out: string;
  err: string;
}

/** Runs the CLI with `env` added to this process's environment; resolves when it exits. */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI_ARGS, ...args], {
      cwd: REPO,
      env: { ...process.env, ...env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

/** The same, blocking: for tests that run one short command at a time. */
export function runCliSync(args: readonly string[], env: NodeJS.ProcessEnv = {}): CliResult {
  const r = spawnSync(process.execPath, [...CLI_ARGS, ...args], {
    cwd: REPO,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
