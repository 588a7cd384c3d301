import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-file';
import { z } from 'zod';
import { WorkbenchError, zodError } from '../../src-shared/errors';
import { LlmPricesSchema } from '../../src-shared/experiment';
import {
  API_KEY_ENV_PATTERN,
  ModelEndpointInputSchema,
  type KeyStatus,
  type ModelEndpoint,
  type ModelTestResult,
} from '../../src-shared/models';
import { LlmClient } from './answer/llm-client';
import { endpointHint } from './http/endpointHints';
import { TEST_PROMPT } from './pipeline/preflight';
import type { DomainHandlers } from './handlers';
import { ApiKeySource, type KeyLookup } from './keys';

/**
 * Saved model endpoints (`<dataDir>/models.json`) and their API keys.
 *
 * Goals: an endpoint is a name for {baseUrl, model, key variable, prices} that the UI offers as an
 * answerer or judge; `test()` proves it answers. Keys live in exactly two places: the process
 * environment (browser mode: set before `cli serve`), or a KeyStore the desktop shell provides
 * (OS keychain via Electron's safeStorage). Both are read through an ApiKeySource, which honours
 * only key variable names (core/keys.ts); nothing here writes the process environment. Non-goals:
 * keys in this file, in runs or in exports; any method that returns a key.
 */

export const MODELS_FILE = 'models.json';
export const MODELS_FILE_VERSION = 1;

const TEST_TIMEOUT_MS = 15_000;
const TEST_MAX_TOKENS = 16;

/**
 * Where API keys are kept when the environment does not hold them. Implemented by the desktop shell
 * (safeStorage); core/ only sees this interface, so it never imports electron.
 */
export interface KeyStore extends KeyLookup {
  /** The stored key, decrypted; undefined when there is none (or it cannot be decrypted). */
  get(apiKeyEnv: string): string | undefined;
  /** Stores (replaces) the key; it is encrypted at rest by the implementation. */
  set(apiKeyEnv: string, key: string): void;
  /** Removes the stored key; false when there was none. */
  clear(apiKeyEnv: string): boolean;
}

const storedEndpointSchema = z.strictObject({
  id: z.string().min(1),
  name: z.string().min(1),
  baseUrl: z.string().min(1),
  model: z.string().min(1),
  apiKeyEnv: z.string().regex(API_KEY_ENV_PATTERN).optional(),
  prices: LlmPricesSchema.optional(),
  savedAt: z.string(),
});

const envelopeSchema = z.strictObject({
  version: z.literal(MODELS_FILE_VERSION),
  endpoints: z.array(storedEndpointSchema),
});

export interface ModelsServiceOptions {
  /** The desktop app's keychain; absent in browser mode and the CLI. */
  keyStore?: KeyStore | undefined;
  /** Where keys are read (default: the environment and `keyStore`, key-like names only). */
  apiKeys?: ApiKeySource | undefined;
  /**
   * False when the API's caller is not the local user (core/trust.ts isLocalUser): a test call's
   * error then never quotes the endpoint's reply, whose URL the caller chose. Absent: quoted.
   */
  quoteReplies?: boolean | undefined;
  now?: () => Date;
  newId?: () => string;
}

export class ModelsService {
  private endpoints: ModelEndpoint[] | undefined;
  private readonly file: string;
  private readonly keyStore: KeyStore | undefined;
  private readonly apiKeys: ApiKeySource;
  private readonly quoteReplies: boolean;
  private readonly now: () => Date;
  private readonly newId: () => string;

  constructor(dataDir: string, options: ModelsServiceOptions = {}) {
    this.file = join(dataDir, MODELS_FILE);
    this.keyStore = options.keyStore;
    this.apiKeys = options.apiKeys ?? new ApiKeySource({ keychain: options.keyStore });
    this.quoteReplies = options.quoteReplies !== false;
    this.now = options.now ?? (() => new Date());
    this.newId = options.newId ?? (() => `ep-${randomUUID().slice(0, 8)}`);
  }

  list(): ModelEndpoint[] {
    return this.load().map((e) => ({ ...e }));
  }

  get(endpointId: string): ModelEndpoint {
    const endpoint = this.load().find((e) => e.id === endpointId);
    if (!endpoint) {
      throw new WorkbenchError('NOT_FOUND', `models: no endpoint ${endpointId}`, {
        path: ['endpointId'],
      });
    }
    return endpoint;
  }

  /** Adds an endpoint (no id) or replaces the one with its id; names are unique. */
  save(input: unknown): ModelEndpoint {
    const parsed = ModelEndpointInputSchema.safeParse(input);
    if (!parsed.success) throw zodError(parsed.error, 'models: endpoint', ['endpoint']);
    const { id, prices, ...fields } = parsed.data;
    if (fields.apiKeyEnv !== undefined) {
      this.apiKeys.policy.check(fields.apiKeyEnv, 'models', ['endpoint', 'apiKeyEnv']);
    }
    const endpoints = this.load();
    if (id !== undefined && !endpoints.some((e) => e.id === id)) {
      throw new WorkbenchError('NOT_FOUND', `models: no endpoint ${id}`, {
        path: ['endpoint', 'id'],
      });
    }
    if (endpoints.some((e) => e.name === fields.name && e.id !== id)) {
      throw new WorkbenchError(
        'CONFLICT',
        `models: an endpoint named ${JSON.stringify(fields.name)} already exists`,
        { path: ['endpoint', 'name'] },
      );
    }
    const saved: ModelEndpoint = {
      id: id ?? this.newId(),
      ...fields,
      baseUrl: fields.baseUrl.replace(/\/+$/, ''),
      ...(prices ? { prices } : {}),
      savedAt: this.now().toISOString(),
    };
    const next =
      id === undefined ? [...endpoints, saved] : endpoints.map((e) => (e.id === id ? saved : e));
    next.sort((a, b) => a.name.localeCompare(b.name));
    this.write(next);
    return { ...saved };
  }

