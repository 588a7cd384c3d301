import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { ProgressEvent } from '../src-shared/experiment';
import { DEFAULT_MEMORY_PRESET } from '../src-shared/experiment/config';
import { startRunBypassingLauncher } from '../src-main/core/launch/testSeam';
import { workerExecutor } from '../src-main/core/pipeline/executors';
import { RunStore } from '../src-main/core/runs/store';
import { threadCpuMs } from '../src-main/core/pipeline/threadCpu';
import { fmt, machineLine, peakRssMb, writeSection } from './common';

const PARALLEL = 2;

interface SampleTimes {
  started: number;
  firstPacket: number | null;
  finished: number | null;
  /** Sum of the gaps ending in a packet event (telescoped, so ms rounding does not add up). */
  insertMs: number;
  /** Sum of the gaps ending in a test-committed event: retrieve, answer, score and commit. */
  testsMs: number;
  last: number;
  /** The worker thread's CPU time at the same events (ms; stamped by the worker, 10 ms ticks). */
  cpu: { started: number; firstPacket: number; insert: number; tests: number; last: number };
}

/** The CPU stamp the worker adds to each progress event (`stampThreadCpu`). */
const cpuOf = (e: ProgressEvent): number => {
  const stamp = (e as { threadCpuMs?: unknown }).threadCpuMs;
  return typeof stamp === 'number' ? stamp : NaN;
};

/**
 * All samples through the real engine: worker threads (parallel 2), the default preset, the
 * extractive answerer, a temporary runs database. Wall time includes worker start-up and the
 * word-vector load. Each stage is reported in wall time and in the worker threads' own CPU time
 * (stamped on their progress events): wall time counts the time a thread waited for a core, which
 * on a loaded machine is most of it.
 */
