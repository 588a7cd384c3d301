import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../support/fake-openai-server';

/**
 * `cli serve` as a browser would reach it: the API names key variables and endpoints, so it must
 * read only key variables (or those declared with --allow-key-env) and send nothing else anywhere.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'workbench-serve-keys-'));
const NOT_A_KEY = 'sk-not-meant-for-any-llm-7c1d';
const DECLARED_KEY = 'sk-declared-at-serve-start-93be';

let fake: FakeOpenAIServer;
let child: ChildProcess;
let base: string;
let token: string;

beforeAll(async () => {
  fake = await startFakeOpenAIServer({ chat: () => 'pong' });
  child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(repo, 'src-main/cli/main.ts'),
      'serve',
      '--port',
      '0',
      '--data-dir',
      join(dir, 'data'),
      '--allow-key-env',
      'MY_LLM',
    ],
    { cwd: repo, env: { ...process.env, SECRET: NOT_A_KEY, MY_LLM: DECLARED_KEY } },
  );
  const url = await new Promise<URL>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /serving at (\S+)/.exec(out);
      if (match) resolve(new URL(match[1] as string));
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
  base = url.origin;
  token = url.searchParams.get('token') ?? '';
});
afterAll(async () => {
  if (child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(
  name: string,
  input: unknown,
): Promise<{ ok: boolean; data?: unknown; error?: { message: string } }> {
  const response = await fetch(`${base}/api/${name}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  return (await response.json()) as { ok: boolean; data?: unknown; error?: { message: string } };
}

describe('serve and API keys', () => {
  it('refuses a variable that is not a key variable and says how to allow it', async () => {
    const saved = await call('models.save', {
      endpoint: { name: 'exfil', baseUrl: fake.url, model: 'm', apiKeyEnv: 'SECRET' },
    });
    expect(saved.ok).toBe(false);
    expect(saved.error?.message).toBe(
      'models: apiKeyEnv "SECRET" is not a key variable; use a name ending in _API_KEY or _API_TOKEN (or HF_TOKEN, HUGGING_FACE_HUB_TOKEN), or start serve with --allow-key-env SECRET',
    );
    const uploaded = await call('datasets.upload', {
      name: 'mini.json',
      content: readFileSync(join(repo, 'tests/fixtures/locomo/mini.json'), 'utf8'),
    });
    const { datasetId } = uploaded.data as { datasetId: string };
    const started = await call('experiments.start', {
      datasetId,
      answerer: { kind: 'llm', baseUrl: fake.url, model: 'm', apiKeyEnv: 'SECRET' },
    });
    expect(started.ok).toBe(false);
    expect(started.error?.message).toBe(
      'answerer: apiKeyEnv "SECRET" is not a key variable; use a name ending in _API_KEY or _API_TOKEN (or HF_TOKEN, HUGGING_FACE_HUB_TOKEN), or start serve with --allow-key-env SECRET',
    );
    expect(fake.requests.some((r) => JSON.stringify(r.headers).includes(NOT_A_KEY))).toBe(false);
  });

  it('uses a variable declared with --allow-key-env', async () => {
    const saved = await call('models.save', {
      endpoint: { name: 'declared', baseUrl: fake.url, model: 'm', apiKeyEnv: 'MY_LLM' },
    });
    expect(saved.ok).toBe(true);
    const { id } = saved.data as { id: string };
    const status = await call('models.keyStatus', {});
    expect(status.data).toEqual([
      { endpointId: id, apiKeyEnv: 'MY_LLM', set: true, source: 'environment' },
    ]);
    const before = fake.requests.length;
    const tested = await call('models.test', { endpointId: id });
    expect(tested).toMatchObject({ ok: true, data: { ok: true, reply: 'pong' } });
    expect(fake.requests.slice(before).map((r) => r.headers['authorization'])).toEqual([
      `Bearer ${DECLARED_KEY}`,
    ]);
  });
});
