import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../src-shared/errors';
import {
  ERROR_PREDICTION,
  ExperimentConfigSchema,
  JudgeConfigSchema,
  type ExperimentConfigInput,
} from '../../src-shared/experiment';
import { category5Options } from '../../src-main/core/answer/prompts';
import { loadDatasetFile } from '../../src-main/core/dataset/load';
import { inlineExecutor, workerExecutor } from '../../src-main/core/pipeline/executors';
import { ApiKeySource } from '../../src-main/core/keys';
import { judgeRun } from '../../src-main/core/pipeline/judgeRun';
import { startRunBypassingLauncher } from '../../src-main/core/launch/testSeam';
import { exportRun } from '../../src-main/core/runs/export';
import { RunStore } from '../../src-main/core/runs/store';
import { RecencyMemory } from '../fixtures/experiment/test-presets';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../support/fake-openai-server';

/**
 * Experiments with the LLM answerer and judge against the fake OpenAI-compatible server, on the
 * mini fixture: faults become [ERROR] answers and the run completes; every answer carries the
 * Mem0-style metrics and judge verdicts; the manifest carries prompts, models, tokens; the API key
 * never reaches the runs database or an export.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const presetsModule = join(repo, 'tests/fixtures/experiment/test-presets.ts');
const root = mkdtempSync(join(tmpdir(), 'workbench-llm-'));
const KEY_ENV = 'MW_TEST_LLM_EXPERIMENT_API_KEY';
const KEY = 'sk-test-never-stored-5f3a9c1e77';

let server: FakeOpenAIServer;
beforeAll(async () => {
  process.env[KEY_ENV] = KEY;
  server = await startFakeOpenAIServer({ apiKey: KEY });
});
afterAll(async () => {
  delete process.env[KEY_ENV];
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

let counter = 0;
function world(): { store: RunStore; dataDir: string; file: string } {
  const file = join(root, `runs-${++counter}.db`);
  return { store: RunStore.open(file), dataDir: join(root, `w${counter}`), file };
}

/**
 * Each attempt's deadline. The fake server runs on this process's event loop beside the run, so
 * a normal reply waits for the run's own work; at 250 ms a reply on a loaded machine sometimes
 * missed it and counted as one more failed call (21 calls and 5 failures instead of 20 and 4).
 */
const ATTEMPT_TIMEOUT_MS = 1000;

function llmConfig(extra: Partial<ExperimentConfigInput> = {}): ExperimentConfigInput {
  return {
    datasetPath: mini,
    memory: { preset: 'test-recency' },
    answerer: {
      kind: 'llm',
      baseUrl: server.url,
      model: 'fake-chat',
      apiKeyEnv: KEY_ENV,
      timeoutMs: ATTEMPT_TIMEOUT_MS,
      maxRetries: 2,
      baseDelayMs: 1,
      prices: { inputPerMillion: 1, outputPerMillion: 2 },
    },
    ...extra,
  };
}

const recency = inlineExecutor({ createMemory: async (ctx) => new RecencyMemory(ctx) });
const chatRequests = (): typeof server.requests =>
  server.requests.filter((r) => r.path === '/v1/chat/completions');
const judgeCalls = (): number =>
  chatRequests().filter((r) => (r.body as { model?: string }).model === 'fake-judge').length;

/** Starts the LLM config with another answerer key variable; resolves to what it threw. */
function startWithAnswerKey(apiKeyEnv: string, store: RunStore, dataDir: string): Promise<unknown> {
  const config = llmConfig();
  const answerer = { ...(config.answerer as object), kind: 'llm', apiKeyEnv };
  return startRunBypassingLauncher(
    { ...config, answerer: answerer as ExperimentConfigInput['answerer'] },
    { store, dataDir, executor: recency },
  ).catch((e: unknown) => e);
}

