import { test as base, expect, type APIRequestContext, type Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SERVE_PIDS_ENV } from './serve-pids';

/**
 * `cli <args>` with the workbench's own entry, as a user runs it beside a running `serve`: its
 * stdout, once it exited 0 (else the test fails with its stderr). Async, so `serve` keeps
 * answering while it runs.
 */
export async function runCli(args: readonly string[]): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src-main/cli/main.ts', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  expect(code, stderr).toBe(0);
  return stdout;
}

/** How long a `serve` gets to exit after SIGTERM before it is killed (it stops itself in 5 s). */
const SERVE_EXIT_WAIT_MS = 15_000;

export interface WorkbenchServer {
  url: string;
  dataDir: string;
}

/** Starts `cli serve` as a user would, on a free port with its own data folder, for one test. */
export async function startServe(
  dataDir: string,
  extraEnv: Record<string, string>,
  extraArgs: readonly string[],
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [
      ...['--import', 'tsx', 'src-main/cli/main.ts', 'serve', '--port', '0', '--data-dir', dataDir],
      ...extraArgs,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...extraEnv, FORCE_COLOR: '0' } },
  );
  const pids = process.env[SERVE_PIDS_ENV];
  if (pids !== undefined && child.pid !== undefined) {
    mkdirSync(pids, { recursive: true });
    writeFileSync(join(pids, String(child.pid)), dataDir);
  }
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /serving at (http:\/\/\S+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${output}`));
    });
  }).catch(async (error: unknown) => {
    await stopServe(child);
    throw error;
  });
  return { child, url };
}

/**
 * SIGTERM, then waits for the exit; a `serve` still running after SERVE_EXIT_WAIT_MS is killed
 * and the test fails: serve must end on its first SIGTERM. Its pid record goes once it is gone.
 */
export async function stopServe(child: ChildProcess): Promise<void> {
  const gone = (): boolean => child.exitCode !== null || child.signalCode !== null;
  const exited = new Promise<void>((resolve) => {
    if (gone()) resolve();
    else child.once('exit', () => resolve());
  });
  let killed = false;
  if (!gone()) {
    child.kill('SIGTERM');
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, SERVE_EXIT_WAIT_MS);
    await exited;
    clearTimeout(timer);
  }
  const pids = process.env[SERVE_PIDS_ENV];
  if (pids !== undefined && child.pid !== undefined) {
    rmSync(join(pids, String(child.pid)), { force: true });
  }
  if (killed) {
    throw new Error(
      `serve (pid ${child.pid}) did not exit within ${SERVE_EXIT_WAIT_MS} ms of SIGTERM; it was killed`,
    );
  }
}

export const test = base.extend<{
  /** Extra environment for `cli serve` (an API key variable); set with `test.use({ serveEnv })`. */
  serveEnv: Record<string, string>;
  /** Extra `cli serve` arguments (`--dataset-dir <folder>`); set with `test.use({ serveArgs })`. */
  serveArgs: string[];
  workbench: WorkbenchServer;
}>({
  serveEnv: [{}, { option: true }],
  serveArgs: [[], { option: true }],
  workbench: async ({ serveEnv, serveArgs }, use) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mw-e2e-'));
    const { child, url } = await startServe(dataDir, serveEnv, serveArgs);
    try {
      await use({ url, dataDir });
    } finally {
      // Its data folder goes only once it has exited: a live server must not lose it under it.
      try {
        await stopServe(child);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  },
});

export { expect };

export function screenshotPath(name: string): string {
  return join('test-results', 'screenshots', `${name}.png`);
}

/** The small fixture dataset most specs run on (two samples; mini-1 has 8 turns, 5 packets). */
export const MINI = resolve('tests/fixtures/locomo/mini.json');

/** The real corpus, beside the repository on machines that have it; it is never committed. */
export const LOCOMO10 = resolve('../shared/datasets/locomo10.json');

/**
 * Skips a full-size spec where the corpus is absent (a fresh clone alone; `.ci/run` says so when
 * it runs without it). What such a spec checks at full size also has a check on the fixtures that
 * runs everywhere: the mini datasets specs, and the cancel-and-resume spec on mini.
 */
export function skipWithoutCorpus(): void {
  test.skip(!existsSync(LOCOMO10), `the LoCoMo corpus is not at ${LOCOMO10}`);
}

/** Opens the app and uploads mini.json in the Datasets view, as a new user does first. */
export async function openWithMini(page: Page, workbench: WorkbenchServer): Promise<void> {
  await page.goto(workbench.url);
  await page.getByLabel('Dataset file').setInputFiles(MINI);
  await expect(
    page.getByRole('region', { name: 'Samples' }).getByRole('row', { name: /mini-1/ }),
  ).toBeVisible();
}

/** The engine's HTTP API with the launch token, called directly where a spec needs no UI for it. */
export function api(request: APIRequestContext, serverUrl: string) {
  const url = new URL(serverUrl);
  const headers = { authorization: `Bearer ${url.searchParams.get('token') ?? ''}` };
  return async <T>(name: string, input: unknown): Promise<T> => {
    const response = await request.post(`${url.origin}/api/${name}`, { headers, data: input });
    const body = (await response.json()) as { ok: boolean; data?: T; error?: { message: string } };
    if (!body.ok) throw new Error(`${name}: ${body.error?.message ?? response.status()}`);
    return body.data as T;
  };
}
