import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * `npm run cli` runs the CLI as built JavaScript (scripts/build-cli.mjs). Built into a folder that
 * holds no sources, only node_modules and package.json beside it: a bundle that still reached for a
 * .ts file (the CLI's own, or a worker entry started through tsx) fails here.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const app = mkdtempSync(join(tmpdir(), 'workbench-cli-bundle-'));
afterAll(() => rmSync(app, { recursive: true, force: true }));

const node = (args: string[], env: NodeJS.ProcessEnv = {}) => {
  const r = spawnSync(process.execPath, args, {
    cwd: app,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

describe('the CLI as built JavaScript', () => {
  it('builds, then runs commands and worker threads from the bundle alone', () => {
    mkdirSync(join(app, 'out'));
    symlinkSync(join(repo, 'node_modules'), join(app, 'node_modules'), 'dir');
    copyFileSync(join(repo, 'package.json'), join(app, 'package.json'));
    const out = join(app, 'out', 'cli');
    const build = node([join(repo, 'scripts/build-cli.mjs'), '--if-stale', '--out', out]);
    expect(build.code).toBe(0);
    expect(build.out).toBe('');
    expect(build.err).toMatch(/^building the CLI into .* \(no build yet\)\nbuilt the CLI in /);

    // Fresh: nothing to do, nothing printed.
    const again = node([join(repo, 'scripts/build-cli.mjs'), '--if-stale', '--out', out]);
    expect(again).toEqual({ code: 0, out: '', err: '' });

    const help = node([join(out, 'main.js'), '--help']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^Memory Workbench command line\n/);

    // `npm run cli` is `build-cli.mjs --if-stale --run`: the command runs in the same process, and
    // a flag after `--run` is the command's, even one the build script also knows (`--out`).
    const viaRun = node([
      join(repo, 'scripts/build-cli.mjs'),
      '--if-stale',
      '--out',
      out,
      '--run',
      'export',
      '--out',
      join(app, 'elsewhere'),
      '--help',
    ]);
    expect(viaRun.err).toBe('');
    expect(viaRun.code).toBe(0);
    expect(viaRun.out).toMatch(/^usage: npm run -s cli -- export /);

    // Two samples in two worker threads, each started from out/cli/worker.js.
    const run = node(
      [
        join(out, 'main.js'),
        'experiment',
        '--data',
        join(repo, 'tests/fixtures/locomo/mini.json'),
        '--preset',
        'text',
        '--parallel',
        '2',
      ],
      { MEMORY_WORKBENCH_DATA: join(app, 'data') },
    );
    expect(run.err).not.toMatch(/error|warn/i);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/run \S+ completed in \d+s \(preset text\)/);
  });
});
