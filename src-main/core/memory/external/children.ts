import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Writable } from 'node:stream';
import { isMainThread, threadId } from 'node:worker_threads';
import { WorkbenchError } from '../../../../src-shared/errors';

/**
 * Every memory-service process this process starts, known to the main thread wherever it was
 * started. A service is started in an experiment worker; a worker that is terminated (a cancel
 * past its grace, a paused run, a failed sample) takes its close path with it, and the child
 * would live on, reparented to PID 1 once the CLI exits. So each child runs in its own process
 * group (it and whatever it starts), and its pid is written, synchronously at spawn, into a table
 * in shared memory that the main thread reads: the main thread kills a terminated worker's groups,
 * and every group when the process ends or is told to (SIGINT, SIGTERM, SIGHUP). Shared memory
 * rather than a message, so a signal that arrives right after a spawn still finds the child.
 * A process killed with SIGKILL runs none of that: each group also has a watchdog (below) that
 * kills it when this process is gone, however it went.
 */

/** Children alive at once, per process: far above any run's parallelism. */
const SLOTS = 1024;

/**
 * Slot i holds [pid, thread id] at 2i, 2i+1; pid 0 marks a free slot. After the slots: DYING (set
 * once the process is going: no new child) and SPAWNING (spawns under way in any thread), so a
 * child forked in a worker while the main thread kills everything is not missed.
 */
const DYING = SLOTS * 2;
const SPAWNING = SLOTS * 2 + 1;
let table = new Int32Array(new SharedArrayBuffer((SLOTS * 2 + 2) * Int32Array.BYTES_PER_ELEMENT));

/** How long a dying process waits for spawns under way in workers before it goes anyway. */
const SPAWN_WAIT_MS = 2000;

/** The main thread's table, for a worker's `workerData`. */
export function serviceChildTable(): SharedArrayBuffer {
  return table.buffer as SharedArrayBuffer;
}

/** A worker records its children in the main thread's table (given in its workerData). */
export function adoptServiceChildTable(buffer: SharedArrayBuffer): void {
  table = new Int32Array(buffer);
}

function register(pid: number): void {
  for (let slot = 0; slot < SLOTS; slot++) {
    if (Atomics.compareExchange(table, slot * 2, 0, pid) === 0) {
      Atomics.store(table, slot * 2 + 1, threadId);
      return;
    }
  }
  // Full: the child still ends through its own close path, just not through the backstop.
}

function unregister(pid: number): void {
  for (let slot = 0; slot < SLOTS; slot++) {
    if (Atomics.compareExchange(table, slot * 2, pid, 0) === pid) return;
  }
}

/** A signal (SIGKILL unless told) to a child's whole process group; a group already gone is fine. */
export function killProcessGroup(pid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left in the group.
  }
}

/**
 * SIGKILL ends this process without a word to its children, and Node cannot ask the kernel to
 * signal them when it dies (prctl PR_SET_PDEATHSIG). So beside each service runs a watchdog, a
 * shell in a group of its own whose stdin is a pipe from this process: nothing is ever written to
 * it, and the read returns only when the pipe's only writer, this process, has closed it (exit,
 * any signal, a terminated worker thread). Then it kills the service's group. The service's own
 * exit ends its watchdog first. POSIX only: the process groups above are too. The watchdog needs
 * the service's pid, so it is forked just after the service: a SIGKILL inside that one fork's
 * time leaves the service unwatched (tests/security/orphan-processes.test.ts signals only once
 * the service runs its own helper, well after).
 */
const WATCHDOG_SCRIPT = 'read -r line || :; kill -s KILL -- "-$1" 2>/dev/null';

function startWatchdog(group: number): ChildProcess | null {
  if (process.platform === 'win32') return null;
  const watchdog = spawn(
    '/bin/sh',
    ['-c', WATCHDOG_SCRIPT, 'memory-service-watchdog', `${group}`],
    {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
    },
  );
  watchdog.on('error', () => undefined);
  watchdog.stdin?.on('error', () => undefined);
  // It must never keep this process alive: it lives exactly as long as this process does.
  watchdog.unref();
  (watchdog.stdin as (Writable & { unref?: () => void }) | null)?.unref?.();
  return watchdog;
}

