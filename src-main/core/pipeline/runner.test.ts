import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_ANSWER_CHARS, type ProgressEvent } from '../../../src-shared/experiment';
import type { MemoryServiceContext } from '../memory/types';
import { RecencyMemory, type RecencyConfig } from '../../../tests/fixtures/experiment/test-presets';
import type { Answerer } from '../answer/types';
import { ExtractiveAnswerer } from '../answer/extractive';
import { table2Columns } from '../../../src-shared/compare';
import { overallFraction, reduceProgress, testCounts } from '../../../src-shared/liveProgress';
import { loadDatasetFile } from '../dataset/load';
import { planTests } from '../dataset/testPlan';
import { RunStore } from '../runs/store';
import { inlineExecutor, workerExecutor } from './executors';
import { clearWinkVectorsCache, loadWordVectorImage } from '../embed/winkVectors';
import { parseCache } from '../embed/winkFormat';
import { writeWinkFixture } from '../embed/winkFixture';
import { resumeRunBypassingLauncher, startRunBypassingLauncher } from '../launch/testSeam';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const presetsModule = join(repo, 'tests/fixtures/experiment/test-presets.ts');
const root = mkdtempSync(join(tmpdir(), 'workbench-runner-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;

function world(): { store: RunStore; dataDir: string } {
  const dataDir = join(root, `w${++counter}`);
  return { store: RunStore.open(join(root, `runs-${counter}.db`)), dataDir };
}

/** A run of mini.json with the recency preset, cancelled at the first event `stopAt` accepts. */
async function cancelledRun(
  { store, dataDir }: { store: RunStore; dataDir: string },
  stopAt: (event: ProgressEvent) => boolean,
) {
  const stop = new AbortController();
  return startRunBypassingLauncher(
    { datasetPath: mini, memory: { preset: 'test-recency' } },
    {
      store,
      dataDir,
      executor: recency(),
      signal: stop.signal,
      onProgress: (e) => {
        if (stopAt(e)) stop.abort();
      },
    },
  );
}

const recencyMemory = async (ctx: MemoryServiceContext) => new RecencyMemory(ctx);
const recency = (config: RecencyConfig = {}) =>
  inlineExecutor({ createMemory: async (ctx) => new RecencyMemory(ctx, config) });

const comparable = (store: RunStore, runId: string) =>
  store.finalAnswers(runId).map((a) => ({ ...a, retrieveMs: 0, answerMs: 0 }));

describe('experiment runner (inline executor, real SQLite)', () => {
  it('records exactly the tests of the test plan, each with its covered questions', async () => {
    const { store, dataDir } = world();
    const events: ProgressEvent[] = [];
    const handle = await startRunBypassingLauncher(
      { datasetPath: mini, memory: { preset: 'test-recency' } },
      { store, dataDir, executor: recency(), onProgress: (e) => events.push(e) },
    );
    const outcome = await handle.done;
    expect(outcome.status).toBe('completed');
    const { samples } = await loadDatasetFile(mini);
    for (const sample of samples) {
      // A run asks the questions without usable evidence too, by default.
      const plan = planTests(sample, { includeNoEvidence: true });
      expect(store.committedTests(handle.runId, sample.sampleId)).toEqual(
        plan.tests.map((t) => t.testIndex),
      );
      for (const t of plan.tests) {
        const asked = store.answersByTest(handle.runId, {
          sampleId: sample.sampleId,
          testIndex: t.testIndex,
        });
        expect(asked.map((a) => a.questionIndex).sort()).toEqual([...t.questionIndices].sort());
      }
      expect(store.curve(handle.runId).filter((p) => p.sampleId === sample.sampleId)).toHaveLength(
        plan.tests.length,
      );
    }
    const final = store.finalAnswers(handle.runId);
    // Every question of the file: n is the dataset's question count.
    expect(final).toHaveLength(samples.reduce((n, s) => n + s.qa.length, 0));
    expect(outcome.summary).toEqual(store.summary(handle.runId));
    expect(events[0]?.type).toBe('run-started');
    expect(events.at(-1)?.type).toBe('run-finished');
    expect(events.filter((e) => e.type === 'test-committed')).toHaveLength(5);
    const packets = events.filter((e) => e.type === 'packet');
    expect(packets.at(-1)).toMatchObject({ etaMs: 0 });
    // Collections are deleted unless asked to keep them.
    expect(existsSync(join(dataDir, 'collections', handle.runId))).toBe(false);
    const run = store.getRun(handle.runId);
    expect(run.manifest).toMatchObject({
      runId: handle.runId,
      dataset: { path: mini, format: 'locomo' },
      memory: { preset: 'test-recency', notes: ['test preset: word-overlap over every turn'] },
      answerer: { kind: 'extractive', name: 'extractive-v1' },
      seed: 42,
      errors: { insert: 0, answer: 0 },
    });
    expect(run.manifest.configHash).toMatch(/^[0-9a-f]{64}$/);
    expect(run.manifest.dataset.sha256).toMatch(/^[0-9a-f]{64}$/);
    store.close();
  });

  it('records failed inserts, thrown retrieves and hung answers as errors and finishes the run', async () => {
    const { store, dataDir } = world();
    // The answerer hangs forever on one question: only the timeout gets the run past it.
    const hanging: Answerer = {
      name: 'hangs-on-ten-one',
      answer: (request, signal) =>
        request.question === 'Ten one?'
          ? new Promise(() => void signal)
          : new ExtractiveAnswerer().answer(request),
    };
    const executor = inlineExecutor({
      createMemory: async (ctx) =>
        new RecencyMemory(ctx, {
          failInsertPackets: ctx.sample.sampleId === 'mini-1' ? [1] : [],
          hangInsertPackets: ctx.sample.sampleId === 'mini-2' ? [0] : [],
          failRetrieveQuestions: ['Where did Ann move?'],
        }),
      answerer: hanging,
    });
    const handle = await startRunBypassingLauncher(
      {
        datasetPath: mini,
        memory: { preset: 'test-recency' },
        timeouts: { insertMs: 50, answerMs: 50 },
      },
      { store, dataDir, executor },
    );
    const outcome = await handle.done;
    // 2 errored final answers of the mini fixture's few are far above the 10% default.
    expect(outcome.status).toBe('degraded');
    expect(outcome.error).toMatch(
      /^2 of \d+ final answers are errors \([\d.]+%, more than maxErrorShare 10%\)$/,
    );
    const run = store.getRun(handle.runId);
    expect(run.status).toBe('degraded');
    expect(run.error).toBe(outcome.error);
    expect(run.sampleInfo.map((s) => [s.sampleId, s.insertErrors])).toEqual([
      ['mini-1', 1],
      ['mini-2', 1],
    ]);
    expect(run.sampleInfo[0]?.insertErrorMessages).toEqual([
      'packet 1: injected insert failure at packet 1',
    ]);
    expect(run.sampleInfo[1]?.insertErrorMessages[0]).toMatch(
      /^packet 0: TIMEOUT: insert of packet 0 \(D1:1\) timed out after 50 ms$/,
    );
    const all = store.answersByTest(handle.runId);
    const errored = all.filter((a) => a.error !== null);
    expect(errored.every((a) => a.prediction === '[ERROR]' && a.scores['officialF1'] === 0)).toBe(
      true,
    );
    const retrieveErrors = errored.filter((a) => a.question === 'Where did Ann move?');
    const answerErrors = errored.filter((a) => a.question === 'Ten one?');
    expect(retrieveErrors.length).toBeGreaterThan(0);
    expect(retrieveErrors[0]?.error).toBe(
      'retrieve: injected retrieve failure for "Where did Ann move?"',
    );
    expect(answerErrors[0]?.error).toBe(
      'answer: TIMEOUT: answer to question 3 timed out after 50 ms',
    );
    expect(retrieveErrors.length + answerErrors.length).toBe(errored.length);
    expect(run.answerErrors).toBe(errored.length);
    expect(run.insertErrors).toBe(2);
    expect(run.manifest.errors).toEqual({ insert: 2, answer: errored.length });
    expect(outcome.summary.errors).toBe(2);
    store.close();
  });

  it('counts the questions it does not ask over every sample of the run, resumed or not', async () => {
    const { store, dataDir } = world();
    const { samples } = await loadDatasetFile(mini);
    const expected = samples.reduce((n, s) => n + s.qa.length - planTests(s).totalQuestions, 0);
    // mini-1 holds the questions without usable evidence; cancel once it is done.
    expect(expected).toBeGreaterThan(0);
    const stop = new AbortController();
    const handle = await startRunBypassingLauncher(
      // The opt-out: questions without usable evidence are left out.
      { datasetPath: mini, memory: { preset: 'test-recency' }, includeNoEvidence: false },
      {
        store,
        dataDir,
        executor: recency(),
        signal: stop.signal,
        onProgress: (e) => {
          if (e.type === 'sample-finished' && e.sampleId === 'mini-1') stop.abort();
        },
      },
    );
    const first = await handle.done;
    expect(first.status).toBe('cancelled');
    expect(first.notAsked).toBe(expected);
    // The manifest keeps the counts, so reports can say why n is below the file's count.
    expect(store.getRun(handle.runId).manifest.coverage).toEqual({
      datasetQuestions: samples.reduce((n, s) => n + s.qa.length, 0),
      notSelected: 0,
      noEvidenceExcluded: expected,
    });
    expect(store.getRun(handle.runId).sampleInfo.map((s) => s.status)).toEqual([
      'completed',
      'pending',
    ]);
    // The resume replays mini-2 only, and its summary still covers both samples.
    const resumed = await (
      await resumeRunBypassingLauncher(handle.runId, { store, dataDir, executor: recency() })
    ).done;
    expect(resumed.status).toBe('completed');
    expect(resumed.notAsked).toBe(expected);
  });

  it("announces a resume's finished samples, so its progress card starts where the run stopped", async () => {
    const { store, dataDir } = world();
    const handle = await cancelledRun(
      { store, dataDir },
      (e) => e.type === 'sample-finished' && e.sampleId === 'mini-1',
    );
    expect((await handle.done).status).toBe('cancelled');
    const done = store.getRun(handle.runId).sampleInfo.find((s) => s.sampleId === 'mini-1')!;
    expect(done.status).toBe('completed');

    const events: ProgressEvent[] = [];
    const resumed = await resumeRunBypassingLauncher(handle.runId, {
      store,
      dataDir,
      executor: recency(),
      onProgress: (e) => events.push(e),
    });
    expect((await resumed.done).status).toBe('completed');
    // The card as it is right after run-started: mini-1 done, not back to 0%.
    const card = reduceProgress({}, { type: 'event', event: events[0]! })[handle.runId]!;
    expect(card.sampleIds).toEqual(['mini-1', 'mini-2']);
    expect(card.samples['mini-1']).toMatchObject({
      status: 'completed',
      packetsInserted: done.totalPackets,
      testsCommitted: done.plannedTests,
    });
    expect(overallFraction(card)).toBeGreaterThan(0.5);
    expect(testCounts(card).done).toBe(done.plannedTests);
  });

  it('says why an answer failed and who cancelled the run, in the events', async () => {
    const { store, dataDir } = world();
    const events: ProgressEvent[] = [];
    let cancel: (reason: string) => void = () => undefined;
    const handle = await startRunBypassingLauncher(
      { datasetPath: mini, memory: { preset: 'test-recency' } },
      {
        store,
        dataDir,
        executor: recency({ failRetrieveQuestions: ['Where did Ann move?'] }),
        onProgress: (e) => {
          events.push(e);
          if (e.type === 'question-answered' && e.testIndex === 1 && e.done === 2) {
            cancel('cancelled by the user');
          }
        },
      },
    );
    cancel = (reason) => handle.cancel(reason);
    expect((await handle.done).status).toBe('cancelled');
    const failed = events.filter((e) => e.type === 'question-answered' && e.error);
    expect(failed.length).toBeGreaterThan(0);
    for (const e of failed) {
      expect(e.type === 'question-answered' && e.errorMessage).toMatch(/Where did Ann move\?/);
    }
    expect(events.at(-1)).toMatchObject({ type: 'run-cancelled', reason: 'cancelled by the user' });
  });

  it('cancels gracefully: committed tests stay, no half test, the run is marked cancelled', async () => {
    const { store, dataDir } = world();
    const stop = new AbortController();
    const events: ProgressEvent[] = [];
    const handle = await startRunBypassingLauncher(
      { datasetPath: mini, memory: { preset: 'test-recency' } },
      {
        store,
        dataDir,
        executor: recency(),
        signal: stop.signal,
        onProgress: (e) => {
          events.push(e);
          // Cancel in the middle of test 1: its first question is answered, the rest must not be.
          if (e.type === 'question-answered' && e.testIndex === 1 && e.done === 1) stop.abort();
        },
      },
    );
    const outcome = await handle.done;
    expect(outcome.status).toBe('cancelled');
    expect(store.getRun(handle.runId).status).toBe('cancelled');
    expect(store.committedTests(handle.runId, 'mini-1')).toEqual([0]);
    expect(store.answersByTest(handle.runId, { testIndex: 1 })).toEqual([]);
    expect(store.getRun(handle.runId).sampleInfo.map((s) => s.status)).toEqual([
      'cancelled',
      'pending',
    ]);
    expect(events.at(-1)?.type).toBe('run-cancelled');

    // Resume finishes it; the final answers equal an uninterrupted run's.
    const resumed = await resumeRunBypassingLauncher(handle.runId, {
      store,
      dataDir,
      executor: recency(),
    });
    expect((await resumed.done).status).toBe('completed');
    const straight = await startRunBypassingLauncher(
      { datasetPath: mini, memory: { preset: 'test-recency' } },
      { store, dataDir, executor: recency() },
    );
    await straight.done;
    expect(comparable(store, handle.runId)).toEqual(comparable(store, straight.runId));
    expect(store.getRun(handle.runId).resumes).toBe(1);
    await expect(
      resumeRunBypassingLauncher(handle.runId, { store, dataDir, executor: recency() }),
    ).rejects.toThrow('is already completed; nothing to resume');
    store.close();
  });

  it('records an answer longer than MAX_ANSWER_CHARS as an error; all errors end the run failed', async () => {
    const { store, dataDir } = world();
    const verbose: Answerer = {
      name: 'verbose',
      answer: async () => ({ answer: 'x'.repeat(MAX_ANSWER_CHARS + 1) }),
    };
    const handle = await startRunBypassingLauncher(
      { datasetPath: mini, memory: { preset: 'test-recency' } },
      {
        store,
        dataDir,
        executor: inlineExecutor({ createMemory: recencyMemory, answerer: verbose }),
      },
    );
    const outcome = await handle.done;
    const final = store.finalAnswers(handle.runId);
    expect(final[0]?.error).toBe(
      `answer: LLM_REPLY_TOO_LARGE: verbose: answer to question ${final[0]?.questionIndex} is ${MAX_ANSWER_CHARS + 1} characters, more than the ${MAX_ANSWER_CHARS} a run stores`,
    );
    expect(final.every((a) => a.prediction === '[ERROR]')).toBe(true);
    expect(outcome).toMatchObject({
      status: 'failed',
      tooManyErrors: true,
      error: `every final answer is an error (${final.length} of ${final.length})`,
    });
    expect(store.getRun(handle.runId).status).toBe('failed');
    store.close();
  });

  it('completes a run whose error share is within maxErrorShare, and will not resume a degraded one', async () => {
    const { store, dataDir } = world();
    const failing = (config: { maxErrorShare?: number }) =>
      startRunBypassingLauncher(
        { datasetPath: mini, memory: { preset: 'test-recency' }, ...config },
        {
          store,
          dataDir,
          executor: inlineExecutor({
            createMemory: async (ctx) =>
              new RecencyMemory(ctx, { failRetrieveQuestions: ['Where did Ann move?'] }),
          }),
        },
      );
    const tolerated = await (await failing({ maxErrorShare: 0.5 })).done;
    expect(tolerated).toMatchObject({ status: 'completed', error: null, tooManyErrors: false });
    const degraded = await (await failing({})).done;
    expect(degraded.status).toBe('degraded');
    await expect(
      resumeRunBypassingLauncher(degraded.runId, { store, dataDir, executor: recency() }),
    ).rejects.toThrow(`run ${degraded.runId} is already degraded; nothing to resume`);
    store.close();
  });

  it('keeps the token totals of a run made before the call ledger when it is resumed', async () => {
    const { store, dataDir } = world();
    const handle = await cancelledRun({ store, dataDir }, (e) => e.type === 'test-committed');
    expect((await handle.done).status).toBe('cancelled');
    // What an older build left: totals in the manifest only, no ledger rows.
    store.db.prepare('DELETE FROM llm_calls WHERE run_id = ?').run(handle.runId);
    const old = { calls: 7, promptTokens: 70, completionTokens: 7, cost: null };
    store.updateManifest(handle.runId, (m) => ({
      ...m,
      usage: { answer: old, judge: null, memory: null },
    }));
    const resumed = await resumeRunBypassingLauncher(handle.runId, {
      store,
      dataDir,
      executor: recency(),
    });
    expect((await resumed.done).status).toBe('completed');
    // The extractive answerer called nobody on resume: the old totals stand, not zero.
    expect(store.getRun(handle.runId).manifest.usage?.answer).toEqual({ ...old, failures: 0 });
    store.close();
  });

  it('stores the dataset path absolute when given a relative one', async () => {
    const { store, dataDir } = world();
    const handle = await startRunBypassingLauncher(
      { datasetPath: relative(process.cwd(), mini), memory: { preset: 'test-recency' } },
      { store, dataDir, executor: recency() },
    );
    await handle.done;
    const { manifest } = store.getRun(handle.runId);
    expect(manifest.dataset.path).toBe(mini);
    expect(manifest.config.datasetPath).toBe(mini);
    expect(store.listRuns()[0]?.datasetPath).toBe(mini);
    store.close();
  });

  it('refuses an unknown sample id, naming it', async () => {
    const { store, dataDir } = world();
    await expect(
      startRunBypassingLauncher(
        { datasetPath: mini, samples: ['mini-9'] },
        { store, dataDir, executor: recency() },
      ),
    ).rejects.toThrow('samples[0]: no sample "mini-9" in the dataset (samples: mini-1, mini-2)');
    expect(store.listRuns()).toEqual([]);
    store.close();
  });
});

describe('experiment runner (worker threads)', () => {
  it('runs samples in real workers and commits their tests from the main thread', async () => {
    const { store, dataDir } = world();
    const handle = await startRunBypassingLauncher(
      { datasetPath: mini, memory: { preset: 'test-recency' }, parallel: 2 },
      { store, dataDir, executor: workerExecutor({ presetModules: [presetsModule] }) },
    );
    const outcome = await handle.done;
    expect(outcome.error).toBeNull();
    expect(outcome.status).toBe('completed');
    const { store: inlineStore, dataDir: inlineDir } = world();
    const inline = await startRunBypassingLauncher(
      { datasetPath: mini, memory: { preset: 'test-recency' } },
      { store: inlineStore, dataDir: inlineDir, executor: recency() },
    );
    await inline.done;
    expect(comparable(store, handle.runId)).toEqual(comparable(inlineStore, inline.runId));
    store.close();
    inlineStore.close();
  });

  it("stores each answer's memory tokens, the retrieved texts the extractive answerer read, through a real worker", async () => {
    const { store, dataDir } = world();
    const handle = await startRunBypassingLauncher(
      { datasetPath: mini, memory: { preset: 'test-recency' }, retrieval: { topK: 2 } },
      { store, dataDir, executor: workerExecutor({ presetModules: [presetsModule] }) },
    );
    expect((await handle.done).status).toBe('completed');
    const answers = store.finalAnswers(handle.runId);
    const bought = answers.find((a) => a.question === 'When did Ann buy it?');
    expect(bought?.retrieved.map((r) => r.diaId)).toEqual(['D2:2', 'D10:3']);
    // By hand: "Ann: I bought it in 2022." is Ann : I bought it in 202 2 . (9) and
    // "Ann: Ten three." is Ann : Ten three . (5).
    expect(bought?.memoryTokens).toBe(14);
    expect(answers.every((a) => a.error === null && (a.memoryTokens ?? 0) > 0)).toBe(true);
    expect(table2Columns(null, answers).memoryTokens?.answers).toBe(answers.length);
    store.close();
  });

  it('records the warnings a worker logs (an hnsw index rebuilt) in the manifest', async () => {
    const { store, dataDir } = world();
    const handle = await startRunBypassingLauncher(
      { datasetPath: mini, memory: { preset: 'test-rebuilt-hnsw' }, parallel: 2 },
      { store, dataDir, executor: workerExecutor({ presetModules: [presetsModule] }) },
    );
    expect((await handle.done).status).toBe('completed');
    const warnings = [...(store.getRun(handle.runId).manifest.warnings ?? [])].sort();
    expect(warnings).toEqual(
      ['mini-1', 'mini-2'].map(
        (id) =>
          `${id}: HybridCollection '${id}': index 'vec': the index file is missing; rebuilt 1 vectors from collection.db`,
      ),
    );
    store.close();
  });

  it("sends reports in batches, every sample's events in the order an inline run makes them", async () => {
    const { store, dataDir } = world();
    const events: ProgressEvent[] = [];
    const executor = workerExecutor({ presetModules: [presetsModule] });
    const handle = await startRunBypassingLauncher(
      { datasetPath: mini, memory: { preset: 'test-recency' }, parallel: 2 },
      { store, dataDir, executor, onProgress: (e) => events.push(e) },
    );
    expect((await handle.done).status).toBe('completed');
    const { store: inlineStore, dataDir: inlineDir } = world();
    const inlineEvents: ProgressEvent[] = [];
    const inline = await startRunBypassingLauncher(
      { datasetPath: mini, memory: { preset: 'test-recency' } },
      {
        store: inlineStore,
        dataDir: inlineDir,
        executor: recency(),
        onProgress: (e) => inlineEvents.push(e),
      },
    );
    await inline.done;
    // Per sample (two samples run at once in workers), without times, estimates and run ids.
    const bySample = (list: ProgressEvent[]) => {
      const out = new Map<string, unknown[]>();
      for (const e of list) {
        if (!('sampleId' in e)) continue;
        const kept = Object.entries(e).filter(
          ([k]) => k !== 'at' && k !== 'runId' && !k.endsWith('Ms'),
        );
        out.set(e.sampleId, [...(out.get(e.sampleId) ?? []), Object.fromEntries(kept)]);
      }
      return out;
    };
    expect(bySample(events)).toEqual(bySample(inlineEvents));
    // Every event a sample makes and every test crossed over, in batches (how many batches is the
    // clock's: see protocol.test.ts).
    const fromSamples = new Set([
      'sample-started',
      'packet',
      'test-started',
      'question-answered',
      'test-committed',
    ]);
    const sampleEvents = events.filter((e) => fromSamples.has(e.type));
    const committed = sampleEvents.filter((e) => e.type === 'test-committed').length;
    expect(committed).toBe(5);
    // Besides the events and tests: each sample's memory-done (a lane may start its next sample).
    const samples = new Set(sampleEvents.map((e) => ('sampleId' in e ? e.sampleId : ''))).size;
    expect(samples).toBe(2);
    expect(executor.traffic.reports).toBe(sampleEvents.length + committed + samples);
    // Besides the batches: one word-vectors ask and one done per sample at most.
    expect(executor.traffic.messages).toBeLessThanOrEqual(executor.traffic.reports + 4);
    store.close();
    inlineStore.close();
  });

  it('gives every worker the word vectors the main thread read, in shared memory, not a copy each', async () => {
    const { store, dataDir } = world();
    const cacheDir = join(root, `vectors-${++counter}`);
    const sourcePath = await writeWinkFixture(join(root, `wink-${counter}`));
    const image = await loadWordVectorImage({ cacheDir, sourcePath });
    const matrix = new Float32Array(image.buffer, parseCache(image).header.matrix.offset, 1);
    // A value the file does not hold: a worker that read the file itself would report the file's.
    matrix[0] = 42;
    const handle = await startRunBypassingLauncher(
      {
        datasetPath: mini,
        memory: { preset: 'test-word-vectors', config: { cacheDir, sourcePath } },
        parallel: 2,
      },
      { store, dataDir, executor: workerExecutor({ presetModules: [presetsModule] }) },
    );
    expect((await handle.done).status).toBe('completed');
    const warnings = [...(store.getRun(handle.runId).manifest.warnings ?? [])].sort();
    expect(warnings).toEqual([
      'mini-1: row 0 starts 42; shared true',
      'mini-2: row 0 starts 42; shared true',
    ]);
    clearWinkVectorsCache();
    store.close();
  });

  it('fails fast on an unknown preset, before creating a run', async () => {
    const { store, dataDir } = world();
    await expect(
      startRunBypassingLauncher(
        { datasetPath: mini, memory: { preset: 'no-such-preset' } },
        { store, dataDir, executor: workerExecutor({ presetModules: [presetsModule] }) },
      ),
    ).rejects.toThrow(/^memory: unknown preset "no-such-preset" \(presets: .*test-recency/);
    expect(store.listRuns()).toEqual([]);
    store.close();
  });
});
