import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunStore } from '../src-main/core/runs/store';
import { REPO, machineLine, writeSection } from './common';
import { DURATION_MS, PROBE_GAP_MS, measure, resultTable, type CallMix } from './server';

/** Real packs at full size: LoCoMo Table 2 (5 runs × 1,986 questions), Mem0 Table 1 (10 × 1,540). */
const PACKS = ['locomo-table2', 'mem0-table1'] as const;
/** The Reproduce view asks once per open; a few users' views, not a load generator's fifty. */
const CLIENTS = 4;

const loadNow = (): string =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

/**
 * `reproduce.results` through the real server while `app.info` is probed: each pack is run offline
 * at full size by `cli reproduce` (or read from `--full-run-db <runs.db>` holding their runs), then
 * CLIENTS clients call `reproduce.results` of the packs in turn, once with reads on the main thread
 * (read workers 0) and once with the default read worker.
 */
export async function serverReproduceSuite(
  data: string,
  write: boolean,
  extra: string[],
): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mw-bench-reproduce-'));
  try {
    const given = extra.find((e) => e.startsWith('full-run-db='))?.slice('full-run-db='.length);
    if (given !== undefined) copyFileSync(given, join(dataDir, 'runs.db'));
    else {
      for (const pack of PACKS) {
        execFileSync(
          'npm',
          ['run', '-s', 'cli', '--', 'reproduce', pack, '--data', data, '--data-dir', dataDir],
          { cwd: REPO, stdio: ['ignore', 'ignore', 'inherit'] },
        );
      }
    }
    const store = RunStore.open(join(dataDir, 'runs.db'));
    const runs = store.sweepRuns().filter((r) => r.status === 'completed');
    const answers = runs.reduce((n, r) => n + store.getRun(r.runId).questions, 0);
    store.close();
    const loadBefore = loadNow();
    const mix: CallMix = PACKS.map((packId) => ['reproduce.results', { packId }] as const);
    const results = [
      await measure(dataDir, mix, 0, 'reads on the main thread', CLIENTS),
      await measure(dataDir, mix, 1, 'reads in 1 read worker (default)', CLIENTS),
    ];
    const body = [
      '## Server: reproduce.results (a pack read from the stored runs)',
      '',
      'Reproduce: `npm run bench -- server-reproduce [--full-run-db <runs.db with the packs>]`.',
      '',
      `Measured ${new Date().toISOString().slice(0, 10)} on ${machineLine()}; load average before the ` +
        `measurements ${loadBefore}.`,
      '',
      `The packs ${PACKS.join(' and ')} run offline at full size by \`cli reproduce\` ` +
        `(${runs.length} completed runs, ${answers.toLocaleString('en-US')} final answers). ` +
        `${CLIENTS} clients call \`reproduce.results\` of each pack in turn for ${DURATION_MS / 1000} s ` +
        `while \`app.info\` is probed every ${PROBE_GAP_MS} ms, open loop, as in the server section.`,
      '',
      ...resultTable(results),
    ].join('\n');
    process.stdout.write(`${body}\n`);
    if (write) await writeSection('server-reproduce', body);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
