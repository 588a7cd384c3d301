import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEvent, ApiHandlers } from '../../src-shared/api';
import type { ResponseCacheMode } from '../../src-shared/experiment';
import type { RunManifest } from '../../src-shared/runs';
import { ExperimentConfigSchema } from '../../src-shared/experiment';
import { TEST_PROMPT } from '../../src-main/core/pipeline/preflight';
import { loadPack } from '../../src-main/core/reproduce/packs';
import { runPack, type PackGroup } from '../../src-main/core/reproduce/run';
import { repeatGroup } from '../../src-main/core/sweeps/repeats';
import { ApiKeySource } from '../../src-main/core/keys';
import { EXTRA_PRESETS_ENV } from '../../src-main/core/pipeline/loadPresets';
import { RunStore } from '../../src-main/core/runs/store';
import { createService, type Service } from '../../src-main/core/service';
import { REPO, runCli } from '../support/cli';
import {
  defaultChatReply,
  startFakeOpenAIServer,
  type FakeChatRequest,
  type FakeOpenAIServer,
  type RecordedRequest,
} from '../support/fake-openai-server';
import { runEnded } from '../support/run-events';

/**
 * One launch policy wherever a run starts (core/launch/launch.ts): the same request, started
 * through the real CLI (a child process), through the browser-mode API service, as the one cell of
 * a sweep (`cli sweep run`, a child process) and as the one row of a reproduce pack (its repeat
 * group, run as `cli reproduce` runs it), makes the same preflight calls and uses the response
 * cache the same way, for a normal run, a replay with the endpoint down, and the resume of a
 * paused run (a sweep or a pack resumes by running again). Each surface has its own data folder,
 * so its own runs DB and response cache; the endpoint is one fake server on 127.0.0.1 that logs
 * every request.
 */
const mini = join(REPO, 'tests/fixtures/locomo/mini.json');
const presetsModule = join(REPO, 'tests/fixtures/experiment/test-presets.ts');
const root = mkdtempSync(join(tmpdir(), 'workbench-launch-surfaces-'));

/** While set, every answer request fails (the preflight's still passes): the run pauses. */
let failAnswers = false;
let server: FakeOpenAIServer;
let service: Service;
const events: ApiEvent[] = [];

const isPreflight = (chat: FakeChatRequest): boolean =>
  chat.messages.length === 1 && chat.messages[0]?.content === TEST_PROMPT;

beforeAll(async () => {
  server = await startFakeOpenAIServer({
    chat: (chat) =>
      failAnswers && !isPreflight(chat)
        ? { status: 500, json: { error: { message: 'answers are down' } } }
        : defaultChatReply(chat),
  });
  // The service's workers load the test preset through this variable, as the CLI child does.
  process.env[EXTRA_PRESETS_ENV] = presetsModule;
  service = createService({
    dataDir: join(root, 'api'),
    transport: 'http',
    datasetDirs: [root],
    emit: (event) => events.push(event),
  });
});
afterAll(async () => {
  await service.close();
  await server.close();
  delete process.env[EXTRA_PRESETS_ENV];
  rmSync(root, { recursive: true, force: true });
});

/** The request both surfaces start; `model` keeps each scenario's cache entries apart. */
function request(model: string) {
  return {
    samples: ['mini-1'],
    memory: { preset: 'test-recency', config: {} },
    answerer: { kind: 'llm' as const, baseUrl: server.url, model, maxRetries: 0 },
    // One answer in flight: the breaker trips at the first failed answer, so the paused run has
    // the same tests done on both surfaces and its resume asks the same number of questions
    // (with 32 in flight, how many had failed when it tripped depended on the machine's load).
    concurrency: 1,
    retrieval: { topK: 2 },
    maxConsecutiveFailures: 1,
    maxErrorShare: 1,
  };
}

interface Launched {
  runId: string;
  status: string;
}

const cacheFlags = (mode: ResponseCacheMode | undefined): string[] =>
  mode === undefined ? [] : { on: [], off: ['--no-cache'], only: ['--cache-only'] }[mode];

/** A surface as its user drives it: start (with a cache mode), resume, and read a manifest. */
interface Surface {
  start(model: string, responseCache?: ResponseCacheMode): Promise<Launched>;
  resume(runId: string): Promise<Launched>;
  manifest(runId: string): RunManifest;
}

