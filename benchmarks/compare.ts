import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRunBypassingLauncher } from '../src-main/core/launch/testSeam';
import { workerExecutor } from '../src-main/core/pipeline/executors';
import { RunStore } from '../src-main/core/runs/store';
import { createService } from '../src-main/core/service';
import { fmt, machineLine, writeSection } from './common';

const REPEATS = 5;
const TARGET_MS = 1000;

/**
 * Two full LoCoMo runs (hybrid and text over every sample) in `dataDir`/runs.db, through the real
 * engine; returns their ids and final-answer counts. The compare and server suites read them.
 */
export async function fullRuns(
  data: string,
  dataDir: string,
): Promise<{ runIds: string[]; answers: number[] }> {
  const store = RunStore.open(join(dataDir, 'runs.db'));
  try {
    const runIds: string[] = [];
    for (const preset of ['hybrid', 'text']) {
      const handle = await startRunBypassingLauncher(
        { datasetPath: data, parallel: 2, memory: { preset } },
        { store, dataDir, executor: workerExecutor() },
      );
      const outcome = await handle.done;
      if (outcome.status !== 'completed')
        throw new Error(`bench: ${preset} run ${outcome.status}: ${outcome.error ?? ''}`);
      runIds.push(handle.runId);
    }
    return { runIds, answers: runIds.map((id) => store.finalAnswers(id).length) };
  } finally {
    store.close();
  }
}

/**
 * Two full runs (hybrid and text over every sample), then the Compare view's request as the API
 * serves it: `runs.compare` through the service handlers (runs DB read, per-question alignment,
 * flips, paired bootstrap per category, config diff, costs) and the JSON the transport sends.
 * The first call opens the runs database (a cold view); the rest are the view re-opening.
 */
export async function compareSuite(data: string, write: boolean, _extra: string[]): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mw-bench-compare-'));
  try {
    const { runIds, answers } = await fullRuns(data, dataDir);

    const service = createService({ dataDir, transport: 'http' });
    const times: number[] = [];
    let bytes = 0;
    try {
      for (let i = 0; i < REPEATS; i++) {
        const t = performance.now();
        const result = await service.handlers['runs.compare']({
          runIds,
          baselineRunId: runIds[0] as string,
          metric: 'officialF1',
          seed: 0,
        });
        bytes = JSON.stringify(result).length;
        times.push(performance.now() - t);
      }
    } finally {
      await service.close();
    }
    const sorted = [...times].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] as number;
    const cold = times[0] as number;
    const lines = [
      '## Compare (two full LoCoMo runs)',
      '',
      'Reproduce: `npm run bench -- compare` (same dataset resolution as above).',
      '',
      `Measured ${new Date().toISOString().slice(0, 10)} on ${machineLine()}.`,
      '',
      `Two runs over every sample (hybrid and text; ${answers.join(' and ')} final answers), then the ` +
        "Compare view's `runs.compare` request through the service handlers, as the local server " +
        'and the Electron IPC call it: runs DB reads, per-question alignment, flips, a paired ' +
        'bootstrap (2,000 resamples) per category and overall, config diff, costs, then the ' +
        'JSON the transport sends.',
      '',
      '| measure | value | target |',
      '|---|---|---|',
      `| first request (opens the runs DB) | ${fmt(cold, 0)} ms | < ${TARGET_MS} ms |`,
      `| median of ${REPEATS} requests | ${fmt(median, 0)} ms | < ${TARGET_MS} ms |`,
      `| slowest request | ${fmt(sorted.at(-1) as number, 0)} ms | |`,
      `| response size (JSON) | ${fmt(bytes / 1024 / 1024, 2)} MB | |`,
    ];
    const body = lines.join('\n');
    process.stdout.write(`${body}\n`);
    if (write) await writeSection('compare', body);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
