import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { Agent } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fmt, machineLine, percentile, writeSection } from './common';
import { call, startChild } from './server';

const TARGET_BYTES = 400 * 1024 * 1024;
const PROBE_GAP_MS = 20;

/**
 * The real LoCoMo file's samples again and again under new ids, to about TARGET_BYTES, written
 * as it goes, so this (the probing) process stays small.
 */
function writeBigFile(data: string, file: string): number {
  const samples = JSON.parse(readFileSync(data, 'utf8')) as Array<Record<string, unknown>>;
  const fd = openSync(file, 'w');
  let count = 0;
  try {
    let bytes = 0;
    for (let copy = 0; bytes < TARGET_BYTES; copy++) {
      for (const sample of samples) {
        const id = `${String(sample['sample_id'])}-${copy}`;
        const text = `${count === 0 ? '[' : ','}${JSON.stringify({ ...sample, sample_id: id })}`;
        bytes += writeSync(fd, text);
        count++;
      }
    }
    writeSync(fd, ']');
  } finally {
    closeSync(fd);
  }
  return count;
}

/** Peak resident set of another process (its worker threads included), MB. */
function peakRssOf(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

interface OpenResult {
  label: string;
  openMs: number;
  probes: number[];
  /** Longest time without an app.info reply while the open ran (its start and end included). */
  stallMs: number;
  peakRssMb: number;
  load: string;
}

/** One datasets.open of `file` while `app.info` is probed every PROBE_GAP_MS on its own socket. */
async function measure(
  dataDir: string,
  file: string,
  workerFromBytes: number,
  label: string,
): Promise<OpenResult> {
  const { child, target } = await startChild(dataDir, 1, [
    join(file, '..'),
    String(workerFromBytes),
  ]);
  const openAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  const probeAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    await call(target, probeAgent, 'app.info', {});
    let opening = true;
    const probes: number[] = [];
    let stallMs = 0;
    let lastReply = performance.now();
    const replied = (): void => {
      const now = performance.now();
      stallMs = Math.max(stallMs, now - lastReply);
      lastReply = now;
    };
    const probe = async (): Promise<void> => {
      while (opening) {
        const ms = await call(target, probeAgent, 'app.info', {});
        if (!opening) break;
        probes.push(ms);
        replied();
        await new Promise((r) => setTimeout(r, PROBE_GAP_MS));
      }
    };
    const open = call(target, openAgent, 'datasets.open', { path: file }).finally(() => {
      opening = false;
      replied();
    });
    const [openMs] = await Promise.all([open, probe()]);
    const load = loadavg()
      .map((x) => x.toFixed(1))
      .join(' ');
    return {
      label,
      openMs,
      probes: probes.sort((x, y) => x - y),
      stallMs,
      peakRssMb: peakRssOf(child.pid ?? 0),
      load,
    };
  } finally {
    openAgent.destroy();
    probeAgent.destroy();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

/**
 * Issue 23 item 8: `datasets.open` of a ~400 MB LoCoMo-shaped file (the real file's samples
 * repeated) through the real service and HTTP server in a child process, with `app.info` probed
 * meanwhile: the load on the main thread (the old behaviour) and in a worker thread (default).
 */
export async function datasetOpenSuite(
  data: string,
  write: boolean,
  _extra: string[],
): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'mw-bench-open-'));
  try {
    const folder = join(root, 'datasets');
    mkdirSync(folder);
    const file = join(folder, 'locomo-repeated.json');
    const samples = writeBigFile(data, file);
    const mb = statSync(file).size / 2 ** 20;
    const loadBefore = loadavg()
      .map((x) => x.toFixed(1))
      .join(' ');
    const results = [
      await measure(join(root, 'a'), file, Number.POSITIVE_INFINITY, 'on the main thread (before)'),
      await measure(join(root, 'b'), file, 16 * 1024 * 1024, 'in a worker thread (default)'),
    ];
    const row = (r: OpenResult): string =>
      `| ${r.label} | ${fmt(r.openMs / 1000, 1)} | ${r.probes.length} | ${fmt(percentile(r.probes, 0.5), 1)} | ` +
      `${fmt(percentile(r.probes, 0.99), 1)} | ${fmt(r.probes.at(-1) ?? Number.NaN, 0)} | ${fmt(r.stallMs, 0)} | ${fmt(r.peakRssMb, 0)} | ${r.load} |`;
    const lines = [
      '## Opening a large dataset (`npm run bench -- dataset-open`)',
      '',
      `Measured ${new Date().toISOString().slice(0, 10)} on ${machineLine()}; load average before the ` +
        `measurements ${loadBefore}.`,
      '',
      `A ${fmt(mb, 0)} MiB LoCoMo file (${samples} samples: the real file's, repeated under new ids) ` +
        'opened with `datasets.open` through the real service and HTTP server in a child process, ' +
        `while one client calls \`app.info\` every ${PROBE_GAP_MS} ms on its own connection until ` +
        'the open answers. Latencies are seen by the client (only replies that arrived before the open ended ' +
        'count); the longest stall is the longest time without any app.info reply; peak RSS is the server process ' +
        '(VmHWM, its threads included). Files of 16 MiB or more open in a worker thread.',
      '',
      '| datasets.open | open s | app.info calls during it | app.info p50 ms | app.info p99 ms | app.info max ms | longest stall ms | peak RSS MB | load average at the end |',
      '|---|---|---|---|---|---|---|---|---|',
      ...results.map(row),
    ];
    const body = lines.join('\n');
    process.stdout.write(`${body}\n`);
    if (write) await writeSection('dataset-open', body);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
