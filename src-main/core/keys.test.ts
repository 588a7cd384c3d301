import { describe, expect, it } from 'vitest';
import { ExperimentConfigSchema } from '../../src-shared/experiment';
import {
  ApiKeySource,
  KeyEnvPolicy,
  assertKeyTransport,
  declaredKeyEnvs,
  designApiKeys,
  experimentApiKeys,
} from './keys';

describe('KeyEnvPolicy', () => {
  const policy = new KeyEnvPolicy();

  it('allows names ending in _API_KEY or _API_TOKEN, and providers’ own bare token names', () => {
    for (const name of [
      'OPENAI_API_KEY',
      'ANTHROPIC_API_KEY',
      'MY_LLM_2_API_KEY',
      'REPLICATE_API_TOKEN',
      'HF_TOKEN',
      'HUGGING_FACE_HUB_TOKEN',
    ]) {
      expect(policy.permits(name), name).toBe(true);
    }
  });

  it('refuses general secrets that merely end in _TOKEN, naming the variable and the rule', () => {
    for (const name of ['VAULT_TOKEN', 'SLACK_BOT_TOKEN', 'DISCORD_TOKEN', 'SESSION_TOKEN']) {
      expect(policy.permits(name), name).toBe(false);
    }
    expect(() => policy.check('VAULT_TOKEN', 'answerer', ['apiKeyEnv'])).toThrow(
      'answerer: apiKeyEnv "VAULT_TOKEN" is not a key variable; use a name ending in _API_KEY or _API_TOKEN (or HF_TOKEN, HUGGING_FACE_HUB_TOKEN), or pass --allow-key-env VAULT_TOKEN',
    );
    // The source never reads such a variable, even when it is set.
    const source = new ApiKeySource({ env: { SLACK_BOT_TOKEN: 'xoxb-secret' } });
    expect(source.sourceOf('SLACK_BOT_TOKEN')).toBeNull();
    expect(() => source.keysFor('SLACK_BOT_TOKEN', 'judge', ['judge', 'apiKeyEnv'])).toThrow(
      /SLACK_BOT_TOKEN" is not a key variable/,
    );
  });

  it('refuses process-control variables, other names and other services’ credentials', () => {
    for (const name of [
      'HOME',
      'PATH',
      'NODE_OPTIONS',
      'LD_PRELOAD',
      'SECRET',
      'API_KEY',
      '_API_KEY',
      'openai_api_key',
      'OPENAI_API_KEYS',
      'MEMORY_WORKBENCH_SQLITE_BINDING',
      // Key-like, but not an LLM's: CI, registries, clouds, this app.
      'GITHUB_TOKEN',
      'GH_TOKEN',
      'NPM_TOKEN',
      'NODE_AUTH_TOKEN',
      'AWS_SESSION_TOKEN',
      'ACTIONS_RUNTIME_TOKEN',
      'CI_JOB_TOKEN',
      'MEMORY_WORKBENCH_TOKEN',
    ]) {
      expect(policy.permits(name), name).toBe(false);
    }
  });

  it('allows any name declared at startup, and says how to declare one', () => {
    const declared = new KeyEnvPolicy({
      allow: ['GITHUB_TOKEN', 'LLM_SECRET'],
      howToAllow: (name) => `start serve with --allow-key-env ${name}`,
    });
    expect(declared.permits('GITHUB_TOKEN')).toBe(true);
    expect(declared.permits('LLM_SECRET')).toBe(true);
    expect(() => declared.check('HOME', 'models', ['apiKeyEnv'])).toThrow(
      'models: apiKeyEnv "HOME" is not a key variable; use a name ending in _API_KEY or _API_TOKEN (or HF_TOKEN, HUGGING_FACE_HUB_TOKEN), or start serve with --allow-key-env HOME',
    );
  });

  it('reads declared names from the desktop app’s variable', () => {
    expect(declaredKeyEnvs(undefined)).toEqual([]);
    expect(declaredKeyEnvs(' LLM_SECRET, OTHER  THIRD ')).toEqual(['LLM_SECRET', 'OTHER', 'THIRD']);
  });
});

