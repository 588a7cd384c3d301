import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_RUN_CONCURRENCY,
  type ExperimentConfigInput,
  type TestRecord,
} from '../../src-shared/experiment';
import {
  inlineExecutor,
  workerExecutor,
  type SampleExecutor,
} from '../../src-main/core/pipeline/executors';
import { SlotLender } from '../../src-main/core/pipeline/remoteGate';
import { effectiveParallel, startExperiment } from '../../src-main/core/pipeline/runner';
import { CallBudget } from '../../src-main/core/http/callBudget';
import { RunStore } from '../../src-main/core/runs/store';
import { RecencyMemory } from '../fixtures/experiment/test-presets';
import {
  defaultChatReply,
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from '../support/fake-openai-server';

/**
 * `concurrency`: one request budget per run, shared by every sample and worker thread. The fake
 * server counts the chat requests in flight; replies take a length-dependent time, so questions
 * finish out of order, and the committed answers must still equal a one-at-a-time run's.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const presetsModule = join(repo, 'tests/fixtures/experiment/test-presets.ts');
const root = mkdtempSync(join(tmpdir(), 'workbench-concurrency-'));

let server: FakeOpenAIServer;
let inFlight = 0;
let peak = 0;
beforeAll(async () => {
  server = await startFakeOpenAIServer({
    chat: async (chat) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      // 10-40 ms depending on the prompt: later questions often finish first.
      const content = chat.messages.at(-1)?.content ?? '';
      await new Promise((resolve) => setTimeout(resolve, 10 + ((content.length * 7) % 31)));
      inFlight--;
      return defaultChatReply(chat);
    },
  });
});
afterEach(() => {
  vi.restoreAllMocks();
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

const config = (concurrency: number): ExperimentConfigInput => ({
  datasetPath: mini,
  memory: { preset: 'test-recency' },
  answerer: { kind: 'llm', baseUrl: server.url, model: 'fake-chat', baseDelayMs: 1 },
  parallel: 2,
  concurrency,
});

/** What a run committed, in commit order, without timings. */
function committed(store: RunStore, runId: string): unknown[] {
  return store.answersByTest(runId).map((a) => ({ ...a, retrieveMs: 0, answerMs: 0 }));
}

async function run(
  concurrency: number,
  executor: SampleExecutor,
): Promise<{ peak: number; answers: unknown[] }> {
  const { store, dataDir } = world();
  peak = 0;
  const handle = await startExperiment(config(concurrency), { store, dataDir, executor });
  const outcome = await handle.done;
  expect(outcome.error).toBeNull();
  expect(outcome.status).toBe('completed');
  const answers = committed(store, handle.runId);
  store.close();
  return { peak, answers };
}

describe('concurrent answering under one request budget per run', () => {
  it('keeps at most `concurrency` requests in flight across worker threads, answers in order', async () => {
    const workers = workerExecutor({ presetModules: [presetsModule] });
    const sequential = await run(1, workers);
    expect(sequential.peak).toBe(1);
    const concurrent = await run(3, workers);
    // Two samples on two worker threads, one budget: never more than 3, and 3 is reached.
    expect(concurrent.peak).toBe(3);
    expect(concurrent.answers).toEqual(sequential.answers);
  });

  it('does the same on the inline executor', async () => {
    const base = inlineExecutor({ createMemory: async (ctx) => new RecencyMemory(ctx) });
    const tests: TestRecord[] = [];
    // Sees each test as the sample hands it over, before the store sorts anything.
    const inline: SampleExecutor = {
      ...base,
      run: (job, hooks, signal) =>
        base.run(
          job,
          {
            ...hooks,
            commitTest: (test) => {
              tests.push(test);
              return hooks.commitTest(test);
            },
          },
          signal,
        ),
    };
    const sequential = await run(1, inline);
    const concurrent = await run(4, inline);
    expect(sequential.peak).toBe(1);
    expect(concurrent.peak).toBe(4);
    expect(concurrent.answers).toEqual(sequential.answers);
    expect(tests.length).toBeGreaterThan(0);
    for (const test of tests) {
      expect(test.answers.map((a) => a.questionIndex)).toEqual(test.questionIndices);
    }
  });

  it('keeps DEFAULT_RUN_CONCURRENCY requests in flight when the config sets no concurrency', async () => {
    // One packet carries the evidence of every question, so the first test asks them all at once.
    const questions = DEFAULT_RUN_CONCURRENCY + 4;
    const file = join(root, 'one-test.json');
    writeFileSync(
      file,
      JSON.stringify([
        {
          sample_id: 'wide',
          conversation: {
            speaker_a: 'Ann',
            speaker_b: 'Bob',
            session_1_date_time: '1:56 pm on 8 May, 2023',
            session_1: [
              { speaker: 'Ann', dia_id: 'D1:1', text: 'I adopted a cat named Miso.' },
              { speaker: 'Bob', dia_id: 'D1:2', text: 'Lovely.' },
            ],
          },
          qa: Array.from({ length: questions }, (_, i) => ({
            question: `What is the cat called? (${i})`,
            answer: 'Miso',
            evidence: ['D1:1'],
            category: 4,
          })),
        },
      ]),
    );
    // Replies are held until DEFAULT_RUN_CONCURRENCY requests are open at once, then all go: a
    // run that keeps fewer in flight never gets a reply (the old default, one, hung here).
    let open = 0;
    let widest = 0;
    const held: (() => void)[] = [];
    const holding = await startFakeOpenAIServer({
      chat: async (chat) => {
        open++;
        widest = Math.max(widest, open);
        if (widest < DEFAULT_RUN_CONCURRENCY) await new Promise<void>((r) => held.push(r));
        else for (const release of held.splice(0)) release();
        open--;
        return defaultChatReply(chat);
      },
    });
    const { store, dataDir } = world();
    // Ledger writes: one transaction per request used to be a main-thread cost of its own.
    let ledgerWrites = 0;
    const recordCallBatch = store.recordCallBatch.bind(store);
    const recordCalls = store.recordCalls.bind(store);
    store.recordCallBatch = (runId, records) => {
      if (records.length > 0) ledgerWrites++;
      recordCallBatch(runId, records);
    };
    store.recordCalls = (runId, record) => {
      ledgerWrites++;
      recordCalls(runId, record);
    };
    try {
      const handle = await startExperiment(
        {
          datasetPath: file,
          memory: { preset: 'test-recency' },
          answerer: { kind: 'llm', baseUrl: holding.url, model: 'fake-chat', baseDelayMs: 1 },
        },
        {
          store,
          dataDir,
          executor: inlineExecutor({ createMemory: async (ctx) => new RecencyMemory(ctx) }),
        },
      );
      const outcome = await handle.done;
      expect(outcome.status).toBe('completed');
      // Never more than the default: the budget holds the rest until a reply comes back.
      expect(widest).toBe(DEFAULT_RUN_CONCURRENCY);
      const answers = store.answersByTest(handle.runId);
      expect(answers.filter((a) => a.error !== null)).toEqual([]);
      expect(answers.length).toBeGreaterThanOrEqual(questions);
      // Every request is in the ledger, the calls reported in one turn of the event loop filed in
      // one write, never one write per request (a longer wait would lose counts to a kill -9).
      const chats = holding.requests.filter((r) => r.path === '/v1/chat/completions').length;
      expect(store.getRun(handle.runId).manifest.usage?.answer?.calls).toBe(chats);
      expect(ledgerWrites).toBeLessThan(chats);
    } finally {
      store.close();
      await holding.close();
    }
  });

  it('runs more lanes than cores when the answers are remote', () => {
    const lanes = availableParallelism() + 3;
    expect(effectiveParallel(lanes, 100, true)).toBe(lanes);
    expect(effectiveParallel(lanes, 2, true)).toBe(2);
    // Offline answering is CPU work: one lane per core at most.
    expect(effectiveParallel(lanes, 100)).toBe(availableParallelism());
  });

  it('keeps tokensPerMinute as one budget across worker threads', async () => {
    const { store, dataDir } = world();
    // The main thread's side of the budget: who asked (one lender per worker's sample) and how
    // many asks it granted.
    const askers = new Set<SlotLender>();
    let asks = 0;
    let granted = 0;
    const handleSlot = SlotLender.prototype.handle;
    vi.spyOn(SlotLender.prototype, 'handle').mockImplementation(function (
      this: SlotLender,
      message,
    ) {
      if (message.type === 'slot-acquire') {
        askers.add(this);
        asks++;
      }
      handleSlot.call(this, message);
    });
    const acquire = CallBudget.prototype.acquire;
    vi.spyOn(CallBudget.prototype, 'acquire').mockImplementation(async function (
      this: CallBudget,
      ...args
    ) {
      const release = await acquire.apply(this, args);
      granted++;
      return release;
    });
    const before = server.requests.length;
    // A 1-token cap: the first request runs alone (an empty window lets one through), and every
    // other request of both workers waits for that minute to pass.
    const handle = await startExperiment(
      {
        ...config(4),
        answerer: { ...(config(4).answerer as object), tokensPerMinute: 1 },
      } as ExperimentConfigInput,
      { store, dataDir, executor: workerExecutor({ presetModules: [presetsModule] }) },
    );
    // Not a fixed wait (under load a worker may not have asked yet): wait until both workers
    // have asked the run's budget for a slot, at least twice in all, and one request was sent.
    const chats = () =>
      server.requests.slice(before).filter((r) => r.path.endsWith('/chat/completions'));
    while (askers.size < 2 || asks < 2 || chats().length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Every ask but the first is held for the minute (a grant would have been given at the ask).
    expect(granted).toBe(1);
    handle.cancel('test over');
    const outcome = await handle.done;
    expect(outcome.status).toBe('cancelled');
    expect(chats()).toHaveLength(1);
    store.close();
  });

  it('stops the answers in flight when the run is cancelled, and drops their test', async () => {
    const slow = await startFakeOpenAIServer({
      chat: async (chat) => {
        await new Promise((resolve) => setTimeout(resolve, 20_000));
        return defaultChatReply(chat);
      },
    });
    const { store, dataDir } = world();
    try {
      const handle = await startExperiment(
        {
          ...config(4),
          answerer: { kind: 'llm', baseUrl: slow.url, model: 'slow-chat', baseDelayMs: 1 },
          parallel: 1,
        },
        {
          store,
          dataDir,
          executor: inlineExecutor({ createMemory: async (ctx) => new RecencyMemory(ctx) }),
        },
      );
      // Wait until the first test's questions are at the endpoint.
      while (slow.requests.length === 0) await new Promise((r) => setTimeout(r, 20));
      const cancelledAt = Date.now();
      handle.cancel('test over');
      const outcome = await handle.done;
      expect(outcome.status).toBe('cancelled');
      // Not the 20 s the replies would take.
      expect(Date.now() - cancelledAt).toBeLessThan(5_000);
      // The stopped answers are not the endpoint's errors, and their half test is not kept.
      expect(store.getRun(handle.runId).answerErrors).toBe(0);
      expect(store.answersByTest(handle.runId)).toEqual([]);
    } finally {
      store.close();
      await slow.close();
    }
  });
});
