import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli';
import { RunStore } from '../../src-main/core/runs/store';
import {
  defaultChatReply,
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from '../support/fake-openai-server';

/**
 * `cli experiment --repeats N` (issue 11 item 3), the real CLI in a child process against the fake
 * OpenAI-compatible server. The judge is scripted to change its mind between the two runs (every
 * verdict CORRECT in the first run, WRONG in the second), so J's run-to-run spread is known: run
 * means 1 and 0, mean 0.5, sample std sqrt(0.5) = 0.7071 (a population std would say 0.5, and a
 * judge cache shared between the repeats would say 0).
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const dir = mkdtempSync(join(tmpdir(), 'workbench-repeats-cli-'));
const KEY_ENV = 'MW_TEST_REPEATS_API_KEY';
const KEY = 'sk-test-repeats';

let server: FakeOpenAIServer;
// A run's answer calls all come before its judge pass: an answer call after a judge call starts
// the next run.
let phase = 0;
let judgedInPhase = false;
beforeAll(async () => {
  server = await startFakeOpenAIServer({
    apiKey: KEY,
    chat: (chat) => {
      const reply = defaultChatReply(chat);
      if (chat.model !== 'fake-judge') {
        if (judgedInPhase) {
          phase++;
          judgedInPhase = false;
        }
        return reply;
      }
      judgedInPhase = true;
      return JSON.stringify({ label: phase % 2 === 0 ? 'CORRECT' : 'WRONG', reason: 'scripted' });
    },
  });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function cli(args: string[]): Promise<CliResult> {
  return runCli(args, { [KEY_ENV]: KEY, MEMORY_WORKBENCH_DATA: join(dir, 'data') });
}

interface Stat {
  mean: number | null;
  std: number | null;
  runs: number;
  values: Array<number | null>;
}

describe('cli experiment --repeats', () => {
  it('runs the experiment N times as one repeat group and reports mean ± std over the runs', async () => {
    const db = join(dir, 'runs.db');
    const args = [
      'experiment',
      ...['--data', mini, '--samples', 'mini-1', '--answerer', 'llm', '--model', 'fake-chat'],
      ...['--base-url', server.url, '--api-key-env', KEY_ENV],
      ...['--judge-base-url', server.url, '--judge-model', 'fake-judge'],
      ...['--judge-api-key-env', KEY_ENV, '--seed', '7', '--repeats', '2'],
      // Preflight's probe of the judge would take the first of its scripted verdicts.
      ...['--runs-db', db, '--no-preflight'],
    ];
    const run = await cli([...args, '--json']);
    expect(run.code, run.err).toBe(0);
    const report = JSON.parse(run.out) as {
      repeatGroup: string;
      seeds: number[];
      completed: number;
      runs: Array<{ runId: string; status: string }>;
      summary: { runs: number; overall: { answerable: Record<string, Stat> } };
    };
    expect(report.seeds).toEqual([7, 8]);
    expect(report.completed).toBe(2);
    const judge = report.summary.overall.answerable['judge']!;
    expect(judge.values).toEqual([1, 0]);
    expect(judge.mean).toBeCloseTo(0.5, 10);
    expect(judge.std).toBeCloseTo(Math.SQRT1_2, 10);
    // The answers are the same in both runs (deterministic model): their F1 spread is 0.
    const f1 = report.summary.overall.answerable['officialF1']!;
    expect(f1.runs).toBe(2);
    expect(f1.std).toBe(0);

    // Each run records its seed and its place in the group (the sweep tag the sweeps code uses).
    const store = RunStore.open(db);
    try {
      const tags = report.runs.map((r) => store.getRun(r.runId).manifest);
      expect(tags.map((m) => m.seed)).toEqual([7, 8]);
      expect(tags.map((m) => m.sweep?.repeat)).toEqual([0, 1]);
      expect(new Set(tags.map((m) => m.sweep?.sweepId))).toEqual(new Set([report.repeatGroup]));
      expect(store.sweepRuns(report.repeatGroup)).toHaveLength(2);
    } finally {
      store.close();
    }

    // The same command again resumes the group: both repeats are complete, nothing is asked.
    const chatsBefore = server.requests.length;
    const again = await cli(args);
    expect(again.code, again.err).toBe(0);
    expect(server.requests.length).toBe(chatsBefore);
    expect(again.out).toContain('Mean ± std over 2 complete runs (sample std, n - 1)');
    expect(again.out).toMatch(/overall \(categories 1-4\)\s.*0\.500 ± 0\.707/);
  }, 120_000);
});
