import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { workerExecutor } from '../src-main/core/pipeline/executors';
import { RunStore } from '../src-main/core/runs/store';
import { bullmqExecutor } from '../src-main/core/sweeps/distributed';
import { runSweep } from '../src-main/core/sweeps/run';
import { loadSweep, type LoadedSweep } from '../src-main/core/sweeps/spec';
import { startCliWorker } from '../tests/support/cli-worker';
import { startRedis } from '../tests/support/redis-server';
import { REPO, fmt, machineLine, writeSection } from './common';

/**
 * A 12-cell offline sweep (extractive answers, one LoCoMo sample per cell) run by the local
 * executor and by the distributed one on 1, 2 and 4 `cli worker` processes against a local
 * redis-server. Reports wall time, scaling efficiency, and the coordinator's overhead per
 * committed test (distributed on 1 worker minus local, over the tests committed).
 */

const WORKER_COUNTS = [1, 2, 4];

function spec(data: string, name: string): LoadedSweep {
  return loadSweep(
    {
      name,
      base: { datasetPath: data, samples: ['conv-26'] },
      axes: {
        'memory.preset': ['text', 'hybrid'],
        'retrieval.topK': [5, 10, 25],
        seed: [1, 2],
      },
    },
    `${name}.yaml`,
    REPO,
  );
}

function startWorker(
  url: string,
  queue: string,
  dataDir: string,
  datasetDir: string,
): Promise<ChildProcess> {
  // A worker runs only jobs whose dataset lies in its --dataset-dir folders.
  const args = ['--redis', url, '--queue', queue, '--data-dir', dataDir];
  return startCliWorker([...args, '--dataset-dir', datasetDir]);
}

interface Measured {
  label: string;
  wallMs: number;
  tests: number;
}

function testsOf(store: RunStore, runIds: ReadonlyArray<string | null>): number {
  let n = 0;
  for (const id of runIds) {
    if (id === null) continue;
    for (const s of store.getRun(id).sampleInfo) n += s.testsCommitted;
  }
  return n;
}

export async function sweepSuite(data: string, write: boolean, _extra: string[]): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'mw-bench-sweep-'));
  const redis = await startRedis();
  const results: Measured[] = [];
  const localRuns: Measured[] = [];
  try {
    // The machine is shared: local runs before and after the distributed ones, and the mean is
    // the baseline, so load that drifts during the suite does not favour either executor.
    const runLocal = async (tag: string): Promise<Measured> => {
      const store = RunStore.open(join(root, `local-${tag}.db`));
      const sweep = spec(data, `local${tag}`);
      const started = performance.now();
      const outcome = await runSweep(sweep, {
        store,
        dataDir: join(root, `local-${tag}`),
        executor: workerExecutor(),
      });
      const wallMs = performance.now() - started;
      if (outcome.failed > 0)
        throw new Error(`bench: local sweep had ${outcome.failed} failed cells`);
      const tests = testsOf(
        store,
        outcome.cells.map((c) => c.runId),
      );
      store.close();
      process.stderr.write(`local ${tag}: ${fmt(wallMs / 1000, 1)} s\n`);
      return { label: 'local executor (1 worker thread)', wallMs, tests };
    };
    localRuns.push(await runLocal('before'));
    for (const n of WORKER_COUNTS) {
      const queue = `bench-${n}`;
      const workers = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          startWorker(redis.url, queue, join(root, `w${n}-${i}`), dirname(data)),
        ),
      );
      const store = RunStore.open(join(root, `dist-${n}.db`));
      const distributed = await bullmqExecutor({ redisUrl: redis.url, queue });
      try {
        const sweep = spec(data, `dist${n}`);
        const started = performance.now();
        const outcome = await runSweep(sweep, {
          store,
          dataDir: join(root, `coord-${n}`),
          executor: distributed.executor,
          cellsAtOnce: 12,
        });
        const wallMs = performance.now() - started;
        if (outcome.failed > 0)
          throw new Error(`bench: distributed sweep had ${outcome.failed} failed cells`);
        results.push({
          label: `distributed, ${n} worker process${n === 1 ? '' : 'es'}`,
          wallMs,
          tests: testsOf(
            store,
            outcome.cells.map((c) => c.runId),
          ),
        });
        process.stderr.write(`distributed ${n}: ${fmt(wallMs / 1000, 1)} s\n`);
      } finally {
        await distributed.close();
        store.close();
        for (const w of workers) w.kill('SIGTERM');
      }
    }
    localRuns.push(await runLocal('after'));
  } finally {
    await redis.stop();
    rmSync(root, { recursive: true, force: true });
  }

  const local: Measured = {
    label: `local executor (1 worker thread; mean of ${localRuns.map((r) => fmt(r.wallMs / 1000, 1)).join(' s and ')} s, before and after)`,
    wallMs: localRuns.reduce((s, r) => s + r.wallMs, 0) / localRuns.length,
    tests: localRuns[0]?.tests ?? 0,
  };
  results.unshift(local);
  const one = results[1] as Measured;
  const rows = results.map((r, i) => {
    const n = i === 0 ? 1 : (WORKER_COUNTS[i - 1] as number);
    const efficiency = i === 0 ? '-' : `${fmt((one.wallMs / r.wallMs / n) * 100, 0)}%`;
    return `| ${r.label} | ${fmt(r.wallMs / 1000, 1)} | ${fmt(r.wallMs / local.wallMs, 2)}× | ${efficiency} | ${r.tests} |`;
  });
  const overheadMs = (one.wallMs - local.wallMs) / Math.max(1, one.tests);
  const body = [
    '## Sweep (12 cells, local and distributed executors)',
    '',
    `\`npm run bench -- sweep\`: memory.preset [text, hybrid] × retrieval.topK [5, 10, 25] × seed [1, 2], one sample (conv-26) per cell, extractive answers; BullMQ on a local redis-server, workers are \`cli worker\` processes on this machine. Machine: ${machineLine()}.`,
    '',
    '| executor | wall (s) | vs local | scaling efficiency (vs 1 worker) | tests committed |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    `Target: distributed on 1 worker within 1.15× of local: ${fmt(one.wallMs / local.wallMs, 2)}× (${one.wallMs / local.wallMs <= 1.15 ? 'met' : 'missed'}). Coordinator overhead per committed test (distributed 1 worker − local, over ${one.tests} tests): ${fmt(overheadMs, 1)} ms. With 2 cores, more than 2 worker processes cannot scale here; see docs/scaling.md for many machines.`,
  ].join('\n');
  process.stdout.write(`${body}\n`);
  if (write) await writeSection('sweep', body);
}