describe('LLM experiments against the fake server', () => {
  it('records faults as [ERROR] answers, scores every metric, judges, and keeps the key out', async () => {
    const { store, dataDir, file } = world();
    server.requests.length = 0;
    // The first question: a 429 (honoured), then three hangs past the attempt timeout.
    server.setFault({ kind: 'rateLimit', retryAfter: 0.05 }, { path: '/v1/chat/completions' });
    server.setFault({ kind: 'hang' }, { path: '/v1/chat/completions', times: 3 });
    const config = llmConfig({
      // Category-5 questions of the mini fixture have no evidence: ask them too (at the end).
      includeNoEvidence: true,
      // One question at a time, so the queued faults all land on the first question.
      concurrency: 1,
      judge: {
        baseUrl: server.url,
        model: 'fake-judge',
        apiKeyEnv: KEY_ENV,
        repeats: 2,
        baseDelayMs: 1,
      },
    });
    const handle = await startRunBypassingLauncher(config, { store, dataDir, executor: recency });
    const outcome = await handle.done;
    expect(outcome.status).toBe('completed');

    const all = store.answersByTest(handle.runId);
    const errored = all.filter((a) => a.error !== null);
    expect(errored).toHaveLength(1);
    expect(errored[0]).toMatchObject({
      prediction: ERROR_PREDICTION,
      scores: expect.objectContaining({ officialF1: 0 }),
      usage: null,
    });
    expect(errored[0]?.error).toMatch(
      new RegExp(
        `^answer: TIMEOUT: .*timed out after ${ATTEMPT_TIMEOUT_MS} ms \\(after 3 attempts\\)$`,
      ),
    );
    // An errored answer of categories 1-4 is judged WRONG without a call.
    expect(errored[0]?.judge).toEqual({ mean: 0, std: 0, labels: [0, 0], error: null });

    for (const a of all.filter((x) => x.error === null)) {
      expect(a.usage?.promptTokens).toBeGreaterThan(0);
      if (a.category === 5) {
        expect([a.scores['setF1'], a.scores['bleu1'], a.judge]).toEqual([null, null, null]);
      } else {
        expect(a.scores['setF1']).not.toBeNull();
        expect(a.scores['bleu1']).not.toBeNull();
        expect(a.scores['judge']).toBe(a.judge?.mean);
        expect(a.judge?.labels).toHaveLength(2);
        expect(a.judge?.error).toBeNull();
      }
    }
    // The fake model picks "Not mentioned" in two-option questions: official category 5 scores 1.
    const adversarial = store.finalAnswers(handle.runId).filter((a) => a.category === 5);
    expect(adversarial.length).toBeGreaterThan(0);
    for (const a of adversarial) {
      expect(a.prediction).toBe('Not mentioned in the conversation');
      expect(a.scores['officialF1']).toBe(1);
    }

    const summary = store.summary(handle.runId);
    expect(outcome.summary).toEqual(summary);
    expect(summary.overall.answerable!.judge.n).toBe(summary.overall.answerable!.setF1.n);
    expect(summary.overall.answerable!.judge.repeats).toBe(2);
    expect(summary.overall.all.setF1.n).toBe(summary.overall.answerable!.officialF1.n);
    expect(summary.byCategory[5]?.bleu1?.n).toBe(0);
    for (const point of store.curve(handle.runId)) {
      expect(point.means['setF1']).not.toBeNull();
      expect(point.means).toHaveProperty('judge');
      expect(point.means).toHaveProperty('bleu1');
    }

    const manifest = store.getRun(handle.runId).manifest;
    expect(manifest.answerer).toMatchObject({
      kind: 'llm',
      name: 'llm:fake-chat:workbench-locomo',
      model: 'fake-chat',
      // Pinned: a change to these templates or to their memory order must change it on purpose
      // (it was ec1dd428… before memories were listed in the order they happened).
      prompts: {
        style: 'workbench-locomo',
        sha256: 'f93e6dda1db30c37ae5185408ffe7036d22b00a2b1f4b636270e38a136a8ff32',
      },
    });
    expect(manifest.judge).toMatchObject({
      model: 'fake-judge',
      repeats: 2,
      prompt: { style: 'mem0' },
      responseFormat: 'json_object',
      unparseable: 0,
    });
    expect(manifest.errors.answer).toBe(1);
    // The env var's name is kept (resume needs it); only the key itself must never be stored.
    expect(manifest.config.answerer).toMatchObject({ apiKeyEnv: KEY_ENV, maxTokens: 64 });
    const answered = all.filter((a) => a.usage !== null);
    const promptTokens = answered.reduce((n, a) => n + (a.usage?.promptTokens ?? 0), 0);
    const completionTokens = answered.reduce((n, a) => n + (a.usage?.completionTokens ?? 0), 0);
    // Every request is counted: the 429 and the three hangs too, as failures.
    const answerRequests = chatRequests().filter(
      (r) => (r.body as { model?: string }).model === 'fake-chat',
    ).length;
    expect(answerRequests).toBe(answered.length + 4);
    expect(manifest.usage?.answer).toEqual({
      calls: answerRequests,
      failures: 4,
      promptTokens,
      completionTokens,
      cost: (promptTokens * 1 + completionTokens * 2) / 1e6,
    });
    expect(manifest.usage?.judge?.calls).toBe(judgeCalls());
    expect(judgeCalls()).toBeGreaterThan(0);

    // Two-option order: exactly what the run seed gives each question.
    const { samples } = await loadDatasetFile(mini);
    for (const sample of samples) {
      for (const qa of sample.qa.filter((q) => q.category === 5 && q.adversarialAnswer)) {
        const { a, b } = category5Options(
          42,
          sample.sampleId,
          qa.index,
          qa.adversarialAnswer ?? '',
        );
        const asked = chatRequests().filter((r) =>
          r.rawBody.includes(JSON.stringify(qa.question).slice(1, -1)),
        );
        expect(asked.length).toBeGreaterThan(0);
        for (const r of asked)
          expect(r.rawBody).toContain(`Select the correct answer: (a) ${a} (b) ${b}.`);
      }
    }

    // Re-judging the whole run again is answered from the cache: no new judge calls.
    const before = judgeCalls();
    const again = await judgeRun(store, handle.runId, ExperimentConfigSchema.parse(config).judge!, {
      all: true,
    });
    expect(again.calls).toBe(0);
    expect(again.cacheHits).toBeGreaterThan(0);
    expect(judgeCalls()).toBe(before);

    const exports = [exportRun(store, handle.runId, 'json'), exportRun(store, handle.runId, 'csv')];
    store.close();
    for (const text of exports) expect(text).not.toContain(KEY);
    // Every file of the database (main, WAL, shared memory), byte for byte.
    const files = readdirSync(root).filter((f) => f.startsWith(`runs-${counter}.db`));
    expect(files).toContain(`runs-${counter}.db`);
    for (const f of files) {
      const bytes = readFileSync(join(root, f));
      expect(bytes.includes(Buffer.from(KEY))).toBe(false);
      expect(bytes.includes(Buffer.from('sk-test-never'))).toBe(false);
    }
    expect(file).toContain(root);
  });

  it('judges unreadable replies WRONG under mem0 after retries, and counts them in the manifest', async () => {
    const { store, dataDir } = world();
    const handle = await startRunBypassingLauncher(llmConfig({ samples: ['mini-1'] }), {
      store,
      dataDir,
      executor: recency,
    });
    expect((await handle.done).status).toBe('completed');
    server.requests.length = 0;
    server.setFault(
      {
        kind: 'transform',
        fn: (response) => ({ ...response, json: { choices: [{ message: { content: 'hmm' } }] } }),
      },
      { path: '/v1/chat/completions', times: Infinity },
    );
    try {
      const judge = JudgeConfigSchema.parse({
        baseUrl: server.url,
        model: 'fake-judge',
        apiKeyEnv: KEY_ENV,
        baseDelayMs: 1,
        parseRetries: 1,
      });
      const pass = await judgeRun(store, handle.runId, judge, { keys: { [KEY_ENV]: KEY } });
      expect(pass.errors).toBe(0);
      expect(pass.unparseable).toBe(pass.judged);
      expect(pass.judged).toBeGreaterThan(0);
      // One call and one retry per distinct answer, every one unreadable.
      expect(pass.calls).toBe(judgeCalls());
      expect(judgeCalls() % 2).toBe(0);
      const judged = store.answersByTest(handle.runId).filter((a) => a.judge !== null);
      expect(judged.length).toBe(pass.judged);
      expect(judged.every((a) => a.judge?.error === null && a.judge.mean === 0)).toBe(true);
      expect(store.getRun(handle.runId).manifest.judge).toMatchObject({
        prompt: { style: 'mem0' },
        unparseable: pass.judged,
      });
    } finally {
      server.setFault(null);
      store.close();
    }
  });

  it('runs the LLM answerer inside the experiment worker threads', async () => {
    const { store, dataDir } = world();
    server.requests.length = 0;
    const handle = await startRunBypassingLauncher(llmConfig({ parallel: 2 }), {
      store,
      dataDir,
      executor: workerExecutor({ presetModules: [presetsModule] }),
    });
    const outcome = await handle.done;
    expect(outcome.error).toBeNull();
    expect(outcome.status).toBe('completed');
    const answers = store.finalAnswers(handle.runId);
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.every((a) => a.error === null && a.usage !== null)).toBe(true);
    // Every request carried the key and the run seed.
    for (const r of chatRequests()) {
      expect(r.headers['authorization']).toBe(`Bearer ${KEY}`);
      expect((r.body as { seed?: number }).seed).toBe(42);
    }
    store.close();
  }, 60_000);

  it('hands the workers and the judge their keys explicitly, not through process.env', async () => {
    const { store, dataDir } = world();
    server.requests.length = 0;
    delete process.env[KEY_ENV];
    try {
      const handle = await startRunBypassingLauncher(
        llmConfig({
          samples: ['mini-1'],
          judge: { baseUrl: server.url, model: 'fake-judge', apiKeyEnv: KEY_ENV, baseDelayMs: 1 },
        }),
        {
          store,
          dataDir,
          executor: workerExecutor({ presetModules: [presetsModule] }),
          // As the desktop app's keychain does: the key exists only in the source.
          apiKeys: new ApiKeySource({
            env: {},
            keychain: { get: (n) => (n === KEY_ENV ? KEY : undefined) },
          }),
        },
      );
      const outcome = await handle.done;
      expect(outcome.error).toBeNull();
      expect(store.finalAnswers(handle.runId).every((a) => a.error === null)).toBe(true);
      expect(judgeCalls()).toBeGreaterThan(0);
      expect(chatRequests().map((r) => r.headers['authorization'])).toEqual(
        chatRequests().map(() => `Bearer ${KEY}`),
      );
      expect(process.env[KEY_ENV]).toBeUndefined();
    } finally {
      process.env[KEY_ENV] = KEY;
      store.close();
    }
  }, 60_000);

  it('refuses a key variable that is not meant for keys before anything is sent', async () => {
    const { store, dataDir } = world();
    server.requests.length = 0;
    const error = await startWithAnswerKey('HOME', store, dataDir);
    expect(error).toBeInstanceOf(WorkbenchError);
    expect((error as WorkbenchError).message).toBe(
      'answerer: apiKeyEnv "HOME" is not a key variable; use a name ending in _API_KEY or _API_TOKEN (or HF_TOKEN, HUGGING_FACE_HUB_TOKEN), or pass --allow-key-env HOME',
    );
    expect(server.requests).toEqual([]);
    expect(store.listRuns()).toEqual([]);
    store.close();
  });

  it('gives tiers its memory LLM in the workers: summaries retrieved, a failed call noted, tokens totalled', async () => {
    const { store, dataDir } = world();
    server.requests.length = 0;
    // The first memory call fails for good (no retries): the run goes on and says so.
    server.setFault(
      { kind: 'status', status: 500, body: 'boom' },
      { path: '/v1/chat/completions', times: 1 },
    );
    const handle = await startRunBypassingLauncher(
      {
        datasetPath: mini,
        samples: ['mini-1'],
        memory: {
          preset: 'tiers',
          config: { workingCapacity: 2, summaryBatch: 2, summaryTopK: 1 },
          llm: {
            baseUrl: server.url,
            model: 'fake-memory',
            apiKeyEnv: KEY_ENV,
            maxRetries: 0,
            prices: { inputPerMillion: 1, outputPerMillion: 2 },
          },
        },
      },
      { store, dataDir, executor: workerExecutor() },
    );
    const outcome = await handle.done;
    expect(outcome.error).toBeNull();
    expect(outcome.status).toBe('completed');
    const manifest = store.getRun(handle.runId).manifest;
    expect(manifest.errors.insert).toBe(0);
    const notes = manifest.memory.notes.join('\n');
    expect(notes).toContain('tiers: summaries on (fake-memory)');
    expect(notes).toMatch(/tiers: 1 of \d+ memory LLM calls failed .*first: .*500/);

    // Extractive answerer: every chat request was the memory LLM's, with the key and the seed.
    const calls = chatRequests();
    expect(calls.length).toBeGreaterThan(1);
    for (const r of calls) {
      expect(r.headers['authorization']).toBe(`Bearer ${KEY}`);
      expect(r.body).toMatchObject({ model: 'fake-memory', seed: 42 });
    }
    const memory = manifest.usage?.memory;
    // The failed call was made and paid for: it is counted, as a failure.
    expect(memory?.calls).toBe(calls.length);
    expect(memory?.failures).toBe(1);
    expect(memory?.promptTokens).toBeGreaterThan(0);
    expect(memory?.cost).toBe(
      ((memory?.promptTokens ?? 0) * 1 + (memory?.completionTokens ?? 0) * 2) / 1e6,
    );
    // Later tests retrieve summaries: refs without a dia_id, never counted as evidence.
    const refs = store.answersByTest(handle.runId).flatMap((a) => a.retrieved);
    expect(refs.some((r) => r.diaId === null && r.id.startsWith('summary-'))).toBe(true);
    store.close();
  }, 60_000);

  it('refuses to start when the named API key variable is not set', async () => {
    const { store, dataDir } = world();
    const error = await startWithAnswerKey('MW_TEST_UNSET_API_KEY', store, dataDir);
    expect(error).toBeInstanceOf(WorkbenchError);
    expect((error as WorkbenchError).message).toBe(
      'answerer.apiKeyEnv: environment variable MW_TEST_UNSET_API_KEY is not set (it should hold the API key)',
    );
    expect(store.listRuns()).toEqual([]);
    store.close();
  });

  it('refuses a literal apiKey in the config', () => {
    const config = llmConfig();
    const parsed = ExperimentConfigSchema.safeParse({
      ...config,
      answerer: { ...(config.answerer as object), apiKey: KEY },
    });
    expect(parsed.success).toBe(false);
  });
});
