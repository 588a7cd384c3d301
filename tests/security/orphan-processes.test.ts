import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RunStatus } from '../../src-shared/experiment';
import {
  SERVICE_CANCEL_GRACE_MS,
  SERVICE_TERM_GRACE_MS,
  workerExecutor,
} from '../../src-main/core/pipeline/executors';
import { startRunBypassingLauncher } from '../../src-main/core/launch/testSeam';
import { RunStore } from '../../src-main/core/runs/store';
import { CLI_ARGS, REPO } from '../support/cli';

/**
 * A memory service that will not leave (it ignores the end of its stdin and SIGTERM, and starts a
 * helper process) must still be gone, with its helper, when the run that started it ends, however
 * it ends, and when the CLI that started it is killed with SIGKILL (no handler of its own runs). Real worker threads, real child processes; leftovers are found in /proc by a marker
 * unique to each test in their argv.
 */

const SERVICE = join(REPO, 'tests/support/stubborn-memory-service.mjs');
const mini = join(REPO, 'tests/fixtures/locomo/mini.json');
const root = mkdtempSync(join(tmpdir(), 'workbench-orphans-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let marker = '';
afterEach(() => {
  // A failing test must not leave its processes to the next one or to the machine.
  for (const pid of processesWith(marker)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
});

function newMarker(): string {
  marker = `orphan-check-${randomBytes(6).toString('hex')}`;
  return marker;
}

/** Processes whose argv contains `text` (zombies have an empty cmdline and do not count). */
function processesWith(text: string): number[] {
  if (text === '') return [];
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) found.push(Number(entry));
    } catch {
      // exited while listed
    }
  }
  return found;
}

/** The stubborn service's helper (its argv: `node -e <script> <marker>`), once it runs. */
function helperOf(text: string): number[] {
  return processesWith(text).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[1] === '-e';
    } catch {
      return false;
    }
  });
}

