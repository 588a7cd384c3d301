import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from '../../tests/support/fake-openai-server';
import { isLoopbackUrl } from '../../src-shared/models';
import { ApiKeySource, KeyEnvPolicy } from './keys';
import { MODELS_FILE, ModelsService, type KeyStore } from './models';
import { TEST_PROMPT } from './pipeline/preflight';

const SECRET = 'sk-test-do-not-leak-1234567890';
const fixedNow = () => new Date('2025-01-02T03:04:05.000Z');

function memoryKeyStore(): KeyStore & { keys: Map<string, string> } {
  const keys = new Map<string, string>();
  return {
    keys,
    get: (name) => keys.get(name),
    set: (name, key) => void keys.set(name, key),
    clear: (name) => keys.delete(name),
  };
}

let dir: string;
let seq = 0;
const service = (keyStore?: KeyStore) =>
  new ModelsService(dir, { now: fixedNow, newId: () => `ep-${++seq}`, keyStore });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mw-models-'));
  seq = 0;
});
afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

/** An endpoints file written by hand (or before key names were checked): `save` is bypassed. */
function writeEndpointByHand(fields: { baseUrl: string; model: string; apiKeyEnv: string }): void {
  const stored = { id: 'ep-1', name: 'x', savedAt: 'now', ...fields };
  writeFileSync(join(dir, MODELS_FILE), JSON.stringify({ version: 1, endpoints: [stored] }));
}

const endpoint = {
  name: 'Local',
  baseUrl: 'http://127.0.0.1:9/v1/',
  model: 'tiny',
  apiKeyEnv: 'MW_TEST_API_KEY',
};

describe('ModelsService storage', () => {
  it('saves, lists, replaces and deletes endpoints in models.json', () => {
    const models = service();
    const saved = models.save({ ...endpoint, prices: { inputPerMillion: 1, outputPerMillion: 2 } });
    // The trailing slash is dropped so `${baseUrl}/chat/completions` has one slash.
    expect(saved).toEqual({
      id: 'ep-1',
      ...endpoint,
      baseUrl: 'http://127.0.0.1:9/v1',
      prices: { inputPerMillion: 1, outputPerMillion: 2 },
      savedAt: '2025-01-02T03:04:05.000Z',
    });
    // A fresh service reads what the first wrote.
    expect(service().list()).toEqual([saved]);

    const renamed = models.save({ ...endpoint, id: 'ep-1', name: 'Renamed', model: 'bigger' });
    expect(renamed.id).toBe('ep-1');
    expect(renamed.prices).toBeUndefined();
    expect(
      service()
        .list()
        .map((e) => [e.name, e.model]),
    ).toEqual([['Renamed', 'bigger']]);

    expect(models.delete('ep-1')).toBe(true);
    expect(models.delete('ep-1')).toBe(false);
    expect(service().list()).toEqual([]);
  });

  it('refuses a duplicate name and an unknown id', () => {
    const models = service();
    models.save(endpoint);
    expect(() => models.save(endpoint)).toThrow('models: an endpoint named "Local" already exists');
    expect(() => models.save({ ...endpoint, id: 'ep-99', name: 'x' })).toThrow(
      'models: no endpoint ep-99',
    );
  });

  it('names the bad field in validation errors', () => {
    const models = service();
    expect(() => models.save({ ...endpoint, baseUrl: 'not a url' })).toThrow(
      'models: endpoint: endpoint.baseUrl: must be an http(s) URL',
    );
    expect(() => models.save({ ...endpoint, apiKeyEnv: 'lower-case' })).toThrow(
      'models: endpoint: endpoint.apiKeyEnv: must be an environment variable name (A-Z, 0-9 and _)',
    );
    expect(() => models.save({ ...endpoint, name: '  ' })).toThrow(
      'models: endpoint: endpoint.name: must not be empty',
    );
    // Strict: a literal key is refused, so it can never reach models.json.
    expect(() => models.save({ ...endpoint, apiKey: SECRET })).toThrow(/endpoint: .*apiKey/);
  });

  it('refuses a file it cannot read instead of starting empty', () => {
    writeFileSync(join(dir, MODELS_FILE), '{ nope');
    expect(() => service().list()).toThrow(/^models: cannot read .*models\.json/);
  });
});