describe('ApiKeySource', () => {
  const env = { OPENAI_API_KEY: 'sk-env', HOME: '/home/me', EMPTY_API_KEY: '' };

  it('reads only allowed names, keychain first, and never reveals others', () => {
    const source = new ApiKeySource({
      env,
      keychain: { get: (name) => (name === 'STORED_API_KEY' ? 'sk-stored' : undefined) },
    });
    expect(source.get('OPENAI_API_KEY', 'x', [])).toBe('sk-env');
    expect(source.get('STORED_API_KEY', 'x', [])).toBe('sk-stored');
    expect(source.get('EMPTY_API_KEY', 'x', [])).toBeUndefined();
    expect(source.sourceOf('OPENAI_API_KEY')).toBe('environment');
    expect(source.sourceOf('STORED_API_KEY')).toBe('keychain');
    expect(source.sourceOf('EMPTY_API_KEY')).toBeNull();
    expect(source.sourceOf('HOME')).toBeNull();
    expect(() => source.get('HOME', 'x', ['apiKeyEnv'])).toThrow(/"HOME" is not a key variable/);
    expect(source.keysFor(undefined, 'x', [])).toEqual({});
    expect(source.keysFor('OPENAI_API_KEY', 'x', [])).toEqual({ OPENAI_API_KEY: 'sk-env' });
  });

  it('resolves every key an experiment names, and only those', () => {
    const config = ExperimentConfigSchema.parse({
      datasetPath: 'x.json',
      answerer: {
        kind: 'llm',
        baseUrl: 'https://a.example/v1',
        model: 'm',
        apiKeyEnv: 'OPENAI_API_KEY',
      },
      judge: { baseUrl: 'https://a.example/v1', model: 'j', apiKeyEnv: 'OPENAI_API_KEY' },
    });
    expect(experimentApiKeys(config, new ApiKeySource({ env }))).toEqual({
      OPENAI_API_KEY: 'sk-env',
    });
    const home = ExperimentConfigSchema.parse({
      ...config,
      judge: { ...config.judge, apiKeyEnv: 'HOME' },
    });
    expect(() => experimentApiKeys(home, new ApiKeySource({ env }))).toThrow(
      'judge: apiKeyEnv "HOME" is not a key variable; use a name ending in _API_KEY or _API_TOKEN (or HF_TOKEN, HUGGING_FACE_HUB_TOKEN), or pass --allow-key-env HOME',
    );
  });
});

describe('experimentApiKeys and designApiKeys with OpenAI embedders', () => {
  const env = { EMBED_API_KEY: 'sk-embed', OTHER_API_KEY: 'sk-other' };
  const endpoint = { kind: 'openai', baseUrl: 'https://e.example/v1', model: 'e' };

  it('resolves the key of every embedder a memory config names, under its config path', () => {
    const config = ExperimentConfigSchema.parse({
      datasetPath: 'x.json',
      memory: {
        preset: 'designed',
        config: {
          indexes: [
            { name: 'w', type: 'vector' },
            { name: 'v', type: 'vector', embedder: { ...endpoint, apiKeyEnv: 'EMBED_API_KEY' } },
          ],
        },
      },
    });
    expect(experimentApiKeys(config, new ApiKeySource({ env }))).toEqual({
      EMBED_API_KEY: 'sk-embed',
    });
    const unset = ExperimentConfigSchema.parse({
      datasetPath: 'x.json',
      memory: {
        preset: 'vector',
        config: { embedder: { ...endpoint, apiKeyEnv: 'UNSET_API_KEY' } },
      },
    });
    expect(() => experimentApiKeys(unset, new ApiKeySource({ env }))).toThrow(
      'memory.config.embedder.apiKeyEnv: environment variable UNSET_API_KEY is not set (it should hold the API key)',
    );
    const home = ExperimentConfigSchema.parse({
      datasetPath: 'x.json',
      memory: { preset: 'vector', config: { embedder: { ...endpoint, apiKeyEnv: 'HOME' } } },
    });
    expect(() => experimentApiKeys(home, new ApiKeySource({ env }))).toThrow(
      'memory.config.embedder: apiKeyEnv "HOME" is not a key variable',
    );
  });

  it("resolves a design's embedder keys for the playground, and only those", () => {
    const design = {
      name: 'd',
      indexes: [
        { name: 'v', type: 'vector', embedder: { ...endpoint, apiKeyEnv: 'EMBED_API_KEY' } },
      ],
    };
    expect(designApiKeys(design, new ApiKeySource({ env }))).toEqual({ EMBED_API_KEY: 'sk-embed' });
    expect(designApiKeys({ name: 'd', indexes: [] }, new ApiKeySource({ env }))).toEqual({});
  });
});

describe('assertKeyTransport', () => {
  it('allows https anywhere and plain http to loopback only', () => {
    for (const url of [
      'https://api.openai.com/v1',
      'http://127.0.0.1:11434/v1',
      'http://127.5.6.7/v1',
      'http://localhost:8000/v1',
      'http://[::1]:8000/v1',
    ]) {
      expect(() => assertKeyTransport(url, 'OPENAI_API_KEY', 'LlmClient'), url).not.toThrow();
    }
    for (const url of [
      'http://attacker.example/v1',
      'http://192.168.1.20:8000/v1',
      'http://127.0.0.1.attacker.example/v1',
      'http://localhost.attacker.example/v1',
    ]) {
      expect(() => assertKeyTransport(url, 'OPENAI_API_KEY', 'LlmClient'), url).toThrow(
        /^LlmClient: refusing to send the key in OPENAI_API_KEY over plain http to /,
      );
    }
  });
});
