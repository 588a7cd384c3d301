import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from '../../../tests/support/fake-openai-server';
import { RunStore } from '../../core/runs/store';
import { ExperimentConfigSchema } from '../../../src-shared/experiment';
import { planSweep } from '../../core/pipeline/plan';
import { runCli } from '../main';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const dir = mkdtempSync(join(tmpdir(), 'workbench-dry-run-'));
let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await startFakeOpenAIServer();
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
  });
  return { code, out, err };
}

describe('cli experiment --dry-run', () => {
  it("prints the planner's calls, tokens and cost, and calls and writes nothing", async () => {
    const db = join(dir, 'runs.db');
    // Port 9 on loopback: nothing answers there, and nothing may be asked.
    const args = ['--data', mini, '--answerer', 'llm', '--base-url', 'http://127.0.0.1:9/v1'];
    const { code, out, err } = await cli(
      'experiment',
      ...args,
      ...['--model', 'm', '--runs-db', db, '--dry-run', '--json'],
    );
    expect(err).toBe('');
    expect(code).toBe(0);
    const config = ExperimentConfigSchema.parse({
      datasetPath: mini,
      answerer: { kind: 'llm', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' },
    });
    const { totals } = await planSweep([{ index: 0, key: 'run', values: {}, repeat: 0, config }]);
    expect(totals.answerCalls).toBeGreaterThan(0);
    expect(JSON.parse(out)).toEqual({ dryRun: true, estimate: totals });
    expect(existsSync(db)).toBe(false);

    const text = await cli('experiment', ...args, '--model', 'm', '--runs-db', db, '--dry-run');
    expect(text.out).toContain(`LLM calls: ${totals.answerCalls} answer + 0 judge`);
    expect(text.out).toContain('cost (estimate): unknown (no prices in the config)');
  });

  it('keeps the estimate with the run and shows it against the actual calls', async () => {
    const db = join(dir, 'estimate.db');
    const args = ['--data', mini, '--samples', 'mini-1', '--answerer', 'llm'];
    const run = await cli(
      'experiment',
      ...args,
      ...['--base-url', server.url, '--model', 'm', '--runs-db', db, '--json', '--no-cache'],
    );
    expect(run.code).toBe(0);
    const { runId } = JSON.parse(run.out) as { runId: string };
    const config = ExperimentConfigSchema.parse({
      datasetPath: mini,
      samples: ['mini-1'],
      answerer: { kind: 'llm', baseUrl: server.url, model: 'm' },
    });
    const { totals } = await planSweep([{ index: 0, key: 'run', values: {}, repeat: 0, config }]);
    const store = RunStore.open(db);
    const { manifest } = store.getRun(runId);
    store.close();
    expect(manifest.estimate).toEqual({
      answerCalls: totals.answerCalls,
      judgeCalls: 0,
      promptTokens: totals.promptTokens,
      completionTokens: totals.completionTokens,
      cost: null,
    });
    const shown = await cli('runs', 'show', runId, '--runs-db', db);
    expect(shown.out).toContain(
      `LLM estimate ${totals.answerCalls} calls (${totals.answerCalls} answer, 0 judge), cost unknown; actual ${manifest.usage?.answer.calls} requests, cost unknown`,
    );
  });
});