describe('ModelsService keys', () => {
  it('reports a key from the environment without returning it', () => {
    const models = service();
    models.save(endpoint);
    expect(models.keyStatus()).toEqual([
      { endpointId: 'ep-1', apiKeyEnv: 'MW_TEST_API_KEY', set: false, source: null },
    ]);
    vi.stubEnv('MW_TEST_API_KEY', SECRET);
    expect(models.keyStatus()).toEqual([
      { endpointId: 'ep-1', apiKeyEnv: 'MW_TEST_API_KEY', set: true, source: 'environment' },
    ]);
    expect(JSON.stringify(models.keyStatus())).not.toContain(SECRET);
  });

  it('refuses setKey and clearKey without a keystore (browser mode)', () => {
    const models = service();
    const message =
      "In browser mode keys come from the server's environment: set MW_TEST_API_KEY before `cli serve`";
    expect(() => models.setKey('MW_TEST_API_KEY', SECRET)).toThrow(message);
    expect(() => models.clearKey('MW_TEST_API_KEY')).toThrow(message);
    expect(process.env.MW_TEST_API_KEY).toBeUndefined();
  });

  it('stores keys in the keystore only: never in the environment or models.json', () => {
    vi.stubEnv('MW_TEST_API_KEY', undefined);
    const envBefore = { ...process.env };
    const store = memoryKeyStore();
    const models = service(store);
    models.save(endpoint);
    models.setKey('MW_TEST_API_KEY', SECRET);
    expect(process.env).toEqual(envBefore);
    expect(store.keys.get('MW_TEST_API_KEY')).toBe(SECRET);
    expect(models.keyStatus()[0]).toMatchObject({ set: true, source: 'keychain' });
    expect(readFileSync(join(dir, MODELS_FILE), 'utf8')).not.toContain(SECRET);

    expect(models.clearKey('MW_TEST_API_KEY')).toBe(true);
    expect(process.env).toEqual(envBefore);
    expect(models.keyStatus()[0]).toMatchObject({ set: false, source: null });
  });

  it('refuses to store a key under a variable that is not a key variable', () => {
    const store = memoryKeyStore();
    const models = service(store);
    const pathBefore = process.env.PATH;
    for (const name of ['PATH', 'NODE_OPTIONS', 'LD_PRELOAD', 'MEMORY_WORKBENCH_SQLITE_BINDING']) {
      expect(() => models.setKey(name, '/tmp/evil')).toThrow(
        `models: apiKeyEnv "${name}" is not a key variable; use a name ending in _API_KEY or _API_TOKEN (or HF_TOKEN, HUGGING_FACE_HUB_TOKEN), or pass --allow-key-env ${name}`,
      );
    }
    expect(store.keys.size).toBe(0);
    expect(process.env.PATH).toBe(pathBefore);
    expect(process.env.LD_PRELOAD).toBeUndefined();
  });

  it('refuses to save an endpoint whose key variable is not a key variable, saying how to allow it', () => {
    const models = service();
    expect(() => models.save({ ...endpoint, apiKeyEnv: 'HOME' })).toThrow(
      'models: apiKeyEnv "HOME" is not a key variable; use a name ending in _API_KEY or _API_TOKEN (or HF_TOKEN, HUGGING_FACE_HUB_TOKEN), or pass --allow-key-env HOME',
    );
    // Key-like, but another service's credential.
    expect(() => models.save({ ...endpoint, apiKeyEnv: 'GITHUB_TOKEN' })).toThrow(
      'models: apiKeyEnv "GITHUB_TOKEN" is not a key variable; use a name ending in _API_KEY or _API_TOKEN (or HF_TOKEN, HUGGING_FACE_HUB_TOKEN), or pass --allow-key-env GITHUB_TOKEN',
    );
    expect(models.list()).toEqual([]);
    // Declared at startup (serve --allow-key-env): accepted.
    const declared = new ModelsService(dir, {
      apiKeys: new ApiKeySource({ policy: new KeyEnvPolicy({ allow: ['GITHUB_TOKEN'] }) }),
    });
    expect(declared.save({ ...endpoint, apiKeyEnv: 'GITHUB_TOKEN' }).apiKeyEnv).toBe(
      'GITHUB_TOKEN',
    );
  });

  it('does not reveal whether a variable that is not a key variable is set', () => {
    writeEndpointByHand({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKeyEnv: 'HOME' });
    vi.stubEnv('HOME', '/home/someone');
    expect(service().keyStatus()).toEqual([
      { endpointId: 'ep-1', apiKeyEnv: 'HOME', set: false, source: null },
    ]);
  });
});

