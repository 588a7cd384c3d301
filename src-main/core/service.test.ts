import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiMethods, type ApiEvent, type ApiHandlers } from '../../src-shared/api';
import { ExperimentConfigSchema, type ProgressEvent } from '../../src-shared/experiment';
import { EXTRA_PRESETS_ENV } from './pipeline/loadPresets';
import { startFakeOpenAIServer } from '../../tests/support/fake-openai-server';
import { createService, type Service } from './service';
import { planRun } from './pipeline/plan';
import { runEnded } from '../../tests/support/run-events';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const presetsModule = join(repo, 'tests/fixtures/experiment/test-presets.ts');

let root: string;
let service: Service;
let api: ApiHandlers;
const events: ApiEvent[] = [];

beforeAll(() => {
  // The workers load this test-only preset; the env var is how a worker learns of extra presets.
  process.env[EXTRA_PRESETS_ENV] = presetsModule;
  root = mkdtempSync(join(tmpdir(), 'mw-service-'));
  service = createService({
    dataDir: root,
    transport: 'http',
    // Browser mode opens files by path only inside these folders.
    datasetDirs: [root],
    emit: (e) => events.push(e),
  });
  api = service.handlers;
});

afterAll(async () => {
  await service.close();
  delete process.env[EXTRA_PRESETS_ENV];
  rmSync(root, { recursive: true, force: true });
});

function finished(runId: string): Promise<ProgressEvent> {
  return runEnded(events, runId);
}

