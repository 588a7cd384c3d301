import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ExperimentConfigSchema } from '../../../src-shared/experiment';
import type { Sample } from '../../../src-shared/dataset/types';
import { RecencyMemory } from '../../../tests/fixtures/experiment/test-presets';
import type { Packet } from '../../../src-shared/dataset';
import type { AnswerRequest, AnswerResult } from '../answer/types';
import { ExtractiveAnswerer } from '../answer/extractive';
import { loadDatasetFile } from '../dataset/load';
import { packetCount } from '../dataset/packets';
import { planTests } from '../dataset/testPlan';
import { QUESTIONS_PER_BUDGET_SLOT, questionWindowOf, runSample } from './runSample';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const root = mkdtempSync(join(tmpdir(), 'workbench-runsample-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** mini-1's sessions forty times over: a sample long enough that a cancel lands mid-way. */
async function longSample(): Promise<Sample> {
  const { samples } = await loadDatasetFile(mini);
  const base = samples[0] as Sample;
  const sessions = Array.from({ length: 40 }, (_, copy) =>
    base.sessions.map((s) => ({ ...s, index: copy * 100 + s.index })),
  ).flat();
  return { ...base, sessions };
}

describe('runSample', () => {
  it('sees a cancel that arrives as an event-loop task between two packets of an offline sample', async () => {
    const sample = await longSample();
    const total = packetCount(sample);
    const CANCEL_AT = 5;
    const stop = new AbortController();
    let inserted = 0;
    let insertedAtCancel: number | null = null;
    const outcome = await runSample(
      {
        runId: 'r',
        sample,
        // No tests: the insert loop alone, which holds the thread when inserts never wait.
        plan: { ...planTests(sample), tests: [] },
        config: ExperimentConfigSchema.parse({
          datasetPath: mini,
          memory: { preset: 'test-recency' },
        }),
        benchmark: 'locomo',
        skipTests: new Set(),
        collectionDir: join(root, 'c'),
        apiKeys: {},
      },
      {
        emit: (event) => {
          if (event.type !== 'packet') return;
          inserted = event.inserted;
          // The worker's cancel is a message: a task of the event loop, not a microtask.
          if (inserted === CANCEL_AT) {
            setImmediate(() => {
              insertedAtCancel = inserted;
              stop.abort();
            });
          }
        },
        commitTest: () => undefined,
        recordCalls: () => undefined,
      },
      {
        createMemory: async (ctx) => new RecencyMemory(ctx),
        answerer: new ExtractiveAnswerer(),
        signal: stop.signal,
      },
    );
    expect(total).toBeGreaterThan(100);
    expect(outcome.status).toBe('cancelled');
    // Ordering, not time: the cancel ran before the next packet's insert.
    expect(insertedAtCancel).toBe(CANCEL_AT);
    expect(inserted - CANCEL_AT).toBeLessThanOrEqual(1);
  });

  it("inserts the next packets while a test's last answer is in flight, after every question of the test has read the memory", async () => {
    const { samples } = await loadDatasetFile(mini);
    const sample = samples[0] as Sample;
    const plan = planTests(sample);
    expect(plan.tests.length).toBeGreaterThanOrEqual(2);
    const first = plan.tests[0] as (typeof plan.tests)[number];
    const lastOfFirst = first.questionIndices.at(-1) as number;
    // What the memory saw, in order: an insert names its packet, a read is one question's retrieval.
    const seen: string[] = [];
    let nextInsertSeen = (): void => undefined;
    const nextInsert = new Promise<void>((resolve) => (nextInsertSeen = resolve));
    class WatchedMemory extends RecencyMemory {
      override async insert(packet: Packet): Promise<void> {
        seen.push(`insert ${packet.packet_idx}`);
        if (packet.packet_idx > first.packetIdx) nextInsertSeen();
        return super.insert(packet);
      }
      override async retrieve(question: string, topK: number) {
        seen.push('read');
        return super.retrieve(question, topK);
      }
    }
    const extractive = new ExtractiveAnswerer();
    let tailOutlivedInsert: boolean | null = null;
    let answering = 0;
    let mostAnswering = 0;
    const answerer = {
      name: 'held-tail',
      async answer(request: AnswerRequest): Promise<AnswerResult> {
        mostAnswering = Math.max(mostAnswering, ++answering);
        if (tailOutlivedInsert === null && request.questionIndex === lastOfFirst) {
          // Held until the next packet's insert starts; the fallback only stops the barrier of
          // the old loop (which inserts after the answer) from waiting forever.
          const fallback = new Promise<false>((resolve) => setTimeout(() => resolve(false), 5000));
          tailOutlivedInsert = await Promise.race([nextInsert.then(() => true), fallback]);
        }
        // A turn of the event loop: the answers of a test overlap as an endpoint's would.
        await new Promise((resolve) => setImmediate(resolve));
        answering--;
        return extractive.answer(request);
      },
    };
    const committed: { testIndex: number; answers: number }[] = [];
    const outcome = await runSample(
      {
        runId: 'r',
        sample,
        plan,
        config: ExperimentConfigSchema.parse({
          datasetPath: mini,
          memory: { preset: 'test-recency' },
          concurrency: 4,
        }),
        benchmark: 'locomo',
        skipTests: new Set(),
        collectionDir: join(root, 'tail'),
        apiKeys: {},
      },
      {
        emit: () => undefined,
        commitTest: (test) => {
          committed.push({ testIndex: test.testIndex, answers: test.answers.length });
        },
        recordCalls: () => undefined,
      },
      { createMemory: async (ctx) => new WatchedMemory(ctx), answerer },
    );
    expect(outcome.status).toBe('completed');
    expect(tailOutlivedInsert).toBe(true);
    // Answers overlap, within the window (`concurrency`), which counts the last test's tail too.
    expect(mostAnswering).toBeGreaterThan(1);
    expect(mostAnswering).toBeLessThanOrEqual(4);
    // Every test committed, in order, with every answer.
    expect(committed).toEqual(
      plan.tests.map((t) => ({ testIndex: t.testIndex, answers: t.questionIndices.length })),
    );
    // The seeds' order: a test's questions all read the memory right after its packet's insert,
    // before the next insert, so they all see the same memory.
    for (const test of plan.tests) {
      const at = seen.indexOf(`insert ${test.packetIdx}`);
      const reads = seen.slice(at + 1, at + 1 + test.questionIndices.length);
      expect(reads, `test ${test.testIndex}`).toEqual(test.questionIndices.map(() => 'read'));
      const after = seen[at + 1 + test.questionIndices.length];
      if (after !== undefined) expect(after).toBe(`insert ${test.packetIdx + 1}`);
    }
  });
});

describe('the question window', () => {
  const llm = { kind: 'llm' as const, baseUrl: 'http://127.0.0.1:9/v1', model: 'm' };
  const config = (extra: object) => ExperimentConfigSchema.parse({ datasetPath: mini, ...extra });

  it('is wider than the budget for an LLM answerer held to `concurrency` by the run budget', () => {
    expect(questionWindowOf(config({ answerer: llm, concurrency: 8 }), true)).toBe(
      8 * QUESTIONS_PER_BUDGET_SLOT,
    );
    // No run budget: the client's own gate holds the endpoint, and the window is the limit.
    expect(questionWindowOf(config({ answerer: llm, concurrency: 8 }), false)).toBe(8);
  });

  it('keeps `concurrency: 1` one question at a time', () => {
    expect(questionWindowOf(config({ answerer: llm, concurrency: 1 }), true)).toBe(1);
  });

  it('is the configured concurrency when the answers are offline, budget or not', () => {
    expect(questionWindowOf(config({ concurrency: 3 }), true)).toBe(3);
    expect(questionWindowOf(config({}), true)).toBe(1);
  });
});