describe('ModelsService.test', () => {
  let fake: FakeOpenAIServer;
  beforeAll(async () => {
    fake = await startFakeOpenAIServer({ apiKey: SECRET, chat: () => 'pong' });
  });
  afterAll(() => fake.close());

  it('sends one tiny chat completion with the key and reports latency and reply', async () => {
    vi.stubEnv('MW_TEST_API_KEY', SECRET);
    const models = service();
    const { id } = models.save({ ...endpoint, baseUrl: fake.url });
    const before = fake.requests.length;
    const result = await models.test(id);
    expect(result).toMatchObject({ ok: true, reply: 'pong', model: 'tiny' });
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
    const sent = fake.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(sent[0]?.body).toMatchObject({ messages: [{ role: 'user', content: TEST_PROMPT }] });
  });

  it('returns a 500 as a failed result, without retrying and without the key', async () => {
    vi.stubEnv('MW_TEST_API_KEY', SECRET);
    const models = service();
    const { id } = models.save({ ...endpoint, baseUrl: fake.url });
    // The body echoes the key, as some proxies do: the error must scrub it.
    fake.setFault({ kind: 'status', status: 500, body: `upstream broke for ${SECRET}` });
    const before = fake.requests.length;
    const result = await models.test(id);
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/500/);
    expect(result.error).not.toContain(SECRET);
    expect(fake.requests.length - before).toBe(1);
  });

  it('never sends a variable that is not a key variable, even from a hand-written endpoints file', async () => {
    vi.stubEnv('SECRET', SECRET);
    writeEndpointByHand({ baseUrl: fake.url, model: 'tiny', apiKeyEnv: 'SECRET' });
    const before = fake.requests.length;
    const result = await service().test('ep-1');
    expect(result).toMatchObject({
      ok: false,
      error:
        'models: apiKeyEnv "SECRET" is not a key variable; use a name ending in _API_KEY or _API_TOKEN (or HF_TOKEN, HUGGING_FACE_HUB_TOKEN), or pass --allow-key-env SECRET',
    });
    expect(fake.requests.slice(before)).toEqual([]);
  });

  it('sends the keychain key explicitly: the environment is neither read nor written', async () => {
    vi.stubEnv('MW_TEST_API_KEY', 'sk-shell-value-must-not-be-sent');
    const envBefore = { ...process.env };
    const store = memoryKeyStore();
    const models = service(store);
    const { id } = models.save({ ...endpoint, baseUrl: fake.url });
    models.setKey('MW_TEST_API_KEY', SECRET);
    const before = fake.requests.length;
    expect(await models.test(id)).toMatchObject({ ok: true, reply: 'pong' });
    expect(fake.requests.slice(before).map((r) => r.headers.authorization)).toEqual([
      `Bearer ${SECRET}`,
    ]);
    expect(process.env).toEqual(envBefore);
  });

  it('reports an unset key variable as a failed result', async () => {
    vi.stubEnv('MW_TEST_API_KEY', undefined);
    const models = service();
    const { id } = models.save({ ...endpoint, baseUrl: fake.url });
    const result = await models.test(id);
    expect(result).toMatchObject({
      ok: false,
      error: 'LlmClient: environment variable MW_TEST_API_KEY (apiKeyEnv) is not set',
    });
  });
});