/** Polls until `check` holds or `ms` pass; returns its last answer. */
async function eventually<T>(probe: () => T, check: (value: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  let value = probe();
  while (!check(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    value = probe();
  }
  return value;
}

const serviceCommand = (...faults: string[]): string =>
  [process.execPath, SERVICE, newMarker(), ...faults].join(' ');

/** Once a run has ended, the service and its helper must go promptly (SIGKILL, not a polite wait). */
const GONE_WITHIN_MS = 1500;

async function expectNothingLeft(): Promise<void> {
  const left = await eventually(
    () => processesWith(marker),
    (p) => p.length === 0,
    GONE_WITHIN_MS,
  );
  expect(left, `processes with ${marker} still running`).toEqual([]);
}

async function runToEnd(
  command: string,
  extra: { maxConsecutiveFailures?: number; cancelOnceStarted?: boolean } = {},
): Promise<RunStatus> {
  const store = RunStore.open(join(root, `${marker}.db`));
  try {
    const handle = await startRunBypassingLauncher(
      {
        datasetPath: mini,
        samples: ['mini-1'],
        memory: { preset: 'external', config: { command } },
        ...(extra.maxConsecutiveFailures !== undefined
          ? { maxConsecutiveFailures: extra.maxConsecutiveFailures }
          : {}),
      },
      {
        store,
        dataDir: join(root, marker),
        mayStartProcesses: true,
        // A worker that will not stop is terminated quickly; its service must not outlive it.
        executor: workerExecutor({ cancelGraceMs: 300 }),
      },
    );
    if (extra.cancelOnceStarted === true) {
      await eventually(
        () => processesWith(marker).length,
        (n) => n >= 2,
        30_000,
      );
      handle.cancel('cancelled by the test');
    }
    return (await handle.done).status;
  } finally {
    store.close();
  }
}

describe('memory-service processes end with their run', () => {
  it('completed: the service that ignores its closed stdin is killed with its helper', async () => {
    expect(await runToEnd(serviceCommand())).toBe('completed');
    await expectNothingLeft();
  });

  it('failed: a service that refuses to open is killed with its helper', async () => {
    expect(await runToEnd(serviceCommand('open-fails'))).toBe('failed');
    await expectNothingLeft();
  });

  it('paused by the circuit breaker while the service hangs in close: the terminated worker leaves nothing', async () => {
    const command = serviceCommand('retrieve-fails', 'close-hangs');
    expect(await runToEnd(command, { maxConsecutiveFailures: 2 })).toBe('paused');
    await expectNothingLeft();
  });

  it('cancelled while the service hangs in close: the terminated worker leaves nothing', async () => {
    const command = serviceCommand('close-hangs');
    expect(await runToEnd(command, { cancelOnceStarted: true })).toBe('cancelled');
    await expectNothingLeft();
  });
});

describe('memory-service processes end with the CLI', () => {
  /** Starts `cli experiment` with the stubborn service, waits for it and its helper, signals the CLI. */
  async function signalMidRun(
    signals: NodeJS.Signals[],
    hangs = 'close-hangs',
  ): Promise<{ code: number | null; signal: string | null; err: string; signalledAt: number }> {
    const command = serviceCommand(hangs);
    const cli = spawn(
      process.execPath,
      [
        ...CLI_ARGS,
        'experiment',
        '--data',
        mini,
        '--samples',
        'mini-1',
        '--memory-command',
        command,
        '--runs-db',
        join(root, `${marker}.db`),
        '--data-dir',
        join(root, marker),
      ],
      { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let err = '';
    cli.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    cli.stdout.resume();
    const ended = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      cli.on('close', (code, signal) => resolve({ code, signal })),
    );
    // The run is under way (its Ctrl-C handler is in place) and the sample's service and helper run.
    await eventually(
      () => err,
      (text) => text.includes('tests to run'),
      60_000,
    );
    // The helper, by its own argv: the CLI's argv holds the marker too (in --memory-command), and
    // so does each child it forks until that child execs, so counting marker processes would
    // signal the CLI while the service's spawn, and the watchdog that follows it, were still
    // under way: SIGKILL then left a service no watchdog was watching. The helper runs only once
    // the service has started, by which time its watchdog has been forked.
    const helper = await eventually(
      () => helperOf(marker),
      (pids) => pids.length > 0,
      60_000,
    );
    expect(helper, err).not.toEqual([]);
    for (const [i, signal] of signals.entries()) {
      // One at a time: the CLI answers the first Ctrl-C (a graceful cancel) before the second.
      if (i > 0)
        await eventually(
          () => err,
          (text) => text.includes('cancelling run'),
          30_000,
        );
      cli.kill(signal);
    }
    const signalledAt = Date.now();
    return { ...(await ended), err, signalledAt };
  }

  it('SIGTERM: the CLI dies as told and takes the service and its helper with it', async () => {
    const ended = await signalMidRun(['SIGTERM']);
    expect(ended.signal).toBe('SIGTERM');
    await expectNothingLeft();
  });

  it('Ctrl-C twice: the CLI exits at once and leaves nothing behind', async () => {
    const ended = await signalMidRun(['SIGINT', 'SIGINT']);
    expect(ended.code).toBe(130);
    await expectNothingLeft();
  });

  it('SIGKILL: no handler runs, yet the watchdog kills the service and its helper', async () => {
    const ended = await signalMidRun(['SIGKILL'], 'insert-hangs');
    expect(ended.signal).toBe('SIGKILL');
    await expectNothingLeft();
  });

  it('Ctrl-C once with the service hung in open: SIGTERM, then SIGKILL, and the run ends cancelled', async () => {
    // The worker's open of a service cannot be cancelled: only stopping the service ends it.
    const ended = await signalMidRun(['SIGINT'], 'open-hangs');
    // Not a speed target: before, the cancel waited out the worker's whole grace (30 s), so the
    // bound only has to lie well below that and above the services' two graces.
    const CANCEL_WORKER_GRACE_MS = 30_000;
    expect(Date.now() - ended.signalledAt).toBeLessThan(CANCEL_WORKER_GRACE_MS / 2);
    expect(SERVICE_CANCEL_GRACE_MS + SERVICE_TERM_GRACE_MS).toBeLessThan(
      CANCEL_WORKER_GRACE_MS / 4,
    );
    expect(ended.err).toContain('mini-1: cancelled');
    expect(ended.code).toBe(130);
    await expectNothingLeft();
  });
});
