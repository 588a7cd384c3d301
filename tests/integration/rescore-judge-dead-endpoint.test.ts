import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAIServer } from '../support/fake-openai-server';

/**
 * Issue 39 item 11: `rescore --judge` against a dead endpoint retried silently for minutes, then
 * exited 0 with "152 without a verdict". It says each retry and why as it goes, stops once the
 * judge has failed the run's `maxConsecutiveFailures` calls in a row (the rule that pauses a run),
 * and exits non-zero naming how many final answers have no verdict and why.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const dir = mkdtempSync(join(tmpdir(), 'workbench-rescore-dead-'));
const db = join(dir, 'runs.db');
const env = {
  ...process.env,
  MEMORY_WORKBENCH_DATA: join(dir, 'data'),
  MEMORY_WORKBENCH_EXTRA_PRESETS: join(repo, 'tests/fixtures/experiment/test-presets.ts'),
};
const cliArgs = ['--import', 'tsx', join(repo, 'src-main/cli/main.ts')];
let runId: string;
let deadUrl: string;

beforeAll(async () => {
  // A port that was just listening and is closed now: every connection is refused.
  const gone = await startFakeOpenAIServer({});
  deadUrl = gone.url;
  await gone.close();
  const run = spawnSync(
    process.execPath,
    [
      ...cliArgs,
      'experiment',
      '--data',
      mini,
      '--preset',
      'test-recency',
      '--max-consecutive-failures',
      '2',
      '--runs-db',
      db,
      '--json',
    ],
    { cwd: repo, env, encoding: 'utf8' },
  );
  expect(run.status, run.stderr).toBe(0);
  runId = (JSON.parse(run.stdout) as { runId: string }).runId;
}, 120_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('rescore --judge against a dead endpoint', () => {
  it('says it is retrying and why, stops at the run’s consecutive-failures rule, and exits 4 naming what is missing', async () => {
    const { code, stderr } = await promisify(execFile)(
      process.execPath,
      [
        ...cliArgs,
        'rescore',
        runId,
        '--judge',
        'mem0',
        '--judge-base-url',
        deadUrl,
        '--judge-model',
        'judge',
        '--runs-db',
        db,
      ],
      { cwd: repo, env, encoding: 'utf8' },
    ).then(
      (r) => ({ code: 0, stderr: r.stderr }),
      (e: { code?: number; stderr?: string }) => ({ code: e.code ?? -1, stderr: e.stderr ?? '' }),
    );
    expect(code).toBe(4);
    expect(stderr).toMatch(/^rescore: judge: retrying in \d+\.\d s after: .*ECONNREFUSED/m);
    expect(stderr).toMatch(
      /^rescore: judge: stopped early, paused by the circuit breaker: 2 judge calls in a row failed \(maxConsecutiveFailures 2\), last: .*ECONNREFUSED/m,
    );
    const missing =
      /^rescore: (\d+) final answers have no verdict under mem0: the pass stopped early \(.*\); (\d+) were not asked$/m.exec(
        stderr,
      );
    expect(missing, stderr).not.toBeNull();
    expect(Number(missing?.[1])).toBeGreaterThan(Number(missing?.[2]));
    expect(Number(missing?.[2])).toBeGreaterThan(0);
  }, 120_000);
});