describe('ModelsService: a local server without a key, and what to check when a test fails', () => {
  let open: FakeOpenAIServer;
  let keyed: FakeOpenAIServer;
  beforeAll(async () => {
    open = await startFakeOpenAIServer({ chat: () => 'pong' });
    keyed = await startFakeOpenAIServer({ apiKey: SECRET, chat: () => 'pong' });
  });
  afterAll(async () => {
    await open.close();
    await keyed.close();
  });
  const { apiKeyEnv: _unused, ...noKey } = endpoint;

  it('saves a loopback endpoint without a key variable and tests it without sending a key', async () => {
    const models = service();
    const saved = models.save({ ...noKey, baseUrl: open.url });
    expect(saved.apiKeyEnv).toBeUndefined();
    expect(models.keyStatus()).toEqual([]);
    const before = open.requests.length;
    expect(await models.test(saved.id)).toMatchObject({ ok: true, reply: 'pong' });
    expect(open.requests.slice(before).map((r) => r.headers.authorization)).toEqual([undefined]);
  });

  it('saves a key-less endpoint on another machine and calls it without an Authorization header', async () => {
    const models = service();
    const gateway = { ...noKey, name: 'Gateway', baseUrl: 'https://llm.internal.example/v1' };
    expect(models.save(gateway).apiKeyEnv).toBeUndefined();
    // The fake listens on 127.0.0.1; its IPv4-mapped IPv6 form reaches it under a host name
    // that is not loopback, as a vLLM on the LAN would be.
    const remote = open.url.replace('127.0.0.1', '[::ffff:127.0.0.1]');
    expect(isLoopbackUrl(remote)).toBe(false);
    const saved = models.save({ ...noKey, name: 'LAN vLLM', baseUrl: remote });
    const before = open.requests.length;
    expect(await models.test(saved.id)).toMatchObject({ ok: true, reply: 'pong' });
    const sent = open.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.headers.authorization).toBeUndefined();
  });

  it('says the port is refused when nothing listens there', async () => {
    const models = service();
    // A port that was just free: nothing listens on it now.
    const closed = await startFakeOpenAIServer({});
    const url = closed.url;
    await closed.close();
    const { id } = models.save({ ...noKey, baseUrl: url });
    const result = await models.test(id);
    expect(result.ok).toBe(false);
    expect(result.hint).toMatch(/^Nothing accepts connections on 127\.0\.0\.1 port \d+/);
  });

  it('says the key was refused on a 401', async () => {
    vi.stubEnv('MW_TEST_API_KEY', 'sk-wrong-key-value');
    const models = service();
    const { id } = models.save({ ...endpoint, baseUrl: keyed.url });
    const result = await models.test(id);
    expect(result.ok).toBe(false);
    expect(result.hint).toBe(
      'The server refused the key (HTTP 401): check the value of MW_TEST_API_KEY and that it is valid for this server.',
    );
  });

  it('says the model is unknown when the server says so', async () => {
    const models = service();
    const { id } = models.save({ ...noKey, baseUrl: open.url, model: 'no-such-model' });
    open.setFault({
      kind: 'status',
      status: 404,
      body: JSON.stringify({
        error: { message: 'The model `no-such-model` does not exist', code: 'model_not_found' },
      }),
    });
    const result = await models.test(id);
    expect(result.hint).toBe(
      `The server does not know the model "no-such-model": check its name (the server's /models list).`,
    );
  });
});