export async function pipelineSuite(data: string, write: boolean, _extra: string[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mw-bench-pipeline-'));
  const store = RunStore.open(join(dir, 'runs.db'));
  const times = new Map<string, SampleTimes>();
  let rssSamples = 0;
  let heapPeak = 0;
  const poll = setInterval(() => {
    rssSamples++;
    heapPeak = Math.max(heapPeak, process.memoryUsage().rss);
  }, 50);
  const onProgress = (e: ProgressEvent): void => {
    if (e.type === 'sample-started') {
      const cpu = cpuOf(e);
      times.set(e.sampleId, {
        started: e.at,
        firstPacket: null,
        finished: null,
        insertMs: 0,
        testsMs: 0,
        last: e.at,
        cpu: { started: cpu, firstPacket: cpu, insert: 0, tests: 0, last: cpu },
      });
    } else if (e.type === 'packet') {
      const t = times.get(e.sampleId);
      if (!t) return;
      const cpu = cpuOf(e);
      if (t.firstPacket === null) {
        t.firstPacket = e.at;
        t.cpu.firstPacket = cpu;
      } else {
        t.insertMs += e.at - t.last;
        t.cpu.insert += cpu - t.cpu.last;
      }
      t.last = e.at;
      t.cpu.last = cpu;
    } else if (e.type === 'test-committed') {
      const t = times.get(e.sampleId);
      if (!t) return;
      const cpu = cpuOf(e);
      t.testsMs += e.at - t.last;
      t.cpu.tests += cpu - t.cpu.last;
      t.last = e.at;
      t.cpu.last = cpu;
    } else if (e.type === 'sample-finished') {
      const t = times.get(e.sampleId);
      if (t) t.finished = e.at;
    }
  };
  const loadBefore = loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
  const executor = workerExecutor({ stampThreadCpu: true });
  const t0 = performance.now();
  const wall0 = Date.now();
  const processCpu0 = process.cpuUsage();
  const mainCpu0 = threadCpuMs();
  let runId = '';
  try {
    const handle = await startRunBypassingLauncher(
      { datasetPath: data, parallel: PARALLEL },
      { store, dataDir: dir, executor, onProgress },
    );
    runId = handle.runId;
    const outcome = await handle.done;
    const wallMs = performance.now() - t0;
    const processCpu = process.cpuUsage(processCpu0);
    const processCpuMs = (processCpu.user + processCpu.system) / 1000;
    const mainCpuMs = (threadCpuMs() ?? NaN) - (mainCpu0 ?? NaN);
    clearInterval(poll);
    if (outcome.status !== 'completed')
      throw new Error(`bench: run ${outcome.status}: ${outcome.error ?? ''}`);
    const rss = peakRssMb();

    store.close();
    const db = new Database(join(dir, 'runs.db'), { readonly: true });
    const sums = db
      .prepare(
        'SELECT COUNT(*) AS n, SUM(retrieve_ms) AS retrieve, SUM(answer_ms) AS answer FROM answers WHERE run_id = ?',
      )
      .get(runId) as { n: number; retrieve: number; answer: number };
    db.close();

    let workerMs = 0;
    let loadMs = 0;
    let insertMs = 0;
    let testsMs = 0;
    const cpu = { worker: 0, load: 0, insert: 0, tests: 0 };
    const firstStart = Math.min(...[...times.values()].map((t) => t.started));
    for (const t of times.values()) {
      if (t.finished === null || t.firstPacket === null) continue;
      workerMs += t.finished - t.started;
      loadMs += t.firstPacket - t.started;
      insertMs += t.insertMs;
      testsMs += t.testsMs;
      cpu.worker += t.cpu.last - t.cpu.started;
      cpu.load += t.cpu.firstPacket - t.cpu.started;
      cpu.insert += t.cpu.insert;
      cpu.tests += t.cpu.tests;
    }
    const other = workerMs - loadMs - insertMs - testsMs;
    const overall = outcome.summary.overall.all;
    const lines: string[] = [];
    lines.push('## Pipeline (all samples through the experiment engine)');
    lines.push('');
    lines.push('Reproduce: `npm run bench -- pipeline` (same dataset resolution as above).');
    lines.push('');
    lines.push(`Measured ${new Date().toISOString().slice(0, 10)} on ${machineLine()}.`);
    lines.push('');
    lines.push(
      `\`startExperiment\` with the worker executor, parallel ${PARALLEL}, preset \`${DEFAULT_MEMORY_PRESET}\` (the default), extractive answerer, a temporary runs DB; ${times.size} samples, ${sums.n.toLocaleString('en-US')} answers over all tests (every test re-asks the visible questions).`,
    );
    lines.push('');
    lines.push('| measure | value | target |');
    lines.push('|---|---|---|');
    lines.push(
      `| wall time (startExperiment to done, incl. worker start and word-vector loads) | ${(wallMs / 1000).toFixed(1)} s | <= 30 s |`,
    );
    lines.push(
      `| peak RSS (VmHWM of the process; worker threads share it) | ${rss === null ? 'n/a' : `${rss.toFixed(0)} MB`} | <= 1,536 MB |`,
    );
    lines.push(
      `| peak RSS sampled every 50 ms (process.memoryUsage) | ${(heapPeak / 2 ** 20).toFixed(0)} MB (${rssSamples} samples) | |`,
    );
    lines.push(
      `| final answers: official F1 / evidence recall@10 (sanity) | ${fmt(overall.officialF1.mean ?? NaN)} / ${fmt(overall.evidenceRecall.mean ?? NaN)} (n=${overall.officialF1.n}) | |`,
    );
    lines.push('');
    lines.push(
      `CPU: ${(processCpuMs / 1000).toFixed(1)} s for the whole process (process.cpuUsage, every thread), of it ${(cpu.worker / 1000).toFixed(1)} s in the sample workers (their own threads' clocks, stamped on their progress events) and ${(mainCpuMs / 1000).toFixed(1)} s on the main thread (commits, events, the word-vector load); load average ${loadBefore} at the start.`,
    );
    lines.push('');
    lines.push(
      `Worker -> main messages: ${executor.traffic.messages.toLocaleString('en-US')} carrying ${executor.traffic.reports.toLocaleString('en-US')} reports (progress events, test results, call counts, logs).`,
    );
    lines.push('');
    lines.push(
      `Where the time goes, summed over the ${times.size} sample workers (${(workerMs / 1000).toFixed(1)} s of worker wall time, ${(cpu.worker / 1000).toFixed(1)} s of their CPU; two run at once). Wall time includes waiting for a core; CPU time is the thread's own (Linux /proc/thread-self/stat, 10 ms ticks, summed over many intervals):`,
    );
    lines.push('');
    lines.push('| stage | wall s | CPU s | CPU share | from |');
    lines.push('|---|---|---|---|---|');
    const row = (label: string, ms: number, cpuMs: number | null, from: string) =>
      lines.push(
        `| ${label} | ${(ms / 1000).toFixed(2)} | ${cpuMs === null ? '' : (cpuMs / 1000).toFixed(2)} | ${cpuMs === null ? '' : `${((100 * cpuMs) / Math.max(1, cpu.worker)).toFixed(0)}%`} | ${from} |`,
      );
    row(
      'load (service open: word vectors, collection) + first packet',
      loadMs,
      cpu.load,
      'sample-started -> first packet event',
    );
    row('insert (remaining packets)', insertMs, cpu.insert, 'gaps ending in packet events');
    row(
      'tests: retrieve, answer, score, commit',
      testsMs,
      cpu.tests,
      'gaps ending in test-committed events',
    );
    row(
      '- of it retrieve',
      sums.retrieve,
      null,
      `answers.retrieve_ms (${sums.n} calls, ${fmt(sums.retrieve / Math.max(1, sums.n), 3)} ms each)`,
    );
    row(
      '- of it answer (extractive)',
      sums.answer,
      null,
      `answers.answer_ms (${fmt(sums.answer / Math.max(1, sums.n), 3)} ms each)`,
    );
    row('close and hand-over', other, null, 'last test -> sample-finished on the main thread');
    lines.push('');
    lines.push(
      `Before the first sample started: ${((firstStart - wall0) / 1000).toFixed(2)} s (config check, dataset load and plan, worker spawn).`,
    );
    const body = lines.join('\n');
    process.stdout.write(`${body}\n`);
    if (write) await writeSection('pipeline', body);
  } finally {
    clearInterval(poll);
    try {
      store.close();
    } catch {
      // already closed
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