function manifestIn(file: string, runId: string): RunManifest {
  const store = RunStore.open(file);
  try {
    return store.getRun(runId).manifest;
  } finally {
    store.close();
  }
}

const cliDataDir = join(root, 'cli');
const cli: Surface = {
  async start(model, responseCache = 'on') {
    const config = join(root, `cli-${model}.json`);
    writeFileSync(config, JSON.stringify(request(model)));
    return cliRun(['experiment', '--data', mini, '--config', config, ...cacheFlags(responseCache)]);
  },
  resume: (runId) => cliRun(['resume', runId]),
  manifest: (runId) => manifestIn(join(cliDataDir, 'runs.db'), runId),
};

async function cliJson(args: string[], dataDir: string): Promise<unknown> {
  const result = await runCli([...args, '--json'], {
    MEMORY_WORKBENCH_DATA: dataDir,
    [EXTRA_PRESETS_ENV]: presetsModule,
  });
  if (result.out.trim() === '') throw new Error(`cli ${args[0]} printed nothing: ${result.err}`);
  return JSON.parse(result.out);
}

async function cliRun(args: string[]): Promise<Launched> {
  const { runId, status } = (await cliJson(args, cliDataDir)) as Launched;
  return { runId, status };
}

/**
 * A sweep of one cell, the request itself; each start is a sweep of its own (named after the
 * model and mode), and a resume runs the run's sweep again, which resumes its unfinished cell.
 */
const sweepDataDir = join(root, 'sweep');
const sweepSpecs = new Map<string, string>();
const sweep: Surface = {
  async start(model, responseCache) {
    const spec = join(root, `sweep-${model}-${responseCache ?? 'default'}.json`);
    const name = `parity-${model}-${responseCache ?? 'default'}`;
    writeFileSync(spec, JSON.stringify({ name, base: { datasetPath: mini, ...request(model) } }));
    const launched = await sweepRun(spec, cacheFlags(responseCache));
    sweepSpecs.set(launched.runId, spec);
    return launched;
  },
  resume: (runId) => sweepRun(sweepSpecs.get(runId) as string, []),
  manifest: (runId) => manifestIn(join(sweepDataDir, 'runs.db'), runId),
};

async function sweepRun(spec: string, flags: string[]): Promise<Launched> {
  const outcome = (await cliJson(['sweep', 'run', spec, ...flags], sweepDataDir)) as {
    cells: Array<{ runId: string; status: string }>;
  };
  expect(outcome.cells).toHaveLength(1);
  const [{ runId, status }] = outcome.cells as [Launched];
  return { runId, status };
}

/**
 * A reproduce pack whose one row is the request, a repeat group of one, run as `cli reproduce`
 * runs a pack (runPack, no process may start, the flags' call choices passed through); a resume
 * runs the row's group again.
 */
const packDataDir = join(root, 'pack');
mkdirSync(packDataDir);
const packGroups = new Map<string, PackGroup>();
const pack: Surface = {
  async start(model, responseCache) {
    const config = ExperimentConfigSchema.parse({ datasetPath: mini, ...request(model) });
    const row = `${model}-${responseCache ?? 'default'}`;
    const group = { row, group: repeatGroup(config, 1, 'reproduce', `parity.${row}`) };
    const launched = await packRun(group, responseCache);
    packGroups.set(launched.runId, group);
    return launched;
  },
  resume: (runId) => packRun(packGroups.get(runId) as PackGroup, undefined),
  manifest: (runId) => manifestIn(join(packDataDir, 'runs.db'), runId),
};

async function packRun(group: PackGroup, responseCache: ResponseCacheMode | undefined) {
  const store = RunStore.open(join(packDataDir, 'runs.db'));
  try {
    await runPack(loadPack('locomo-table2'), [group], {
      store,
      dataDir: packDataDir,
      apiKeys: new ApiKeySource(),
      mayStartProcesses: false,
      ...(responseCache ? { responseCache } : {}),
    });
    const [run] = store.sweepRuns(group.group.sweepId);
    if (!run) throw new Error(`pack row ${group.row}: no run`);
    return { runId: run.runId, status: run.status };
  } finally {
    store.close();
  }
}

