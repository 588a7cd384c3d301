import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_RUN_CONCURRENCY,
  type ExperimentConfigInput,
  type ProgressEvent,
  type TestRecord,
} from '../../src-shared/experiment';
import {
  inlineExecutor,
  workerExecutor,
  type SampleExecutor,
} from '../../src-main/core/pipeline/executors';
import { SlotLender } from '../../src-main/core/pipeline/remoteGate';
import { QUESTIONS_PER_BUDGET_SLOT } from '../../src-main/core/pipeline/runSample';
import { startRunBypassingLauncher } from '../../src-main/core/launch/testSeam';
import { effectiveParallel } from '../../src-main/core/pipeline/runner';
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

/**
 * One sample whose single packet carries the evidence of every question, so the first test asks
 * them all at once.
 */
function oneTestFile(name: string, questions: number): string {
  const file = join(root, name);
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
  return file;
}

async function run(
  concurrency: number,
  executor: SampleExecutor,
): Promise<{ peak: number; answers: unknown[] }> {
  const { store, dataDir } = world();
  peak = 0;
  const handle = await startRunBypassingLauncher(config(concurrency), { store, dataDir, executor });
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
    const questions = DEFAULT_RUN_CONCURRENCY + 4;
    const file = oneTestFile('one-test.json', questions);
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
      const handle = await startRunBypassingLauncher(
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

  it('lets the next questions read the memory while every slot is at the endpoint', async () => {
    // Concurrency 2, one test of 8 questions. Replies are held until the lane has retrieved for
    // QUESTIONS_PER_BUDGET_SLOT x 2 questions: the ones past 2 wait for a slot with their memory
    // already read, so a freed slot is used at once. (A window of 2 questions, the old one, read
    // the memory for only 2: released 10 s after the first reply was held all the same, it fails
    // below instead of hanging.)
    const window = 2 * QUESTIONS_PER_BUDGET_SLOT;
    let retrieved = 0;
    let retrievedWhenReleased = 0;
    let open = 0;
    let widest = 0;
    const held: (() => void)[] = [];
    const release = (): void => {
      retrievedWhenReleased ||= retrieved;
      for (const go of held.splice(0)) go();
    };
    let fallback: ReturnType<typeof setTimeout> | undefined;
    const holding = await startFakeOpenAIServer({
      chat: async (chat) => {
        open++;
        widest = Math.max(widest, open);
        fallback ??= setTimeout(release, 10_000);
        if (retrievedWhenReleased === 0) await new Promise<void>((go) => held.push(go));
        open--;
        return defaultChatReply(chat);
      },
    });
    class CountingMemory extends RecencyMemory {
      override async retrieve(question: string, topK: number) {
        if (++retrieved === window) release();
        return super.retrieve(question, topK);
      }
    }
    const { store, dataDir } = world();
    try {
      const handle = await startRunBypassingLauncher(
        {
          datasetPath: oneTestFile('window.json', 8),
          memory: { preset: 'test-recency' },
          answerer: { kind: 'llm', baseUrl: holding.url, model: 'fake-chat', baseDelayMs: 1 },
          concurrency: 2,
        },
        {
          store,
          dataDir,
          executor: inlineExecutor({ createMemory: async (ctx) => new CountingMemory(ctx) }),
        },
      );
      expect((await handle.done).status).toBe('completed');
      expect(retrievedWhenReleased).toBe(window);
      // The endpoint still sees at most `concurrency`: the run's budget binds, not the window.
      expect(widest).toBe(2);
      expect(store.answersByTest(handle.runId).filter((a) => a.error !== null)).toEqual([]);
    } finally {
      clearTimeout(fallback);
      release();
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
    const handle = await startRunBypassingLauncher(
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
      const handle = await startRunBypassingLauncher(
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

/**
 * One lane, three samples: a lane starts its next sample once the last one's memory work is done,
 * so that sample's answers still at the endpoint overlap the next one's inserts; and it keeps at
 * most one such tail, so the third sample waits for the first to finish.
 */
describe("a lane overlaps a sample's tail of answers with the next sample", () => {
  const threeSamples = join(root, 'three-samples.json');
  beforeAll(() => {
    const [first, second] = JSON.parse(readFileSync(mini, 'utf8')) as Array<{ sample_id: string }>;
    writeFileSync(threeSamples, JSON.stringify([first, second, { ...first, sample_id: 'mini-3' }]));
  });

  /** Sample starts and ends in the order the run reported them, e.g. `+mini-1`, `-mini-1`. */
  async function laneRun(
    executor: SampleExecutor,
    answerer: ExperimentConfigInput['answerer'] | undefined,
    onEvent: (event: ProgressEvent) => void = () => undefined,
  ): Promise<{ order: string[]; answers: unknown[] }> {
    const { store, dataDir } = world();
    const order: string[] = [];
    const handle = await startRunBypassingLauncher(
      {
        datasetPath: threeSamples,
        memory: { preset: 'test-recency' },
        ...(answerer ? { answerer } : {}),
        parallel: 1,
      },
      {
        store,
        dataDir,
        executor,
        onProgress: (event) => {
          if (event.type === 'sample-started') order.push(`+${event.sampleId}`);
          if (event.type === 'sample-finished') order.push(`-${event.sampleId}`);
          onEvent(event);
        },
      },
    );
    const outcome = await handle.done;
    expect(outcome.error).toBeNull();
    expect(outcome.status).toBe('completed');
    const answers = committed(store, handle.runId).sort((a, b) =>
      JSON.stringify(a).localeCompare(JSON.stringify(b)),
    );
    store.close();
    return { order, answers };
  }

  async function overlapped(executor: SampleExecutor): Promise<void> {
    // Replies to the first sample are held until the second has finished: the first can only end
    // after the second ran in its lane. (Released 15 s after the first reply was held all the same,
    // so a lane that waits for them fails on the order below instead of hanging.)
    let secondStarted = false;
    const held: (() => void)[] = [];
    const release = (): void => {
      for (const go of held.splice(0)) go();
    };
    let fallback: ReturnType<typeof setTimeout> | undefined;
    const holding = await startFakeOpenAIServer({
      chat: async (chat) => {
        fallback ??= setTimeout(() => {
          secondStarted = true;
          release();
        }, 15_000);
        if (!secondStarted) await new Promise<void>((go) => held.push(go));
        return defaultChatReply(chat);
      },
    });
    try {
      const answerer = { kind: 'llm' as const, baseUrl: holding.url, model: 'fake-chat' };
      const heldFirst = await laneRun(executor, answerer, (event) => {
        if (event.type === 'sample-started' && event.sampleId === 'mini-2') secondStarted = true;
        if (event.type === 'sample-finished' && event.sampleId === 'mini-2') release();
      });
      expect(heldFirst.order).toEqual([
        '+mini-1',
        '+mini-2',
        '-mini-2',
        '-mini-1',
        '+mini-3',
        '-mini-3',
      ]);
      // The same answers as a run whose replies come at once.
      const prompt = await laneRun(executor, answerer);
      expect(heldFirst.answers).toEqual(prompt.answers);
      expect(heldFirst.answers.length).toBeGreaterThan(0);
    } finally {
      clearTimeout(fallback);
      release();
      await holding.close();
    }
  }

  it('on the inline executor', async () => {
    await overlapped(inlineExecutor({ createMemory: async (ctx) => new RecencyMemory(ctx) }));
  });

  it('on worker threads, told by the worker that the memory work is done', async () => {
    await overlapped(workerExecutor({ presetModules: [presetsModule] }));
  });

  it('not when the answers are offline: the next sample starts once the last has finished', async () => {
    const { order } = await laneRun(
      inlineExecutor({ createMemory: async (ctx) => new RecencyMemory(ctx) }),
      undefined,
    );
    expect(order).toEqual(['+mini-1', '-mini-1', '+mini-2', '-mini-2', '+mini-3', '-mini-3']);
  });
});
