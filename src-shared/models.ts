import { z } from 'zod';
import { LlmPricesSchema, type LlmPrices } from './experiment';

/**
 * Saved model endpoints (the Models view): OpenAI-compatible chat endpoints a run's answerer or
 * judge can use. An endpoint names the environment variable its API key is read from; the key
 * itself never enters this contract, the endpoints file, a run or an export.
 */

/** Upper-case shell-style names only: what users type in `export NAME=...`. */
export const API_KEY_ENV_PATTERN = /^[A-Z_][A-Z0-9_]*$/;
export const MAX_ENDPOINT_NAME = 80;
const ENDPOINT_ID = /^ep-[0-9a-z-]{1,64}$/;

export const apiKeyEnvSchema = z
  .string()
  .regex(API_KEY_ENV_PATTERN, 'must be an environment variable name (A-Z, 0-9 and _)');

export const endpointIdSchema = z.string().regex(ENDPOINT_ID, 'must be an endpoint id');

/** Whether a base URL points at this machine (a local server, which usually needs no key). */
export function isLoopbackUrl(baseUrl: string): boolean {
  try {
    const host = new URL(baseUrl).hostname;
    return host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
  } catch {
    return false;
  }
}

/**
 * A key-less endpoint on another machine is allowed (the README's vLLM or gateway), but it is
 * also what a forgotten key variable looks like: the form and the endpoint's card say so.
 */
export function keylessRemoteWarning(endpoint: {
  baseUrl: string;
  apiKeyEnv?: string | undefined;
}): string | null {
  if (endpoint.apiKeyEnv !== undefined || isLoopbackUrl(endpoint.baseUrl)) return null;
  return 'No key variable: requests go to this server on another machine without an Authorization header. Fine for a server that needs no key; if it needs one, name its variable.';
}

/** What the Models form sends: without `id` a new endpoint, with it a replacement. */
export const ModelEndpointInputSchema = z.strictObject({
  id: endpointIdSchema.optional(),
  name: z.string().trim().min(1, 'must not be empty').max(MAX_ENDPOINT_NAME),
  baseUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  model: z.string().trim().min(1, 'must not be empty').max(200),
  /**
   * No key variable: the call goes without an Authorization header, to a local server or to a
   * remote one that needs none (a vLLM on the LAN, an internal gateway); see keylessRemoteWarning.
   */
  apiKeyEnv: apiKeyEnvSchema.optional(),
  prices: LlmPricesSchema.optional(),
});
export type ModelEndpointInput = z.input<typeof ModelEndpointInputSchema>;

export interface ModelEndpoint {
  id: string;
  name: string;
  /** Includes the version segment: `https://api.openai.com/v1`. */
  baseUrl: string;
  model: string;
  /** Absent: no key is sent (a local server). */
  apiKeyEnv?: string;
  prices?: LlmPrices;
  savedAt: string;
}

export interface ModelTestResult {
  ok: boolean;
  /** Wall time of the call (retries are off for a test). */
  latencyMs: number;
  /** The model's reply, trimmed, when ok. */
  reply?: string;
  /** The model the server says answered. */
  model?: string;
  /** Why the call failed (the key, if any, is scrubbed). */
  error?: string;
  /** What to check, when it failed (core/http/endpointHints.ts). */
  hint?: string;
}

export type KeySource = 'environment' | 'keychain';

export interface KeyStatus {
  endpointId: string;
  apiKeyEnv: string;
  set: boolean;
  /** Where the key comes from; null when it is not set. */
  source: KeySource | null;
}

/** The answerer/judge fields an endpoint supplies to an experiment config (no key, ever). */
export function endpointLlmFields(endpoint: ModelEndpoint): {
  baseUrl: string;
  model: string;
  apiKeyEnv?: string;
  prices?: LlmPrices;
} {
  return {
    baseUrl: endpoint.baseUrl,
    model: endpoint.model,
    ...(endpoint.apiKeyEnv !== undefined ? { apiKeyEnv: endpoint.apiKeyEnv } : {}),
    ...(endpoint.prices ? { prices: endpoint.prices } : {}),
  };
}
