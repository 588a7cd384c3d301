import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildRunExport } from '../../src-main/core/runs/export';
import { RunStore } from '../../src-main/core/runs/store';
import { CLI_ARGS, REPO } from '../support/cli';

/**
 * `cli experiment` on a LongMemEval file over the whole-file limit: the run streams it (one
 * question at a time) instead of refusing it. The limit is lowered through its environment
 * variable so a small generated file stands in for longmemeval_m.json (~2.7 GB).
 */
const dir = mkdtempSync(join(tmpdir(), 'workbench-lme-stream-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const data = join(dir, 'longmemeval_m.json');
const generated = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    join(REPO, 'scripts/generate-longmemeval-m.ts'),
    data,
    ...['--questions', '3', '--sessions', '4', '--turns', '4', '--words', '12', '--seed', '7'],
  ],
  { cwd: REPO, encoding: 'utf8' },
);
if (generated.status !== 0) throw new Error(`generator failed: ${generated.stderr}`);

const baseEnv = {
  ...process.env,
  MEMORY_WORKBENCH_DATA: join(dir, 'data'),
  MEMORY_WORKBENCH_EXTRA_PRESETS: join(REPO, 'tests/fixtures/experiment/test-presets.ts'),
};
// Far below the file's size (several KiB), so loading it whole is refused.
const LIMIT = '1000';
const streamEnv = { ...baseEnv, MEMORY_WORKBENCH_MAX_DATASET_BYTES: LIMIT };

function cli(
  env: NodeJS.ProcessEnv,
  ...args: string[]
): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [...CLI_ARGS, ...args], {
    cwd: REPO,
    env,
    encoding: 'utf8',
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

interface Report {
  runId: string;
  status: string;
  summary: { questions: number };
}

/**
 * The runs database read in this process, not by more CLI children: each child starts the whole
 * CLI (~1.5 s of CPU), and under a loaded machine's 8x slowdown the reads alone took this test
 * past its limit. `export` and `runs show` have their own tests.
 */
function readRuns<T>(db: string, read: (store: RunStore) => T): T {
  const store = RunStore.open(db);
  try {
    return read(store);
  } finally {
    store.close();
  }
}

/** Each question's final answer, as `export --format json` writes them. */
const finals = (db: string, id: string): unknown[] =>
  readRuns(db, (store) => buildRunExport(store, id).answers);

const manifestDataset = (db: string, id: string): unknown =>
  readRuns(db, (store) => store.getRun(id).manifest.dataset);

describe('cli experiment on a LongMemEval file over the whole-file limit', () => {
  it('is refused when loaded whole, and streamed by experiment with the answers of a whole load', () => {
    expect(statSync(data).size).toBeGreaterThan(Number(LIMIT));
    const stats = cli(streamEnv, 'stats', data);
    expect(stats.code).not.toBe(0);
    expect(stats.err).toContain('DATASET_TOO_LARGE');

    const db = join(dir, 'runs.db');
    const run = (env: NodeJS.ProcessEnv, ...extra: string[]): Report => {
      const r = cli(
        env,
        'experiment',
        '--data',
        data,
        '--preset',
        'test-recency',
        '--runs-db',
        db,
        '--json',
        ...extra,
      );
      expect(r.err).not.toContain('error');
      expect(r.code).toBe(0);
      return JSON.parse(r.out) as Report;
    };
    const whole = run(baseEnv);
    // Two lanes read the one stream: each takes the next question in file order.
    const streamed = run(streamEnv, '--parallel', '2');
    expect(streamed).toMatchObject({ status: 'completed', summary: { questions: 3 } });
    expect(streamed.summary).toEqual(whole.summary);
    expect(finals(db, streamed.runId)).toEqual(finals(db, whole.runId));
    // The streamed pass hashes the same bytes: resume and rescore check the same sha256.
    expect(manifestDataset(db, streamed.runId)).toEqual(manifestDataset(db, whole.runId));

    // Rescoring reads the evidence from the streamed file too (one pass, questions only).
    const before = finals(db, streamed.runId);
    const rescored = cli(streamEnv, 'rescore', streamed.runId, '--runs-db', db, '--json');
    expect(rescored.code).toBe(0);
    const result = JSON.parse(rescored.out) as {
      metrics: string[];
      skipped: Array<{ metric: string }>;
    };
    expect(result.metrics).toEqual(expect.arrayContaining(['lmeTurnRecall', 'lmeSessionRecall']));
    expect(result.skipped.map((x) => x.metric)).toEqual(['judge']);
    expect(finals(db, streamed.runId)).toEqual(before);

    const some = run(streamEnv, '--samples', 'synth0002,synth0000_abs');
    expect(some.summary.questions).toBe(2);
  });

  it('keeps refusing a LoCoMo file over the limit (only LongMemEval streams)', () => {
    const mini = join(REPO, 'tests/fixtures/locomo/mini.json');
    const r = cli(
      streamEnv,
      'experiment',
      '--data',
      mini,
      '--preset',
      'test-recency',
      '--runs-db',
      join(dir, 'locomo.db'),
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /^error DATASET_TOO_LARGE: .*mini\.json: .* is larger than the limit of 1000 bytes\n$/,
    );
  });

  it('resumes a killed streamed run to the answers of an uninterrupted one, and refuses a changed file', async () => {
    const file = join(dir, 'resume.json');
    copyFileSync(data, file);
    const db = join(dir, 'resume.db');
    const config = join(dir, 'slow.json');
    // Slow inserts so the kill lands after the first question's test and before the last.
    appendFileSync(
      config,
      JSON.stringify({ memory: { preset: 'test-recency', config: { insertDelayMs: 120 } } }),
    );
    const child = spawn(
      process.execPath,
      [...CLI_ARGS, 'experiment', '--data', file, '--config', config, '--runs-db', db],
      { cwd: REPO, env: streamEnv },
    );
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('synth0000_abs: test 0 committed')) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.on('exit', () =>
        reject(new Error(`the run ended before it could be killed:\n${stderr}`)),
      );
    });
    await new Promise((r) => child.once('exit', r));
    // Opening the database marks the killed run interrupted, as `runs list` would.
    const killed = readRuns(db, (store) => store.listRuns()[0]) as { id: string; status: string };
    expect(killed.status).toBe('interrupted');

    appendFileSync(file, '\n');
    const refused = cli(streamEnv, 'resume', killed.id, '--runs-db', db);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`${file}: the file changed since run ${killed.id} started`);

    copyFileSync(data, file);
    const resumed = cli(streamEnv, 'resume', killed.id, '--runs-db', db, '--json');
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.out)).toMatchObject({ runId: killed.id, status: 'completed' });
    const straight = JSON.parse(
      cli(streamEnv, 'experiment', '--data', file, '--config', config, '--runs-db', db, '--json')
        .out,
    ) as Report;
    expect(finals(db, killed.id)).toEqual(finals(db, straight.runId));
  });
});
