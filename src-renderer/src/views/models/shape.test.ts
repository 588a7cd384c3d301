import { describe, expect, it } from 'vitest';
import { keylessRemoteWarning } from '@shared/models';
import {
  EMPTY_FORM,
  UNSAVED_EMBEDDER,
  embedderForOption,
  embedderOptionValue,
  embedderOptions,
  endpointInput,
  endpointLabel,
  formOf,
} from './shape';

describe('endpointInput', () => {
  const form = { ...EMPTY_FORM, name: ' Fake ', model: 'tiny', apiKeyEnv: 'FAKE_LLM_KEY' };

  it('trims fields and leaves prices out when both are empty', () => {
    expect(endpointInput(form, undefined)).toEqual({
      ok: true,
      input: {
        name: 'Fake',
        baseUrl: 'https://api.openai.com/v1',
        model: 'tiny',
        apiKeyEnv: 'FAKE_LLM_KEY',
      },
    });
  });

  it('keeps the id of an edited endpoint and parses prices', () => {
    const result = endpointInput({ ...form, inputPrice: '0.15', outputPrice: '0.6' }, 'ep-1');
    expect(result).toMatchObject({
      ok: true,
      input: { id: 'ep-1', prices: { inputPerMillion: 0.15, outputPerMillion: 0.6 } },
    });
  });

  it('names every field that needs fixing', () => {
    const result = endpointInput(
      { ...EMPTY_FORM, baseUrl: 'ftp://x', apiKeyEnv: 'my-key', inputPrice: '1' },
      undefined,
    );
    expect(result).toEqual({
      ok: false,
      problems: [
        'Name must not be empty.',
        'Base URL must be an http(s) URL.',
        'Model must not be empty.',
        'Key variable must be an environment variable name (A-Z, 0-9 and _).',
        'Prices must both be numbers (USD per million tokens), or both empty.',
      ],
    });
  });

  it('accepts a server on another machine without a key variable, and says it sends none', () => {
    const result = endpointInput(
      { ...form, baseUrl: 'https://gateway.internal/v1', apiKeyEnv: ' ' },
      undefined,
    );
    expect(result).toEqual({
      ok: true,
      input: { name: 'Fake', baseUrl: 'https://gateway.internal/v1', model: 'tiny' },
    });
    expect(result.ok && keylessRemoteWarning(result.input)).toMatch(
      /^No key variable: requests go to this server on another machine without an Authorization header/,
    );
    // A local server without a key is the usual case: no warning.
    expect(keylessRemoteWarning({ baseUrl: 'http://127.0.0.1:8000/v1' })).toBeNull();
    expect(
      keylessRemoteWarning({ baseUrl: 'https://x/v1', apiKeyEnv: 'OPENAI_API_KEY' }),
    ).toBeNull();
  });

  it('round-trips a saved endpoint through the form', () => {
    const saved = {
      id: 'ep-1',
      name: 'Fake',
      baseUrl: 'http://127.0.0.1:1/v1',
      model: 'tiny',
      apiKeyEnv: 'K',
      prices: { inputPerMillion: 1, outputPerMillion: 2 },
      savedAt: '',
    };
    expect(endpointInput(formOf(saved), saved.id)).toEqual({
      ok: true,
      input: {
        id: 'ep-1',
        name: 'Fake',
        baseUrl: 'http://127.0.0.1:1/v1',
        model: 'tiny',
        apiKeyEnv: 'K',
        prices: { inputPerMillion: 1, outputPerMillion: 2 },
      },
    });
    expect(endpointLabel(saved)).toBe('LLM: Fake (tiny)');
  });
});

describe('embedder choice', () => {
  const endpoints = [
    {
      id: 'ep-1',
      name: 'Ollama',
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'nomic-embed-text',
      apiKeyEnv: 'OLLAMA_API_KEY',
      savedAt: '2026-11-23T00:00:00.000Z',
    },
  ];
  const saved = {
    kind: 'openai' as const,
    baseUrl: 'http://127.0.0.1:11434/v1/',
    model: 'nomic-embed-text',
  };
  const unsaved = { kind: 'openai' as const, baseUrl: 'http://10.0.0.1:8080/v1', model: 'bge' };

  it('offers wink and every saved endpoint, plus an unsaved endpoint the design already names', () => {
    expect(embedderOptions(endpoints, 'wink-sif-100d')).toEqual([
      { value: 'wink-sif-100d', label: 'wink-sif-100d (offline)' },
      { value: 'ep-1', label: 'Ollama (nomic-embed-text)' },
    ]);
    expect(embedderOptions(endpoints, unsaved).at(-1)).toEqual({
      value: UNSAVED_EMBEDDER,
      label: 'bge at http://10.0.0.1:8080/v1',
    });
  });

  it('shows a choice as its saved endpoint (trailing slash aside), else as unsaved', () => {
    expect(embedderOptionValue(endpoints, 'wink-sif-100d')).toBe('wink-sif-100d');
    expect(embedderOptionValue(endpoints, saved)).toBe('ep-1');
    expect(embedderOptionValue(endpoints, unsaved)).toBe(UNSAVED_EMBEDDER);
  });

  it('copies a chosen endpoint into the config; the unsaved option keeps the current choice', () => {
    expect(embedderForOption(endpoints, 'ep-1')).toEqual({
      kind: 'openai',
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'nomic-embed-text',
      apiKeyEnv: 'OLLAMA_API_KEY',
    });
    expect(embedderForOption(endpoints, 'wink-sif-100d')).toBe('wink-sif-100d');
    expect(embedderForOption(endpoints, UNSAVED_EMBEDDER)).toBeNull();
  });
});
