import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExperimentConfigInput } from '../../src-shared/experiment';
import { inlineExecutor } from '../../src-main/core/pipeline/executors';
import {
  resumeRunBypassingLauncher,
  startRunBypassingLauncher,
} from '../../src-main/core/launch/testSeam';
import { RunStore } from '../../src-main/core/runs/store';
import { RecencyMemory } from '../fixtures/experiment/test-presets';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../support/fake-openai-server';

/**
 * The circuit breaker: an endpoint that refuses every call pauses the run after
 * `maxConsecutiveFailures` answers, with the reason kept in the runs DB; once the endpoint is
 * fixed, resume finishes the run with the answers of an undisturbed one.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const root = mkdtempSync(join(tmpdir(), 'workbench-breaker-'));

let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await startFakeOpenAIServer();
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

let counter = 0;
function world(): { store: RunStore; dataDir: string } {
  return {
    store: RunStore.open(join(root, `runs-${++counter}.db`)),
    dataDir: join(root, `w${counter}`),
  };
}

const config: () => ExperimentConfigInput = () => ({
  datasetPath: mini,
  memory: { preset: 'test-recency' },
  answerer: { kind: 'llm', baseUrl: server.url, model: 'fake-chat', maxRetries: 0 },
  maxConsecutiveFailures: 3,
  // One answer at a time: "three refused calls, then no more" counts calls in order (LLM runs
  // default to many in flight, and those already sent when the breaker trips are not stopped).
  concurrency: 1,
});
const executor = inlineExecutor({ createMemory: async (ctx) => new RecencyMemory(ctx) });
const chatCalls = (): number =>
  server.requests.filter((r) => r.path === '/v1/chat/completions').length;
const comparable = (store: RunStore, runId: string): unknown[] =>
  store.finalAnswers(runId).map((a) => ({ ...a, retrieveMs: 0, answerMs: 0 }));

describe('circuit breaker', () => {
  it('pauses a run after N failed answers in a row, keeps why, and resumes once fixed', async () => {
    const { store, dataDir } = world();
    server.requests.length = 0;
    server.setFault(
      { kind: 'status', status: 401, body: '{"error":{"message":"Incorrect API key"}}' },
      { path: '/v1/chat/completions', times: Infinity },
    );
    const handle = await startRunBypassingLauncher(config(), { store, dataDir, executor });
    const paused = await handle.done;
    // Three refused calls, then no more: the dead endpoint is not asked for the whole run.
    expect(chatCalls()).toBe(3);
    expect(paused.status).toBe('paused');
    expect(paused.error).toMatch(
      /^paused by the circuit breaker: 3 answers in a row failed \(maxConsecutiveFailures 3\), last: answer: .*401.*; fix the endpoint, then resume run /,
    );
    const run = store.getRun(handle.runId);
    expect(run.status).toBe('paused');
    expect(run.error).toBe(paused.error);
    // Every failed answer is accounted for: committed, or counted in a warning with the last error.
    const dropped = (run.manifest.warnings ?? [])
      .map((w) =>
        /^(\d+) answer error\(s\) in tests dropped uncommitted by the stop; last: answer: .*401/.exec(
          w,
        ),
      )
      .find((m) => m !== null);
    expect(run.answerErrors + Number(dropped?.[1] ?? 0)).toBe(3);

    server.setFault(null);
    const resumed = await resumeRunBypassingLauncher(handle.runId, { store, dataDir, executor });
    const finished = await resumed.done;
    expect(finished.status).toBe('completed');

    const clean = world();
    const reference = await startRunBypassingLauncher(config(), { ...clean, executor });
    expect((await reference.done).status).toBe('completed');
    expect(comparable(store, handle.runId)).toEqual(comparable(clean.store, reference.runId));
    store.close();
    clean.store.close();
  });

  it('does not trip on failures that successes interrupt', async () => {
    const { store, dataDir } = world();
    // Two failures, a success, two failures...: never three in a row.
    let n = 0;
    server.setFault(
      {
        kind: 'transform',
        fn: (response) =>
          ++n % 3 === 0 ? response : { status: 500, json: { error: { message: 'flaky' } } },
      },
      { path: '/v1/chat/completions', times: Infinity },
    );
    const handle = await startRunBypassingLauncher(
      { ...config(), maxErrorShare: 1 },
      { store, dataDir, executor },
    );
    const outcome = await handle.done;
    server.setFault(null);
    expect(outcome.error ?? '').not.toMatch(/circuit breaker/);
    expect(outcome.status).toBe('completed');
    store.close();
  });
});
