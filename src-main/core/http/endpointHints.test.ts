import { describe, expect, it } from 'vitest';
import { endpointHint } from './endpointHints';

const target = { baseUrl: 'https://llm.example.org/v1', model: 'm', apiKeyEnv: 'X_API_KEY' };

// The messages as retry.ts words them (networkReason puts undici's cause code first).
describe('endpointHint', () => {
  it.each([
    ['chat -> failed: ENOTFOUND getaddrinfo ENOTFOUND llm.example.org', 'host-unreachable'],
    ['chat -> failed: EAI_AGAIN getaddrinfo EAI_AGAIN llm.example.org', 'host-unreachable'],
    ['chat -> failed: ECONNREFUSED connect ECONNREFUSED 127.0.0.1:9', 'port-refused'],
    ['chat timed out after 15000 ms', 'timeout'],
    ['chat -> HTTP 401: {"error":"bad key"}', 'unauthorized'],
    ['chat -> HTTP 403: forbidden', 'unauthorized'],
    ['chat -> HTTP 404: {"error":{"code":"model_not_found"}}', 'model-unknown'],
    ['chat -> HTTP 400: invalid model ID', 'model-unknown'],
    ['LlmClient: environment variable X_API_KEY (apiKeyEnv) is not set', 'key-missing'],
    ['chat -> HTTP 500: upstream broke', 'server-error'],
    ['chat -> HTTP 429: slow down', 'rate-limited'],
    ['chat -> HTTP 418: teapot', 'other'],
  ])('%s -> %s', (message, problem) => {
    expect(endpointHint({ message }, target).problem).toBe(problem);
  });

  it('names the host and port to check', () => {
    expect(endpointHint({ message: 'ECONNREFUSED' }, target).hint).toBe(
      'Nothing accepts connections on llm.example.org port 443: is the server running, and on that port?',
    );
    expect(endpointHint({ message: 'ENOTFOUND' }, target).hint).toContain('llm.example.org');
  });

  it('a TIMEOUT code is a timeout whatever the words', () => {
    expect(endpointHint({ code: 'TIMEOUT', message: 'slow' }, target).problem).toBe('timeout');
  });
});
