import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, runCli } from '../support/cli';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../support/fake-openai-server';

/**
 * `report --format` on a LongMemEval run: LongMemEval's own row (its question types, abstention,
 * task-averaged, overall), not LoCoMo's columns filled with dashes; LoCoMo's layouts are refused.
 * The run is the CLI's, judged by a fake OpenAI-compatible server that says "yes".
 */
const dir = mkdtempSync(join(tmpdir(), 'workbench-lme-report-'));
const data = join(REPO, 'tests/fixtures/longmemeval/longmemeval_s.json');
const db = join(dir, 'runs.db');
const env = {
  MEMORY_WORKBENCH_DATA: join(dir, 'data'),
  MEMORY_WORKBENCH_EXTRA_PRESETS: join(REPO, 'tests/fixtures/experiment/test-presets.ts'),
};

let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await startFakeOpenAIServer({ chat: () => 'yes' });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function experiment(...extra: string[]): Promise<{ runId: string; err: string }> {
  const r = await runCli(
    [
      'experiment',
      ...['--data', data, '--preset', 'test-recency', '--runs-db', db, '--json'],
      ...['--judge-base-url', server.url, '--judge-model', 'fake-judge', ...extra],
    ],
    env,
  );
  expect(r.code, r.err).toBe(0);
  return { runId: (JSON.parse(r.out) as { runId: string }).runId, err: r.err };
}

describe('cli report --format on a LongMemEval run', () => {
  it("prints LongMemEval's row and refuses LoCoMo's layouts", async () => {
    const { runId, err } = await experiment();
    expect(err).not.toContain('warning');
    const table = await runCli(['report', runId, '--format', 'longmemeval', '--runs-db', db], env);
    expect(table.code, table.err).toBe(0);
    const [header, , row] = table.out.split('\n');
    expect(header).toBe(
      '| method | single-session-user | single-session-preference | single-session-assistant | multi-session | temporal-reasoning | knowledge-update | task-averaged | overall | abstention |',
    );
    // The judge said yes to all: 100 everywhere; multi-session holds only its abstention question,
    // which counts in its type as print_qa_metrics.py counts it.
    expect(row).toBe(
      `| test-recency · ${runId} | 100.0 | 100.0 | 100.0 | 100.0 | 100.0 | 100.0 | 100.0 | 100.0 | 100.0 |`,
    );

    const locomo = await runCli(['report', runId, '--format', 'locomo', '--runs-db', db], env);
    expect(locomo.code).not.toBe(0);
    expect(locomo.out).toBe('');
    expect(locomo.err).toContain(
      "--format locomo lays out another benchmark's table; a LongMemEval run's formats: longmemeval",
    );
  });

  it('warns when the run names a judge of another benchmark', async () => {
    const { err } = await experiment('--judge-protocol', 'mem0');
    expect(err).toContain(
      'warning: judge protocol "mem0" is LoCoMo\'s judge; this is a LongMemEval run, whose own is "longmemeval"',
    );
  });
});
