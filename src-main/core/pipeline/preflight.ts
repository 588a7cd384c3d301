import { WorkbenchError } from '../../../src-shared/errors';
import type { ExperimentConfig } from '../../../src-shared/experiment';
import { embedderChoicesIn } from '../../../src-shared/embedders';
import type { LlmCallRecord } from '../../../src-shared/runs';
import { LlmClient, type CallMeter } from '../answer/llm-client';
import { OpenAIEmbedder } from '../embed/openai';
import { endpointHint } from '../http/endpointHints';
import type { ApiKeys } from '../keys';

/**
 * Before a run starts, one real call to each endpoint its config names (answerer, judge, memory
 * LLM, embedders), without retries: a wrong URL, key or model refuses the run at once, with the
 * endpoint's own error and a hint, instead of filling it with errored answers. A loopback server
 * with no `apiKeyEnv` is called without a key. Its requests are returned as ledger records (role
 * `preflight`), so the run's ledger counts every request its endpoints received.
 */

export interface PreflightEndpoint {
  role: 'answerer' | 'judge' | 'memory LLM' | 'embedder';
  kind: 'chat' | 'embeddings';
  baseUrl: string;
  model: string;
  apiKeyEnv?: string | undefined;
  /** Embeddings: sent as the run sends it (a model may refuse a size). */
  dimensions?: number | undefined;
}

/** The words a connection test sends: tiny, and any model can answer them. */
export const TEST_PROMPT = 'Reply with the single word: pong';

const PREFLIGHT_TIMEOUT_MS = 15_000;

/** The endpoints a run would call, each (role, URL, model) once. */
export function endpointsOf(config: ExperimentConfig): PreflightEndpoint[] {
  const out: PreflightEndpoint[] = [];
  const chat = (role: PreflightEndpoint['role'], e: Omit<PreflightEndpoint, 'role' | 'kind'>) =>
    out.push({ role, kind: 'chat', baseUrl: e.baseUrl, model: e.model, apiKeyEnv: e.apiKeyEnv });
  if (config.answerer.kind === 'llm') chat('answerer', config.answerer);
  if (config.judge) chat('judge', config.judge);
  if (config.memory.llm) chat('memory LLM', config.memory.llm);
  for (const { choice } of embedderChoicesIn(config.memory.config)) {
    if (typeof choice === 'string') continue;
    out.push({
      role: 'embedder',
      kind: 'embeddings',
      baseUrl: choice.baseUrl,
      model: choice.model,
      apiKeyEnv: choice.apiKeyEnv,
      dimensions: choice.dimensions,
    });
  }
  const seen = new Set<string>();
  return out.filter((e) => {
    const key = `${e.role}\u0000${e.baseUrl}\u0000${e.model}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

async function call(
  endpoint: PreflightEndpoint,
  keys: ApiKeys,
  meter: CallMeter,
  quoteReplies: boolean,
  signal?: AbortSignal,
): Promise<void> {
  const options = signal ? { signal } : {};
  if (endpoint.kind === 'embeddings') {
    const embedder = new OpenAIEmbedder(
      {
        baseUrl: endpoint.baseUrl,
        model: endpoint.model,
        ...(endpoint.apiKeyEnv !== undefined ? { apiKeyEnv: endpoint.apiKeyEnv } : {}),
        ...(endpoint.dimensions !== undefined ? { dimensions: endpoint.dimensions } : {}),
        maxRetries: 0,
        timeoutMs: PREFLIGHT_TIMEOUT_MS,
      },
      keys,
      meter,
      quoteReplies,
    );
    await embedder.embed(['preflight'], options);
    return;
  }
  const client = new LlmClient(
    {
      baseUrl: endpoint.baseUrl,
      model: endpoint.model,
      temperature: 0,
      maxTokens: 16,
      apiKeyEnv: endpoint.apiKeyEnv,
      timeoutMs: PREFLIGHT_TIMEOUT_MS,
      maxRetries: 0,
      concurrency: 1,
      baseDelayMs: 0,
      quoteReplies,
    },
    keys,
    Math.random,
    meter,
  );
  await client.complete([{ role: 'user', content: TEST_PROMPT }], options);
}

/**
 * Calls every endpoint at once; throws one error naming each that failed, with its hint. Resolves
 * to the requests made, one `preflight` ledger record per endpoint that was sent one.
 */
export async function preflight(
  config: ExperimentConfig,
  keys: ApiKeys,
  signal?: AbortSignal,
  /** False for a config from the network (core/trust.ts isLocalUser): replies are not quoted. */
  quoteReplies = true,
): Promise<LlmCallRecord[]> {
  const endpoints = endpointsOf(config);
  const records = endpoints.map((e): LlmCallRecord => ({
    role: 'preflight',
    model: e.model,
    calls: 0,
    failures: 0,
    promptTokens: 0,
    completionTokens: 0,
  }));
  const results = await Promise.allSettled(
    endpoints.map((e, i) => {
      const record = records[i] as LlmCallRecord;
      const meter: CallMeter = (delta) => {
        record.calls += delta.calls;
        record.failures += delta.failures;
        record.promptTokens += delta.promptTokens;
        record.completionTokens += delta.completionTokens;
      };
      return call(e, keys, meter, quoteReplies, signal);
    }),
  );
  const problems: string[] = [];
  results.forEach((result, i) => {
    if (result.status === 'fulfilled') return;
    const endpoint = endpoints[i] as PreflightEndpoint;
    const message = result.reason instanceof Error ? result.reason.message : String(result.reason);
    problems.push(
      `${endpoint.role} ${endpoint.model} at ${endpoint.baseUrl}: ${message} (hint: ${endpointHint({ message }, endpoint).hint})`,
    );
  });
  if (problems.length === 0) return records.filter((r) => r.calls > 0);
  throw new WorkbenchError(
    'UPSTREAM',
    `preflight: the run was not started: ${problems.join(' | ')}`,
    { where: 'preflight' },
  );
}
