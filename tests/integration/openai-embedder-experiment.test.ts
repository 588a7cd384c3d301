import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExperimentConfigInput } from '../../src-shared/experiment';
import { EmbeddingCache, dataCacheDir } from '../../src-main/core/embed/cache';
import { workerExecutor } from '../../src-main/core/pipeline/executors';
import { startRunBypassingLauncher } from '../../src-main/core/launch/testSeam';
import { RunStore } from '../../src-main/core/runs/store';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../support/fake-openai-server';

/**
 * The vector preset with an OpenAI-compatible embedder, in real worker threads against the fake
 * server: turns and questions are embedded by the server, the vectors land in the data folder's
 * embedding cache, and a second run of the same samples is served entirely from that cache.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const root = mkdtempSync(join(tmpdir(), 'workbench-embed-run-'));
const KEY_ENV = 'MW_TEST_EMBED_RUN_API_KEY';
const KEY = 'sk-test-embedder-never-stored-81c2';

let server: FakeOpenAIServer;
beforeAll(async () => {
  process.env[KEY_ENV] = KEY;
  server = await startFakeOpenAIServer({ apiKey: KEY, dim: 16 });
});
afterAll(async () => {
  delete process.env[KEY_ENV];
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

const embeddingCalls = (): number =>
  server.requests.filter((r) => r.path === '/v1/embeddings').length;

describe('vector preset with an OpenAI-compatible embedder (worker threads)', () => {
  it('embeds through the server once, then reruns from the persistent cache with 0 calls', async () => {
    const dataDir = join(root, 'data');
    const store = RunStore.open(join(root, 'runs.db'));
    const embedder = {
      kind: 'openai',
      baseUrl: server.url,
      model: 'fake-embed',
      apiKeyEnv: KEY_ENV,
    };
    const config: ExperimentConfigInput = {
      datasetPath: mini,
      memory: { preset: 'vector', config: { embedder } },
      parallel: 2,
    };
    const run = async () => {
      const handle = await startRunBypassingLauncher(config, {
        store,
        dataDir,
        executor: workerExecutor(),
      });
      const outcome = await handle.done;
      expect(outcome.error).toBeNull();
      expect(outcome.status).toBe('completed');
      return store.getRun(handle.runId).manifest;
    };

    const first = await run();
    const firstCalls = embeddingCalls();
    expect(firstCalls).toBeGreaterThan(0);
    expect(server.requests.every((r) => r.headers['authorization'] === `Bearer ${KEY}`)).toBe(true);
    expect(first.embedder).toBe('openai:fake-embed');
    expect(first.embedding).toMatchObject({
      embedders: [{ name: 'openai:fake-embed', model: 'fake-embed', baseUrl: server.url }],
      requests: firstCalls,
      cacheMisses: expect.any(Number),
    });
    expect(first.embedding?.cacheMisses).toBeGreaterThan(0);
    // Every embeddings request is in the run's call ledger, under the embedder's model.
    const embedderCalls = store.callLedger(first.runId).filter((r) => r.role === 'embedder');
    expect(embedderCalls.map((r) => r.model)).toEqual(['fake-embed']);
    expect(embedderCalls[0]).toMatchObject({ calls: firstCalls, failures: 0 });
    expect(JSON.stringify(first)).not.toContain(KEY);
    const answersOf = (runId: string) =>
      store.finalAnswers(runId).map((a) => [a.sampleId, a.questionIndex, a.retrieved]);
    const firstRunId = first.runId;

    const second = await run();
    expect(embeddingCalls()).toBe(firstCalls);
    expect(second.embedding).toMatchObject({ requests: 0, cacheMisses: 0 });
    expect(second.embedding?.cacheHits).toBeGreaterThan(0);
    // Same vectors, same retrieval.
    expect(answersOf(second.runId)).toEqual(answersOf(firstRunId));

    const cache = EmbeddingCache.open(dataCacheDir(dataDir));
    // Every distinct text the first run sent is stored once.
    expect(cache.count({ endpoint: server.url, model: 'fake-embed', dimensions: 0 })).toBe(
      distinctTexts(),
    );
    cache.close();
    store.close();
  });

  it('fails before creating a run when the embedder key variable is not set', async () => {
    const store = RunStore.open(join(root, 'runs-nokey.db'));
    await expect(
      startRunBypassingLauncher(
        {
          datasetPath: mini,
          memory: {
            preset: 'vector',
            config: {
              embedder: {
                kind: 'openai',
                baseUrl: server.url,
                model: 'fake-embed',
                apiKeyEnv: 'MW_TEST_UNSET_EMBED_API_KEY',
              },
            },
          },
        },
        { store, dataDir: join(root, 'nokey'), executor: workerExecutor() },
      ),
    ).rejects.toThrow(
      'memory.config.embedder.apiKeyEnv: environment variable MW_TEST_UNSET_EMBED_API_KEY is not set (it should hold the API key)',
    );
    expect(store.listRuns()).toEqual([]);
    store.close();
  });
});

describe('cli experiment --embedder-*', () => {
  it('runs the hybrid preset with the endpoint the flags name and records it', async () => {
    const dataDir = join(root, 'cli-data');
    const before = embeddingCalls();
    const { code, out, err } = await new Promise<{ code: number | null; out: string; err: string }>(
      (resolve, reject) => {
        // Spawned asynchronously: this process's event loop serves the child's requests.
        const child = spawn(
          process.execPath,
          [
            '--import',
            'tsx',
            join(repo, 'src-main/cli/main.ts'),
            'experiment',
            ...['--data', mini, '--samples', 'mini-1', '--preset', 'hybrid', '--json'],
            ...['--embedder-base-url', server.url, '--embedder-model', 'fake-embed'],
            ...['--embedder-dimensions', '16', '--embedder-api-key-env', KEY_ENV],
            ...['--data-dir', dataDir],
          ],
          { cwd: repo, env: { ...process.env, [KEY_ENV]: KEY } },
        );
        let out = '';
        let err = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, out, err }));
      },
    );
    expect(err).not.toMatch(/error/i);
    expect(code).toBe(0);
    expect(embeddingCalls()).toBeGreaterThan(before);
    expect(server.requests.at(-1)?.body).toMatchObject({ model: 'fake-embed', dimensions: 16 });
    const store = RunStore.open(join(dataDir, 'runs.db'));
    const { runId } = JSON.parse(out) as { runId: string };
    const manifest = store.getRun(runId).manifest;
    expect(manifest.config.memory.config['embedder']).toEqual({
      kind: 'openai',
      baseUrl: server.url,
      model: 'fake-embed',
      dimensions: 16,
      apiKeyEnv: KEY_ENV,
    });
    expect(manifest.embedding?.embedders).toEqual([
      { name: 'openai:fake-embed:16d', model: 'fake-embed', baseUrl: server.url },
    ]);
    store.close();
  });
});

/** Distinct texts the server was asked to embed. */
function distinctTexts(): number {
  const texts = new Set<string>();
  for (const r of server.requests) {
    if (r.path !== '/v1/embeddings') continue;
    for (const t of (r.body as { input: string[] }).input) texts.add(t);
  }
  return texts.size;
}
