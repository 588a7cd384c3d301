import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunStore } from '../../src-main/core/runs/store';
import { runCli, type CliResult } from '../support/cli';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../support/fake-openai-server';

/**
 * LoCoMo's batch prompt through the real CLI, in the stream protocol: every test asks its
 * visible questions 3 to a call (ascending question order), and each question keeps its own
 * answer and scores. The planner's call count is the number of calls the server receives.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const dir = mkdtempSync(join(tmpdir(), 'workbench-locomo-batch-'));
const KEY_ENV = 'MW_TEST_BATCH_API_KEY';
const KEY = 'sk-test-batch';

let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await startFakeOpenAIServer({ apiKey: KEY });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function cli(args: string[]): Promise<CliResult> {
  return runCli(args, { [KEY_ENV]: KEY, MEMORY_WORKBENCH_DATA: join(dir, 'data') });
}

describe('cli experiment with LoCoMo batch prompts', () => {
  it('asks each test 3 questions to a call, as planned, and answers every question', async () => {
    const db = join(dir, 'runs.db');
    const args = [
      'experiment',
      '--data',
      mini,
      '--samples',
      'mini-1',
      '--answerer',
      'llm',
      '--base-url',
      server.url,
      '--model',
      'fake-chat',
      '--api-key-env',
      KEY_ENV,
      '--answer-protocol',
      'locomo-full-context',
      '--batch-size',
      '3',
      '--runs-db',
      db,
      '--no-preflight',
    ];
    const plan = await cli([...args, '--dry-run', '--json']);
    expect(plan.code, plan.err).toBe(0);
    const planned = (JSON.parse(plan.out) as { estimate: { answerCalls: number } }).estimate;
    expect(server.requests).toHaveLength(0);

    const run = await cli([...args, '--json']);
    expect(run.code, run.err).toBe(0);
    const report = JSON.parse(run.out) as { runId: string; summary: { errors: number } };
    expect(report.summary.errors).toBe(0);
    const chats = server.requests.filter((r) => r.path === '/v1/chat/completions');
    expect(chats).toHaveLength(planned.answerCalls);

    const store = RunStore.open(db);
    try {
      const byTest = new Map<number, number[]>();
      for (const a of store.answersByTest(report.runId))
        byTest.set(a.testIndex, [...(byTest.get(a.testIndex) ?? []), a.questionIndex]);
      expect(byTest.size).toBeGreaterThan(1);
      // Each test's questions, cut 3 at a time: that many calls.
      const perTest = [...byTest.values()].map((q) => Math.ceil(q.length / 3));
      expect(chats).toHaveLength(perTest.reduce((a, b) => a + b, 0));
      const firstTest = [...byTest.get(0)!].sort((a, b) => a - b);
      const prompt = (chats[0]!.body as { messages: Array<{ content: string }> }).messages[0]!
        .content;
      expect(prompt).toContain('write short answers for each of the following questions');
      // The chunk's questions, numbered from 0.
      expect(prompt.match(/^\d+: /gm)).toHaveLength(Math.min(3, firstTest.length));
      for (const a of store.finalAnswers(report.runId)) {
        expect(a.error, `question ${a.question}`).toBeNull();
        expect(a.prediction.trim(), `question ${a.question}`).not.toBe('');
      }
    } finally {
      store.close();
    }
  }, 120_000);
});