describe('service: experiments through the API contract', () => {
  it('runs two experiments in workers, streams progress, and compares and exports them', async () => {
    const dataset = await api['datasets.upload']({
      name: 'mini.json',
      content: readFileSync(join(repo, 'tests/fixtures/locomo/mini.json'), 'utf8'),
    });
    const base = {
      datasetId: dataset.datasetId,
      samples: ['mini-1'],
      memory: { preset: 'test-recency', config: {} },
      answerer: { kind: 'extractive' as const },
      retrieval: { topK: 2 },
      seed: 1,
      timeouts: { insertMs: 5000, answerMs: 5000 },
      includeNoEvidence: false,
      maxErrorShare: 0.1,
      parallel: 1,
    };
    const first = await api['experiments.start'](base);
    expect((await finished(first.runId)).type).toBe('run-finished');
    const second = await api['experiments.start']({ ...base, retrieval: { topK: 1 } });
    expect((await finished(second.runId)).type).toBe('run-finished');

    const kinds = new Set(events.flatMap((e) => (e.type === 'progress' ? [e.event.type] : [])));
    for (const kind of ['run-started', 'packet', 'test-committed', 'run-finished'])
      expect(kinds).toContain(kind);

    const detail = await api['runs.get']({ runId: first.runId });
    expect(detail.info.status).toBe('completed');
    expect(detail.summary.questions).toBeGreaterThan(0);
    expect(detail.curve.length).toBeGreaterThan(0);
    expect((await api['runs.list']({})).map((r) => r.id).sort()).toEqual(
      [first.runId, second.runId].sort(),
    );

    const csv = await api['runs.export']({ runId: first.runId, format: 'csv' });
    expect(csv.filename).toBe(`run-${first.runId}.csv`);
    expect(csv.content.split('\r\n')[0]).toContain('questionIndex');

    const { comparison, configDiff, fairness } = await api['runs.compare']({
      runIds: [first.runId, second.runId],
      baselineRunId: first.runId,
      metric: 'officialF1',
      seed: 0,
    });
    expect(comparison.rows.length).toBe(detail.summary.questions);
    expect(configDiff.map((d) => d.path)).toEqual(['retrieval.topK']);
    // top_k 1 against 2: the comparison says it is not on equal terms.
    expect(fairness.map((w) => w.kind)).toEqual(['top-k', 'context', 'context']);
    expect(fairness[0]?.message).toContain('top_k 1 vs 2');
    expect(fairness.map((w) => w.message).join('\n')).toContain(
      'memory tokens (retrieved context)',
    );

    // Rescore through the API: every metric but the judge, written for every answer of every test.
    const rescored = await api['runs.rescore']({ runId: first.runId });
    expect(rescored.metrics).toContain('locomoRecall');
    expect(rescored.skipped.map((k) => k.metric)).toEqual(['judge']);
    expect(rescored.written).toBe(rescored.answers * rescored.metrics.length);
    expect(rescored.summary).toEqual((await api['runs.get']({ runId: first.runId })).summary);
    expect(
      apiMethods['runs.rescore'].input.safeParse({ runId: first.runId, metrics: ['nope'] }).success,
    ).toBe(false);

    expect(await api['runs.delete']({ runId: second.runId })).toEqual({ deleted: true });
    await expect(api['runs.get']({ runId: second.runId })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it("answers a reloaded page with the engine's live state, numbered like the events", async () => {
    const dataset = await api['datasets.upload']({
      name: 'mini.json',
      content: readFileSync(join(repo, 'tests/fixtures/locomo/mini.json'), 'utf8'),
    });
    const { runId } = await api['experiments.start']({
      datasetId: dataset.datasetId,
      samples: ['mini-1'],
      // Slow inserts, so the run is still going when the "reloaded page" asks.
      memory: { preset: 'test-recency', config: { insertDelayMs: 150 } },
      answerer: { kind: 'extractive' },
      retrieval: { topK: 2 },
      seed: 1,
      timeouts: { insertMs: 5000, answerMs: 5000 },
      includeNoEvidence: false,
      maxErrorShare: 0.1,
      parallel: 1,
    });
    const mine = () =>
      events.flatMap((e) => (e.type === 'progress' && e.event.runId === runId ? [e] : []));
    await expect
      .poll(() => mine().some((e) => e.event.type === 'packet'), { timeout: 30_000 })
      .toBe(true);

    const [live] = (await api['experiments.live']({})).filter((r) => r.runId === runId);
    const seen = mine();
    expect(live).toMatchObject({
      status: 'running',
      sampleIds: ['mini-1'],
      // mini-1: 5 packets, 4 planned tests (the totals a mid-run event alone does not carry).
      totalPackets: 5,
      totalTests: 4,
      seq: seen.length,
    });
    expect(live?.samples['mini-1']?.packetsInserted).toBeGreaterThan(0);
    expect(live?.startedAt).toBe(seen[0]?.event.at);
    // Every event carries its number in the run, 1, 2, 3, ...
    expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i + 1));

    expect((await finished(runId)).type).toBe('run-finished');
    // An ended run of this session is still listed, with its final counts and summary.
    const [ended] = (await api['experiments.live']({})).filter((r) => r.runId === runId);
    expect(ended).toMatchObject({ status: 'completed', totalPackets: 5, seq: mine().length });
    expect(ended?.samples['mini-1']?.packetsInserted).toBe(5);
    expect(ended?.summary?.questions).toBeGreaterThan(0);
    // The live card's refetch: the run's detail without its costly curve, intervals and judge
    // panel (a bootstrap per judge; this run has no judge).
    const { curve, intervals, judgePanel, ...rest } = await api['runs.get']({ runId });
    expect(judgePanel).toBeNull();
    expect(curve.length).toBeGreaterThan(0);
    expect(intervals?.all.n).toBeGreaterThan(0);
    expect(await api['runs.summary']({ runId })).toEqual(rest);
  });

  it('refuses an experiment on a dataset that is not open', async () => {
    await expect(
      api['experiments.start']({
        datasetId: 'f'.repeat(64),
        memory: { preset: 'hybrid', config: {} },
        answerer: { kind: 'extractive' },
        retrieval: { topK: 10 },
        seed: 1,
        timeouts: { insertMs: 1000, answerMs: 1000 },
        includeNoEvidence: false,
        maxErrorShare: 0.1,
        parallel: 1,
      }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses a bad preset config with its path before a run row exists', async () => {
    const dataset = await api['datasets.upload']({
      name: 'mini.json',
      content: readFileSync(join(repo, 'tests/fixtures/locomo/mini.json'), 'utf8'),
    });
    const before = (await api['runs.list']({})).length;
    const start = (config: Record<string, unknown>) =>
      api['experiments.start']({
        datasetId: dataset.datasetId,
        memory: { preset: 'hybrid', config },
      } as Parameters<ApiHandlers['experiments.start']>[0]);
    // Wrong type, unknown key, out of range: each named by its path from the experiment config.
    await expect(start({ candidates: 'many' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      path: ['memory', 'config', 'candidates'],
      message:
        'experiment config: memory.config.candidates: Invalid input: expected number, received string',
    });
    await expect(start({ topK: 5 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      path: ['memory', 'config'],
    });
    await expect(start({ b: 2 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      path: ['memory', 'config', 'b'],
    });
    expect(await api['runs.list']({})).toHaveLength(before);
  });

  it('runs the dataset it opened, and refuses one whose file changed on disk since', async () => {
    const file = join(root, 'changing.json');
    const text = readFileSync(join(repo, 'tests/fixtures/locomo/mini.json'), 'utf8');
    writeFileSync(file, text);
    const dataset = await api['datasets.open']({ path: file });
    const before = (await api['runs.list']({})).length;
    writeFileSync(file, `${text}\n`);
    await expect(
      api['experiments.start']({
        datasetId: dataset.datasetId,
        samples: ['mini-1'],
        memory: { preset: 'test-recency', config: {} },
      } as Parameters<ApiHandlers['experiments.start']>[0]),
    ).rejects.toMatchObject({
      code: 'DATASET_INVALID',
      message: expect.stringContaining(`${file}: the file changed on disk since it was opened`),
    });
    expect(await api['runs.list']({})).toHaveLength(before);
  });
});

describe('service: your own memory service', () => {
  const upload = (handlers: ApiHandlers) =>
    handlers['datasets.upload']({
      name: 'mini.json',
      content: readFileSync(join(repo, 'tests/fixtures/locomo/mini.json'), 'utf8'),
    });
  const external = (datasetId: string) => ({
    datasetId,
    samples: ['mini-1'],
    memory: {
      preset: 'external',
      config: {
        command: `/usr/bin/python3 ${repo}examples/memory-service-python/memory_service.py`,
      },
    },
    answerer: { kind: 'extractive' as const },
    retrieval: { topK: 5 },
    seed: 1,
    timeouts: { insertMs: 5000, answerMs: 5000 },
    includeNoEvidence: false,
    parallel: 1,
  });

  it('browser mode refuses a memory command: a page must not start programs', async () => {
    const dataset = await upload(api);
    await expect(api['experiments.start'](external(dataset.datasetId))).rejects.toMatchObject({
      code: 'FORBIDDEN',
      path: ['memory', 'config', 'command'],
    });
  });

  it('the desktop app runs the command its user typed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mw-service-desktop-'));
    const desktop = createService({ dataDir: dir, transport: 'electron' });
    try {
      const dataset = await upload(desktop.handlers);
      const { runId } = await desktop.handlers['experiments.start'](external(dataset.datasetId));
      const detail = await desktop.handlers['runs.get']({ runId });
      expect(detail.info.manifest.memory.service?.hello).toMatchObject({ name: 'bm25-python' });
    } finally {
      await desktop.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('service: estimate and preflight before an LLM run', () => {
  const upload = () =>
    api['datasets.upload']({
      name: 'mini.json',
      content: readFileSync(join(repo, 'tests/fixtures/locomo/mini.json'), 'utf8'),
    });
  const run = (datasetId: string, answerer: Record<string, unknown>) =>
    ({
      datasetId,
      samples: ['mini-1'],
      memory: { preset: 'test-recency', config: {} },
      answerer,
      retrieval: { topK: 2 },
      includeNoEvidence: true,
    }) as Parameters<ApiHandlers['experiments.start']>[0];

  it('estimates the calls, tokens and cost of the run the form would start', async () => {
    const { datasetId } = await upload();
    const before = (await api['runs.list']({})).length;
    const extractive = await api['experiments.estimate'](run(datasetId, { kind: 'extractive' }));
    // The planner's count for mini-1 (what `cli experiment --dry-run` prints for it).
    const { datasetId: _id, ...config } = run(datasetId, { kind: 'extractive' });
    const datasetPath = join(repo, 'tests/fixtures/locomo/mini.json');
    expect(extractive).toEqual(
      await planRun(ExperimentConfigSchema.parse({ ...config, datasetPath })),
    );
    expect(extractive).toMatchObject({ samples: 1, tests: 4, questions: 16, answerCalls: 0 });
    expect(extractive.judgeCalls).toBe(0);

    const llm = { kind: 'llm', baseUrl: 'http://127.0.0.1:9/v1', model: 'm', maxTokens: 10 };
    const unpriced = await api['experiments.estimate'](run(datasetId, llm));
    expect(unpriced).toMatchObject({ answerCalls: 16, completionTokens: 160, cost: null });
    expect(unpriced.promptTokens).toBeGreaterThan(0);
    // $1 per million prompt tokens and $2 per million completion tokens.
    const priced = await api['experiments.estimate'](
      run(datasetId, { ...llm, prices: { inputPerMillion: 1, outputPerMillion: 2 } }),
    );
    expect(priced.cost).toBeCloseTo((unpriced.promptTokens * 1 + 160 * 2) / 1e6, 12);
    // Nothing was started or stored.
    expect(await api['runs.list']({})).toHaveLength(before);
  });

  it('refuses a run whose answerer does not answer, naming it with a hint; keeps the estimate', async () => {
    const { datasetId } = await upload();
    const fake = await startFakeOpenAIServer({});
    const gone = await startFakeOpenAIServer({});
    const goneUrl = gone.url;
    await gone.close();
    try {
      const before = (await api['runs.list']({})).length;
      await expect(
        api['experiments.start'](run(datasetId, { kind: 'llm', baseUrl: goneUrl, model: 'm' })),
      ).rejects.toMatchObject({
        code: 'UPSTREAM',
        message: expect.stringMatching(
          new RegExp(`^preflight: the run was not started: answerer m at ${goneUrl}: .*\\(hint: `),
        ),
      });
      expect(await api['runs.list']({})).toHaveLength(before);

      const answerer = { kind: 'llm', baseUrl: fake.url, model: 'fake-mini' };
      const estimate = await api['experiments.estimate'](run(datasetId, answerer));
      const { runId } = await api['experiments.start'](run(datasetId, answerer));
      // The preflight's one call came before the run's answers.
      expect(fake.requests[0]?.path).toBe('/v1/chat/completions');
      const { info } = await api['runs.get']({ runId });
      expect(info.manifest.estimate).toEqual({
        answerCalls: estimate.answerCalls,
        judgeCalls: estimate.judgeCalls,
        promptTokens: estimate.promptTokens,
        completionTokens: estimate.completionTokens,
        cost: null,
      });
      await finished(runId);
    } finally {
      await fake.close();
    }
  });
  it('answers from the response cache on the UI path as the CLI does, and off asks again', async () => {
    const { datasetId } = await upload();
    const fake = await startFakeOpenAIServer({});
    const chats = (): number =>
      fake.requests.filter((r) => r.path === '/v1/chat/completions').length;
    try {
      const answerer = { kind: 'llm', baseUrl: fake.url, model: 'fake-cache' };
      const first = await api['experiments.start'](run(datasetId, answerer));
      await finished(first.runId);
      const firstManifest = (await api['runs.get']({ runId: first.runId })).info.manifest;
      // The preflight's call, then the answers (a re-ask with the same memories is a hit).
      const misses = firstManifest.answerCache?.misses ?? -1;
      expect(firstManifest.answerCache?.mode).toBe('on');
      expect(chats()).toBe(1 + misses);

      const before = chats();
      const again = await api['experiments.start'](run(datasetId, answerer));
      await finished(again.runId);
      const cached = (await api['runs.get']({ runId: again.runId })).info.manifest;
      // Only the preflight reached the endpoint: every answer came from the cache.
      expect(chats() - before).toBe(1);
      expect(cached.answerCache).toMatchObject({ mode: 'on', misses: 0 });
      expect(cached.answerCache?.hits).toBe(16);

      const beforeOff = chats();
      const off = await api['experiments.start']({
        ...run(datasetId, answerer),
        responseCache: 'off',
      });
      await finished(off.runId);
      expect(chats() - beforeOff).toBe(1 + 16);
      expect(
        (await api['runs.get']({ runId: off.runId })).info.manifest.answerCache,
      ).toBeUndefined();
    } finally {
      await fake.close();
    }
  });

  it("takes the CLI's --no-preflight as preflight: false, on a start and on a resume", async () => {
    const { datasetId } = await upload();
    const gone = await startFakeOpenAIServer({});
    const goneUrl = gone.url;
    await gone.close();
    const down = {
      ...run(datasetId, { kind: 'llm', baseUrl: goneUrl, model: 'm', maxRetries: 0 }),
      // The first failed answer pauses the run, which can then be resumed.
      maxConsecutiveFailures: 1,
    };
    const refused = { code: 'UPSTREAM', message: expect.stringMatching(/^preflight: /) };
    await expect(api['experiments.start'](down)).rejects.toMatchObject(refused);
    // Not preflighted: the run starts, and its answers fail against the endpoint.
    const { runId } = await api['experiments.start']({ ...down, preflight: false });
    const stopped = /^run-(paused|failed)$/;
    expect((await finished(runId)).type).toMatch(stopped);
    await expect(api['experiments.resume']({ runId })).rejects.toMatchObject(refused);
    const from = events.length;
    await api['experiments.resume']({ runId, preflight: false });
    expect((await runEnded(events, runId, from)).type).toMatch(stopped);
    // Neither launch sent a preflight: the ledger has none.
    const { info } = await api['runs.get']({ runId });
    expect(info.manifest.usage?.preflight).toBeUndefined();
  });
});
