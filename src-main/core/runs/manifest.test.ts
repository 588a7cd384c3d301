import { describe, expect, it } from 'vitest';
import { redactSecrets } from './manifest';

describe('redactSecrets', () => {
  it('redacts secret-looking string fields and keeps key names, token counts and numeric limits', () => {
    const config = {
      answerer: {
        apiKey: 'sk-live-123',
        apiKeyEnv: 'OPENAI_API_KEY',
        maxTokens: 32,
        tokensPerMinute: 30_000,
        headers: { authorization: 'Bearer abc', cookie: 'id=1' },
      },
      endpoints: [{ token: 'abc', requestsPerMinute: 60 }],
    };
    expect(redactSecrets(config)).toEqual({
      answerer: {
        apiKey: '[redacted]',
        apiKeyEnv: 'OPENAI_API_KEY',
        maxTokens: 32,
        tokensPerMinute: 30_000,
        headers: { authorization: '[redacted]', cookie: '[redacted]' },
      },
      endpoints: [{ token: '[redacted]', requestsPerMinute: 60 }],
    });
  });
});