let datasetId: string | undefined;
const api: Surface = {
  async start(model, responseCache) {
    datasetId ??= (
      await service.handlers['datasets.upload']({
        name: 'mini.json',
        content: readFileSync(mini, 'utf8'),
      })
    ).datasetId;
    // The API takes the parsed input; the handler validates it as the HTTP route would.
    const input = {
      datasetId,
      ...request(model),
      ...(responseCache ? { responseCache } : {}),
    } as Parameters<ApiHandlers['experiments.start']>[0];
    const { runId } = await service.handlers['experiments.start'](input);
    return apiEnded(runId);
  },
  async resume(runId) {
    // The run's first launch ended with an event too: wait for the one after this resume.
    const before = events.length;
    await service.handlers['experiments.resume']({ runId });
    return apiEnded(runId, before);
  },
  manifest: (runId) => manifestIn(join(root, 'api', 'runs.db'), runId),
};

async function apiEnded(runId: string, from = 0): Promise<Launched> {
  await runEnded(events, runId, from);
  return { runId, status: (await service.handlers['runs.get']({ runId })).info.status };
}

/** What one launch sent to the endpoint: preflight calls, and the run's own requests. */
function callsDuring(requests: readonly RecordedRequest[]) {
  const chats = requests
    .filter((r) => r.path === '/v1/chat/completions')
    .map((r) => r.body as FakeChatRequest);
  const preflight = chats.filter(isPreflight).length;
  return { preflight, answers: chats.length - preflight };
}

async function observe(launch: () => Promise<Launched>, surface: Surface) {
  const from = server.requests.length;
  const run = await launch();
  const calls = callsDuring(server.requests.slice(from));
  return { run, calls, cache: surface.manifest(run.runId).answerCache };
}

async function normalRun(surface: Surface) {
  return observe(() => surface.start('fake-normal'), surface);
}

/** Every request to the endpoint fails meanwhile: a replay must not make one. */
async function replayWithEndpointDown(surface: Surface) {
  server.setFault({ kind: 'status', status: 503, body: 'down' }, { times: Infinity });
  try {
    return await observe(() => surface.start('fake-normal', 'only'), surface);
  } finally {
    server.setFault(null);
  }
}

/** A run paused by failing answers (its preflight passed), then resumed with the endpoint fixed. */
async function pausedThenResumed(surface: Surface) {
  failAnswers = true;
  const paused = await surface.start('fake-resume').finally(() => (failAnswers = false));
  expect(paused.status).toBe('paused');
  return observe(() => surface.resume(paused.runId), surface);
}

/** What a launch did, without the run id (each surface has its own). */
const seen = ({ run, calls, cache }: Awaited<ReturnType<typeof observe>>) => ({
  status: run.status,
  calls,
  cache,
});

/** The CLI's is the reference; each other surface must do exactly what it did. */
const others = { api, sweep, 'reproduce pack': pack };

// The three tests run in order: the replay answers from the cache the normal run filled.
describe('one launch policy from the CLI, the API, a sweep and a reproduce pack', () => {
  it('preflights a run once and caches its answers, the same on every surface', async () => {
    const fromCli = seen(await normalRun(cli));
    expect(fromCli).toMatchObject({
      status: 'completed',
      calls: { preflight: 1 },
      cache: { mode: 'on', misses: fromCli.calls.answers },
    });
    expect(fromCli.calls.answers).toBeGreaterThan(0);
    for (const [name, surface] of Object.entries(others))
      expect(seen(await normalRun(surface)), name).toEqual(fromCli);
  });

  it('replays only from the cache with the endpoint down: no call, not even the preflight', async () => {
    const fromCli = seen(await replayWithEndpointDown(cli));
    expect(fromCli).toEqual({
      status: 'completed',
      calls: { preflight: 0, answers: 0 },
      cache: { mode: 'only', hits: expect.any(Number), misses: 0 },
    });
    for (const [name, surface] of Object.entries(others))
      expect(seen(await replayWithEndpointDown(surface)), name).toEqual(fromCli);
  });

  it('preflights a resume and answers it through the cache, the same on every surface', async () => {
    const fromCli = seen(await pausedThenResumed(cli));
    expect(fromCli).toMatchObject({
      status: 'completed',
      calls: { preflight: 1 },
      cache: { mode: 'on' },
    });
    for (const [name, surface] of Object.entries(others))
      expect(seen(await pausedThenResumed(surface)), name).toEqual(fromCli);
  });
});
