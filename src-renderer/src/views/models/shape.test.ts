import { describe, expect, it } from 'vitest';
import { EMPTY_FORM, endpointInput, endpointLabel, formOf } from './shape';

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
