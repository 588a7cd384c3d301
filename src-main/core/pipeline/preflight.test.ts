import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExperimentConfigSchema, type ExperimentConfigInput } from '../../../src-shared/experiment';
import { RecencyMemory } from '../../../tests/fixtures/experiment/test-presets';
import {
  defaultChatReply,
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from '../../../tests/support/fake-openai-server';
import { ApiKeySource } from '../keys';
import { RunStore } from '../runs/store';
import { inlineExecutor } from './executors';
import { endpointsOf, preflight } from './preflight';
import { startRunBypassingLauncher } from '../launch/testSeam';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const root = mkdtempSync(join(tmpdir(), 'workbench-preflight-'));
const KEY_ENV = 'MW_TEST_PREFLIGHT_API_KEY';

let server: FakeOpenAIServer;
let keyed: FakeOpenAIServer;
/** A loopback port nothing listens on (bound, then closed). */
let deadUrl: string;
beforeAll(async () => {
  server = await startFakeOpenAIServer({
    chat: (chat) =>
      chat.model === 'no-such-model'
        ? {
            status: 404,
            json: { error: { message: `The model \`${chat.model}\` does not exist` } },
          }
        : defaultChatReply(chat),
  });
  keyed = await startFakeOpenAIServer({ apiKey: 'sk-right-key-1234' });
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  deadUrl = `http://127.0.0.1:${port}/v1`;
});
afterAll(async () => {
  await server.close();
  await keyed.close();
  rmSync(root, { recursive: true, force: true });
});

const parse = (input: Omit<ExperimentConfigInput, 'datasetPath'>) =>
  ExperimentConfigSchema.parse({ datasetPath: mini, ...input });
const llm = (baseUrl: string, model = 'fake-chat', extra: object = {}) => ({
  kind: 'llm' as const,
  baseUrl,
  model,
  ...extra,
});

describe('preflight', () => {
  it('lists every endpoint a config calls: answerer, judge, memory LLM, embedders', () => {
    const config = parse({
      answerer: llm(server.url),
      judge: { baseUrl: server.url, model: 'fake-judge' },
      memory: {
        preset: 'test-recency',
        llm: { baseUrl: server.url, model: 'fake-memory' },
        config: { embedder: { kind: 'openai', baseUrl: server.url, model: 'fake-embed' } },
      },
    });
    expect(endpointsOf(config).map((e) => `${e.role}:${e.kind}:${e.model}`)).toEqual([
      'answerer:chat:fake-chat',
      'judge:chat:fake-judge',
      'memory LLM:chat:fake-memory',
      'embedder:embeddings:fake-embed',
    ]);
  });

  it('passes when every endpoint answers; a loopback server needs no key', async () => {
    server.requests.length = 0;
    await preflight(
      parse({
        answerer: llm(server.url),
        memory: {
          preset: 'test-recency',
          config: { embedder: { kind: 'openai', baseUrl: server.url, model: 'fake-embed' } },
        },
      }),
      {},
    );
    expect(server.requests.map((r) => r.path).sort()).toEqual([
      '/v1/chat/completions',
      '/v1/embeddings',
    ]);
    expect(server.requests.every((r) => r.headers['authorization'] === undefined)).toBe(true);
  });

  it('names the endpoint, its own error and a hint: refused connection, 401, unknown model, 5xx', async () => {
    const failure = (input: Omit<ExperimentConfigInput, 'datasetPath'>, keys = {}) =>
      preflight(parse(input), keys).then(
        () => null,
        (e: unknown) => (e instanceof Error ? e.message : String(e)),
      );
    expect(await failure({ answerer: llm(deadUrl) })).toMatch(
      /^preflight: the run was not started: answerer fake-chat at http:\/\/127\.0\.0\.1:\d+\/v1: .*ECONNREFUSED.* \(hint: Nothing accepts connections on 127\.0\.0\.1 port \d+: is the server running/,
    );
    expect(
      await failure(
        { answerer: llm(keyed.url, 'fake-chat', { apiKeyEnv: KEY_ENV }) },
        { [KEY_ENV]: 'sk-wrong-key-9876' },
      ),
    ).toMatch(/answerer fake-chat at .*HTTP 401.*\(hint: The server refused the key \(HTTP 401\)/);
    expect(await failure({ answerer: llm(server.url, 'no-such-model') })).toMatch(
      /HTTP 404: The model `no-such-model` does not exist \(hint: The server does not know the model "no-such-model"/,
    );
    server.setFault(
      { kind: 'status', status: 503, body: 'overloaded' },
      { path: '/v1/embeddings' },
    );
    const embedder = await failure({
      answerer: llm(server.url),
      memory: {
        preset: 'test-recency',
        config: { embedder: { kind: 'openai', baseUrl: server.url, model: 'fake-embed' } },
      },
    });
    expect(embedder).toMatch(
      /embedder fake-embed at .*HTTP 503: overloaded \(hint: 127\.0\.0\.1 failed on its side \(HTTP 503\)/,
    );
    expect(embedder).not.toMatch(/answerer/);
  });

  it('refuses to create the run when asked to preflight and an endpoint fails', async () => {
    const store = RunStore.open(join(root, 'runs.db'));
    const executor = inlineExecutor({ createMemory: async (ctx) => new RecencyMemory(ctx) });
    const input = { datasetPath: mini, memory: { preset: 'test-recency' }, answerer: llm(deadUrl) };
    await expect(
      startRunBypassingLauncher(input, {
        store,
        dataDir: join(root, 'data'),
        executor,
        preflight: true,
        apiKeys: new ApiKeySource({ env: {} }),
      }),
    ).rejects.toMatchObject({ code: 'UPSTREAM', message: expect.stringMatching(/^preflight:/) });
    expect(store.listRuns()).toEqual([]);
    store.close();
  });
});
