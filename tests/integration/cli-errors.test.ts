import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * What the environment does to the CLI (a busy port, an unwritable or full --out, a reader that
 * closes the pipe) as a user meets it: child processes, one `error CODE: message` line on stderr,
 * a defined exit status, never a stack trace.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const dir = mkdtempSync(join(tmpdir(), 'workbench-cli-errors-'));
const db = join(dir, 'runs.db');
const env = {
  ...process.env,
  MEMORY_WORKBENCH_DATA: join(dir, 'data'),
  MEMORY_WORKBENCH_EXTRA_PRESETS: join(repo, 'tests/fixtures/experiment/test-presets.ts'),
};
const cliArgs = ['--import', 'tsx', join(repo, 'src-main/cli/main.ts')];

function cli(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [...cliArgs, ...args], {
    cwd: repo,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

let runId = '';
let busy: Server;

beforeAll(async () => {
  const run = cli(
    'experiment',
    '--data',
    mini,
    '--preset',
    'test-recency',
    '--runs-db',
    db,
    '--json',
  );
  runId = (JSON.parse(run.out) as { runId: string }).runId;
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => busy.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('CLI errors from the environment', () => {
  it('serve on a port in use: one CONFLICT line, exit 1', () => {
    const { port } = busy.address() as AddressInfo;
    const r = cli('serve', '--port', String(port), '--data-dir', join(dir, 'serve'));
    expect(r.err).toBe(
      `error CONFLICT: serve: port ${port} on 127.0.0.1 is already in use; choose another with --port (0 picks a free one)\n`,
    );
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
  });

  it('serve with a --dataset-dir that does not exist fails at start', () => {
    const missing = join(dir, 'no-such-folder');
    const r = cli('serve', '--port', '0', '--dataset-dir', missing);
    expect(r.err).toBe(
      `error IO: serve: --dataset-dir ${missing}: no such file or folder (ENOENT)\n`,
    );
    expect(r.code).toBe(1);
  });

  it('worker without a --dataset-dir refuses to start (it could run no job)', () => {
    const r = cli('worker', '--redis', 'redis://127.0.0.1:1');
    expect(r.err).toContain(
      "error: worker needs --dataset-dir <folder>: a job's dataset must lie in a folder this worker was given\n",
    );
    expect(r.code).toBe(2);
  });

  it('export to an --out that cannot be written: one IO line, exit 1', () => {
    // A regular file can't contain a folder, so the write fails the same way for every user
    // (root included, for whom permission bits would not).
    const file = join(dir, 'plain-file');
    writeFileSync(file, 'x');
    const under = join(file, 'out.json');
    const r = cli('export', runId, '--format', 'json', '--runs-db', db, '--out', under);
    expect(r.err).toBe(
      `error IO: export: cannot write ${under}: a part of the path is not a folder (ENOTDIR)\n`,
    );
    expect(r.code).toBe(1);

    const folder = join(dir, 'a-folder');
    mkdirSync(folder);
    const onFolder = cli('export', runId, '--format', 'csv', '--runs-db', db, '--out', folder);
    expect(onFolder.err).toBe(
      `error IO: export: cannot write ${folder}: it is a folder (EISDIR)\n`,
    );
    expect(onFolder.code).toBe(1);
  });

  it('export to a full disk: one IO line, exit 1', () => {
    // /dev/full answers every write with ENOSPC (Linux), as a full disk does.
    const r = cli('export', runId, '--format', 'json', '--runs-db', db, '--out', '/dev/full');
    expect(r.err).toBe('error IO: export: cannot write /dev/full: the disk is full (ENOSPC)\n');
    expect(r.code).toBe(1);
  });

  it('export into a pipe whose reader has gone (| head): stops quietly, exit 0', async () => {
    const child = spawn(
      process.execPath,
      [...cliArgs, 'export', runId, '--format', 'json', '--runs-db', db],
      { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    // Close the read end before the CLI has started: its first write meets EPIPE.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('stdout on a full disk (> /dev/full): one IO line, exit 1', () => {
    const full = openSync('/dev/full', 'w');
    try {
      const r = spawnSync(
        process.execPath,
        [...cliArgs, 'export', runId, '--format', 'json', '--runs-db', db],
        { cwd: repo, env, encoding: 'utf8', stdio: ['ignore', full, 'pipe'], timeout: 60_000 },
      );
      expect(r.stderr).toBe('error IO: cannot write the output: the disk is full (ENOSPC)\n');
      expect(r.status).toBe(1);
    } finally {
      closeSync(full);
    }
  });
});
