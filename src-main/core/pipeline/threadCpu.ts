import { readFileSync } from 'node:fs';

/** Linux's USER_HZ, the unit of /proc's CPU times: 100 on every architecture Node ships for. */
const TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system) the calling thread has used, in ms, or null off Linux. Node 20 has no
 * `process.threadCpuUsage` (Node 23.9 added it) and `process.cpuUsage` counts every thread of the
 * process, so this reads /proc/thread-self/stat. Its resolution is one clock tick (10 ms): sum
 * differences over many intervals, never trust one short one. About 15 us a call.
 */
export function threadCpuMs(): number | null {
  let stat: string;
  try {
    stat = readFileSync('/proc/thread-self/stat', 'latin1');
  } catch {
    return null;
  }
  // The command name may hold spaces and parentheses: fields are counted after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of stat(5), utime and stime, are the 12th and 13th after the name.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return null;
  return ((utime + stime) * 1000) / TICKS_PER_SECOND;
}
