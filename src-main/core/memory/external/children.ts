import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { BroadcastChannel, isMainThread, threadId } from 'node:worker_threads';
import { z } from 'zod';

/**
 * Every memory-service process this process starts, known to the main thread wherever it was
 * started. A service is started in an experiment worker; a worker that is terminated (a cancel
 * past its grace, a paused run, a failed sample) takes its close path with it, and the child
 * would live on, reparented to PID 1 once the CLI exits. So each child runs in its own process
 * group (it and whatever it starts), every start and end is announced on a broadcast channel the
 * main thread listens to, and the main thread kills a terminated worker's groups, and every
 * group when the process ends or is told to (SIGINT, SIGTERM, SIGHUP).
 */

const CHANNEL = 'memory-workbench:service-children';

const noticeSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('started'), pid: z.number().int().positive(), thread: z.number() }),
  z.object({ type: z.literal('ended'), pid: z.number().int().positive() }),
]);
type Notice = z.output<typeof noticeSchema>;

/** Main thread only: live child pid (= its process group id) -> the thread that started it. */
const live = new Map<number, number>();
let channel: BroadcastChannel | null = null;

function record(notice: Notice): void {
  if (notice.type === 'started') live.set(notice.pid, notice.thread);
  else live.delete(notice.pid);
}

/** SIGKILL to a child's whole process group; a group already gone is fine. */
export function killProcessGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: nothing left in the group.
  }
}

/** Kills every service child started by `thread` (a worker's threadId); main thread only. */
export function killServiceChildrenOf(thread: number): void {
  for (const [pid, owner] of live) {
    if (owner !== thread) continue;
    killProcessGroup(pid);
    live.delete(pid);
  }
}

/** Kills every service child this process started; main thread only. Synchronous (safe in 'exit'). */
export function killAllServiceChildren(): void {
  for (const pid of live.keys()) killProcessGroup(pid);
  live.clear();
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * On a signal, the children go first. When nobody else handles the signal (no run to cancel
 * gracefully), it is raised again with the default action, so the process still ends as it would
 * have; a handler that cancels a run ends its children through the run's own ending.
 */
function onSignal(signal: (typeof SIGNALS)[number]): void {
  if (process.listenerCount(signal) > 1) return;
  killAllServiceChildren();
  for (const s of SIGNALS) process.off(s, onSignal);
  process.kill(process.pid, signal);
}

/**
 * Main thread: starts listening for children started by workers. Idempotent; call it before a
 * worker can start a child (the channel delivers only to listeners that exist when it posts).
 */
export function watchServiceChildren(): void {
  if (!isMainThread || channel) return;
  channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (event) => {
    const parsed = noticeSchema.safeParse(event.data);
    if (parsed.success) record(parsed.data);
  };
  // The channel never keeps a finished CLI alive.
  channel.unref();
  process.on('exit', killAllServiceChildren);
  for (const s of SIGNALS) process.on(s, onSignal);
}

let announcer: BroadcastChannel | null = null;

function announce(notice: Notice): void {
  if (isMainThread) {
    watchServiceChildren();
    record(notice);
    return;
  }
  if (!announcer) {
    announcer = new BroadcastChannel(CHANNEL);
    announcer.unref();
  }
  announcer.postMessage(notice);
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
  const child = spawn(argv[0] as string, argv.slice(1), {
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
    ...(cwd ? { cwd } : {}),
  });
  const pid = child.pid;
  if (pid !== undefined) {
    announce({ type: 'started', pid, thread: threadId });
    // What the service started dies with it, even when the service itself exited cleanly.
    child.once('exit', () => {
      killProcessGroup(pid);
      announce({ type: 'ended', pid });
    });
  }
  return child;
}
