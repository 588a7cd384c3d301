import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli';
import type { PackCell } from '../../src-shared/reproduce';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../support/fake-openai-server';

/**
 * `cli reproduce <pack>` end to end on the mini fixture: against the fake OpenAI-compatible
 * server (the paper's protocol and judge, our endpoint) and offline with the extractive answerer.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const dir = mkdtempSync(join(tmpdir(), 'workbench-reproduce-cli-'));
const KEY_ENV = 'MW_TEST_REPRODUCE_API_KEY';
const KEY = 'sk-test-reproduce';

let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await startFakeOpenAIServer({ apiKey: KEY });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function cli(args: string[]): Promise<CliResult> {
  return runCli(args, { [KEY_ENV]: KEY, MEMORY_WORKBENCH_DATA: dir });
}

interface Report {
  offline: boolean;
  repeats: number;
  plan: { answerCalls: number; judgeCalls: number; questions: number };
  groups: Record<string, string>;
  cells: PackCell[];
}

const data = ['--data', mini, '--samples', 'mini-1'];
const online = () => ['--base-url', server.url, '--api-key-env', KEY_ENV];

describe('cli reproduce', () => {
  it('mem0-table1 against an OpenAI-compatible server: plan first, then paper vs ours per cell', async () => {
    const plan = await cli(['reproduce', 'mem0-table1', ...data, ...online(), '--plan']);
    expect(plan.code, plan.err).toBe(0);
    // mini-1's 7 questions, every test re-asks the visible ones: the estimate says how many calls.
    expect(plan.out).toMatch(/LLM calls: \d+ answer \+ \d+ judge \(at most\)/);
    expect(plan.out).toContain('10 complete run(s) per row, as the paper');
    expect(server.requests).toHaveLength(0);

    const run = await cli([
      'reproduce',
      'mem0-table1',
      ...data,
      ...online(),
      '--repeats',
      '2',
      '--json',
    ]);
    expect(run.code, run.err).toBe(0);
    const report = JSON.parse(run.out) as Report;
    expect(report).toMatchObject({ offline: false, repeats: 2 });
    const chats = server.requests.filter((r) => r.path === '/v1/chat/completions');
    const models = new Set(chats.map((r) => (r.body as { model: string }).model));
    // The paper's models by name, sent to our endpoint.
    expect(models).toEqual(new Set(['gpt-4o-mini']));
    expect(report.plan.answerCalls).toBe(
      chats.filter((r) => JSON.stringify(r.body).includes('Memories for user')).length,
    );
    const overall = report.cells.find(
      (c) => c.row === 'mem0' && c.metric === 'judge' && c.cell === 'overall',
    )!;
    expect(overall.paper).toBe(66.88);
    expect(overall.ours).not.toBeNull();
    expect(overall.diff).toBeCloseTo(overall.ours! - 66.88, 10);
    // The same answers both runs (a deterministic model): no spread, but a std over 2 runs.
    expect(overall.oursStd).toBe(0);
    expect(Object.keys(report.groups)).toEqual(['mem0']);
  }, 180_000);

  it('mem0-table1 offline with the extractive answerer says it is not the paper setting', async () => {
    const run = await cli(['reproduce', 'mem0-table1', ...data, '--repeats', '1']);
    expect(run.code, run.err).toBe(0);
    expect(run.out).toContain(
      "OFFLINE: extractive answerer, no judge. This is NOT the paper's setting",
    );
    expect(run.out).toContain('1 complete run(s) per row (the paper: 10)');
    // F1 (no verified paper figure) is ours only; J is the paper's only (no judge offline).
    expect(run.out).toMatch(/mem0\s+set F1\s+overall\s+-\s+\d+\.\d\d/);
    expect(run.out).toMatch(/mem0\s+J\s+overall\s+66\.88\s+-/);
  }, 120_000);

  it('locomo-table3 runs each context budget, online and offline', async () => {
    server.requests.length = 0;
    const run = await cli(['reproduce', 'locomo-table3', ...data, ...online(), '--json']);
    expect(run.code, run.err).toBe(0);
    const report = JSON.parse(run.out) as Report;
    expect(Object.keys(report.groups)).toEqual([
      'full-context-4k',
      'full-context-8k',
      'full-context-12k',
      'full-context-16k',
    ]);
    // LoCoMo's full-context prompt went out (its conversation block), and no judge was asked.
    const bodies = server.requests.map((r) => JSON.stringify(r.body));
    expect(bodies.some((b) => b.includes('CONVERSATION:'))).toBe(true);
    expect(report.plan.judgeCalls).toBe(0);
    expect(report.cells.filter((c) => c.cell === 'overall' && c.ours !== null)).toHaveLength(4);
    expect(report.cells.every((c) => c.paper === null)).toBe(true);

    const offline = await cli(['reproduce', 'locomo-table3', ...data]);
    expect(offline.code, offline.err).toBe(0);
    expect(offline.out).toContain("This is NOT the paper's setting");
    expect(offline.out).toContain('figures: unverified');
  }, 240_000);

  it('plans the RAG-baseline pack now that its protocols and presets are registered', async () => {
    const run = await cli(['reproduce', 'locomo-table3-rag', ...data, '--plan']);
    expect(run.code, run.err).toBe(0);
    expect(run.err + run.out).not.toContain('is not registered');
  }, 60_000);
});