  delete(endpointId: string): boolean {
    const endpoints = this.load();
    const kept = endpoints.filter((e) => e.id !== endpointId);
    if (kept.length === endpoints.length) return false;
    this.write(kept);
    return true;
  }

  /** Only names the key policy allows are looked up: the status of any other variable is hidden. */
  keyStatus(): KeyStatus[] {
    // An endpoint without a key variable (a local server) has no key to report.
    return this.load().flatMap((e) => {
      if (e.apiKeyEnv === undefined) return [];
      const source = this.apiKeys.sourceOf(e.apiKeyEnv);
      return [{ endpointId: e.id, apiKeyEnv: e.apiKeyEnv, set: source !== null, source }];
    });
  }

  /** Into the keychain only: experiments get keys explicitly, never through process.env. */
  setKey(apiKeyEnv: string, key: string): void {
    const store = this.requireKeyStore(apiKeyEnv);
    this.apiKeys.policy.check(apiKeyEnv, 'models', ['apiKeyEnv']);
    store.set(apiKeyEnv, key);
  }

  clearKey(apiKeyEnv: string): boolean {
    return this.requireKeyStore(apiKeyEnv).clear(apiKeyEnv);
  }

  /** One tiny chat completion, without retries; a failure is reported, never thrown. */
  async test(endpointId: string): Promise<ModelTestResult> {
    const endpoint = this.get(endpointId);
    const started = performance.now();
    try {
      const keys = this.apiKeys.keysFor(endpoint.apiKeyEnv, 'models', ['apiKeyEnv']);
      const client = new LlmClient(
        {
          baseUrl: endpoint.baseUrl,
          model: endpoint.model,
          temperature: 0,
          maxTokens: TEST_MAX_TOKENS,
          apiKeyEnv: endpoint.apiKeyEnv,
          timeoutMs: TEST_TIMEOUT_MS,
          maxRetries: 0,
          concurrency: 1,
          baseDelayMs: 0,
          quoteReplies: this.quoteReplies,
        },
        keys,
      );
      const reply = await client.complete([{ role: 'user', content: TEST_PROMPT }]);
      return {
        ok: true,
        latencyMs: Math.round(reply.latencyMs),
        reply: reply.content.trim().slice(0, 200),
        model: reply.model,
      };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const code = error instanceof WorkbenchError ? error.code : undefined;
      return {
        ok: false,
        latencyMs: Math.round(performance.now() - started),
        error: message,
        hint: endpointHint({ code, message }, endpoint).hint,
      };
    }
  }

  private requireKeyStore(apiKeyEnv: string): KeyStore {
    if (this.keyStore) return this.keyStore;
    throw new WorkbenchError(
      'INVALID_INPUT',
      `In browser mode keys come from the server's environment: set ${apiKeyEnv} before \`cli serve\``,
      { path: ['apiKeyEnv'] },
    );
  }

  private load(): ModelEndpoint[] {
    if (this.endpoints) return this.endpoints;
    if (!existsSync(this.file)) {
      this.endpoints = [];
      return this.endpoints;
    }
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(this.file, 'utf8'));
    } catch (error) {
      // Refuse rather than start empty: the next save would silently replace the file.
      throw new WorkbenchError(
        'INTERNAL',
        `models: cannot read ${this.file} (${(error as Error).message})`,
        { where: this.file, cause: error },
      );
    }
    const parsed = envelopeSchema.safeParse(json);
    if (!parsed.success) throw zodError(parsed.error, `models: ${this.file}`);
    this.endpoints = parsed.data.endpoints.map(({ prices, ...rest }) => ({
      ...rest,
      ...(prices ? { prices } : {}),
    }));
    return this.endpoints;
  }

  private write(endpoints: ModelEndpoint[]): void {
    const content = `${JSON.stringify({ version: MODELS_FILE_VERSION, endpoints }, null, 2)}\n`;
    try {
      writeFileAtomic(this.file, content);
    } catch (error) {
      throw new WorkbenchError(
        'INTERNAL',
        `models: cannot write ${this.file} (${(error as Error).message}); the endpoints are unchanged`,
        { where: this.file, cause: error },
      );
    }
    this.endpoints = endpoints;
  }
}

/** The Models view's handlers: keys are never returned, logged or stored in a file. */
export function modelsHandlers(models: ModelsService): DomainHandlers<'models'> {
  return {
    'models.list': async () => models.list(),
    'models.save': async ({ endpoint }) => models.save(endpoint),
    'models.delete': async ({ endpointId }) => ({ deleted: models.delete(endpointId) }),
    'models.test': ({ endpointId }) => models.test(endpointId),
    'models.keyStatus': async () => models.keyStatus(),
    'models.setKey': async ({ apiKeyEnv, key }) => {
      models.setKey(apiKeyEnv, key);
      return { set: true };
    },
    'models.clearKey': async ({ apiKeyEnv }) => ({ cleared: models.clearKey(apiKeyEnv) }),
  };
}
