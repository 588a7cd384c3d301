import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { ProgressEvent } from '../src-shared/experiment';
import { startExperiment } from '../src-main/core/pipeline/runner';
import { workerExecutor } from '../src-main/core/pipeline/executors';
import { RunStore } from '../src-main/core/runs/store';
import { fmt, machineLine, peakRssMb, writeSection } from './common';

const PARALLEL = 2;

interface SampleTimes {
  started: number;
  firstPacket: number | null;
  finished: number | null;
  /** Sum of the gaps ending in a packet event (telescoped, so ms rounding does not add up). */
  insertMs: number;
  last: number;
}

/**
 * All samples through the real engine: worker threads (parallel 2), the default preset, the
 * extractive answerer, a temporary runs database. Wall time includes worker start-up and each
 * worker's load of the word vectors.
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
      times.set(e.sampleId, {
        started: e.at,
        firstPacket: null,
        finished: null,
        insertMs: 0,
        last: e.at,
      });
    } else if (e.type === 'packet') {
      const t = times.get(e.sampleId);
      if (!t) return;
      if (t.firstPacket === null) t.firstPacket = e.at;
      else t.insertMs += e.at - t.last;
      t.last = e.at;
    } else if (e.type === 'test-committed') {
      const t = times.get(e.sampleId);
      if (t) t.last = e.at;
    } else if (e.type === 'sample-finished') {
      const t = times.get(e.sampleId);
      if (t) t.finished = e.at;
    }
  };
  const t0 = performance.now();
  const wall0 = Date.now();
  let runId = '';
  try {
    const handle = await startExperiment(
      { datasetPath: data, parallel: PARALLEL },
      { store, dataDir: dir, executor: workerExecutor(), onProgress },
    );
    runId = handle.runId;
    const outcome = await handle.done;
    const wallMs = performance.now() - t0;
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
    const firstStart = Math.min(...[...times.values()].map((t) => t.started));
    for (const t of times.values()) {
      if (t.finished === null || t.firstPacket === null) continue;
      workerMs += t.finished - t.started;
      loadMs += t.firstPacket - t.started;
      insertMs += t.insertMs;
    }
    const other = workerMs - loadMs - insertMs - sums.retrieve - sums.answer;
    const overall = outcome.summary.overall.all;
    const lines: string[] = [];
    lines.push('## Pipeline (all samples through the experiment engine)');
    lines.push('');
    lines.push('Reproduce: `npm run bench -- pipeline` (same dataset resolution as above).');
    lines.push('');
    lines.push(`Measured ${new Date().toISOString().slice(0, 10)} on ${machineLine()}.`);
    lines.push('');
    lines.push(
      `\`startExperiment\` with the worker executor, parallel ${PARALLEL}, preset \`hybrid\` (defaults), extractive answerer, a temporary runs DB; ${times.size} samples, ${sums.n.toLocaleString('en-US')} answers over all tests (every test re-asks the visible questions).`,
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
      `Where the time goes, summed over the ${times.size} sample workers (${(workerMs / 1000).toFixed(1)} s of worker time; two run at once):`,
    );
    lines.push('');
    lines.push('| stage | seconds | share | from |');
    lines.push('|---|---|---|---|');
    const row = (label: string, ms: number, from: string) =>
      lines.push(
        `| ${label} | ${(ms / 1000).toFixed(2)} | ${((100 * ms) / Math.max(1, workerMs)).toFixed(0)}% | ${from} |`,
      );
    row(
      'load (service open: word vectors, collection) + first packet',
      loadMs,
      'sample-started -> first packet event',
    );
    row('insert (remaining packets)', insertMs, 'gaps ending in packet events');
    row(
      'retrieve',
      sums.retrieve,
      `answers.retrieve_ms (${sums.n} calls, ${fmt(sums.retrieve / Math.max(1, sums.n), 3)} ms each)`,
    );
    row(
      'answer (extractive)',
      sums.answer,
      `answers.answer_ms (${fmt(sums.answer / Math.max(1, sums.n), 3)} ms each)`,
    );
    row('score, commit, events, close', other, 'the rest of the worker time');
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