function killWhere(owned: (thread: number) => boolean): void {
  for (let slot = 0; slot < SLOTS; slot++) {
    const pid = Atomics.load(table, slot * 2);
    if (pid === 0 || !owned(Atomics.load(table, slot * 2 + 1))) continue;
    killProcessGroup(pid);
    Atomics.compareExchange(table, slot * 2, pid, 0);
  }
}

/**
 * Asks every service child started by `thread` to stop (SIGTERM to its group) and leaves it
 * registered: the SIGKILL that follows a grace still finds it.
 */
export function signalServiceChildrenOf(thread: number, signal: NodeJS.Signals): void {
  for (let slot = 0; slot < SLOTS; slot++) {
    const pid = Atomics.load(table, slot * 2);
    if (pid !== 0 && Atomics.load(table, slot * 2 + 1) === thread) killProcessGroup(pid, signal);
  }
}

/** Kills every service child started by `thread` (a worker's threadId). */
export function killServiceChildrenOf(thread: number): void {
  killWhere((owner) => owner === thread);
}

/** Kills every service child this process started. Synchronous (safe in 'exit'). */
export function killAllServiceChildren(): void {
  killWhere(() => true);
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * On a signal, the children go first. When nobody else handles the signal (no run to cancel
 * gracefully), it is raised again with the default action, so the process still ends as it would
 * have; a handler that cancels a run ends its children through the run's own ending.
 */
function onSignal(signal: (typeof SIGNALS)[number]): void {
  if (process.listenerCount(signal) > 1) return;
  // No new child from here on; a worker forking one right now registers it and then sees DYING,
  // or is waited for, so it is killed before the process ends.
  Atomics.store(table, DYING, 1);
  killAllServiceChildren();
  const deadline = Date.now() + SPAWN_WAIT_MS;
  for (let busy = Atomics.load(table, SPAWNING); busy > 0 && Date.now() < deadline;) {
    Atomics.wait(table, SPAWNING, busy, 50);
    busy = Atomics.load(table, SPAWNING);
  }
  killAllServiceChildren();
  for (const s of SIGNALS) process.off(s, onSignal);
  process.kill(process.pid, signal);
}

let watching = false;

/** Main thread: kills every child when the process exits or is signalled. Idempotent. */
export function watchServiceChildren(): void {
  if (!isMainThread || watching) return;
  watching = true;
  process.on('exit', killAllServiceChildren);
  for (const s of SIGNALS) process.on(s, onSignal);
}

/**
 * Starts a memory-service command in its own process group (`detached`: a group the workbench can
 * kill whole, which the terminal's Ctrl-C does not reach; the main thread's signal handlers do)
 * and registers it until it exits.
 */
export function spawnServiceChild(
  argv: readonly string[],
  cwd?: string,
): ChildProcessWithoutNullStreams {
  watchServiceChildren();
  Atomics.add(table, SPAWNING, 1);
  try {
    if (Atomics.load(table, DYING) === 1) {
      throw new WorkbenchError('CANCELLED', 'memory service: not started, this process is ending');
    }
    const child = spawn(argv[0] as string, argv.slice(1), {
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
      ...(cwd ? { cwd } : {}),
    });
    const pid = child.pid;
    if (pid !== undefined) {
      register(pid);
      // Forked while the main thread was killing every child: it may have missed this one.
      if (Atomics.load(table, DYING) === 1) killProcessGroup(pid);
      const watchdog = startWatchdog(pid);
      // What the service started dies with it, even when the service itself exited cleanly.
      child.once('exit', () => {
        killProcessGroup(pid);
        unregister(pid);
        if (watchdog?.pid !== undefined) killProcessGroup(watchdog.pid);
      });
    }
    return child;
  } finally {
    Atomics.sub(table, SPAWNING, 1);
    Atomics.notify(table, SPAWNING);
  }
}
