import type { ChatCallOptions } from './llm-client';

/**
 * What a protocol's reference code puts in its request body besides the model and the messages,
 * and where it does so. A protocol that mirrors a reference declares this once, in its registry
 * entry (protocols.ts, judge-protocols.ts), and the request is built from it: exactly these
 * parameters, and no `seed` (none of the mirrored references sends one). The model is the run's
 * choice, not the reference's.
 */
export interface ReferenceParams {
  readonly temperature: number;
  /** Absent: the reference sends no max_tokens (the endpoint's default length). */
  readonly max_tokens?: number;
  readonly n?: number;
  readonly response_format?: { readonly type: 'json_object' };
}

export interface ReferenceRequest {
  /** `owner/repo@commit:path:line(s)` of the call that sends these parameters. */
  readonly citation: string;
  readonly params: ReferenceParams;
}

/**
 * The client options that send exactly the reference's parameters: its max_tokens or none, its
 * n, its response_format, and no seed. Temperature is the endpoint config's, which a launch
 * refuses when it differs from the reference's (`referenceTemperatureIssue`).
 */
export function referenceCallOptions(
  reference: ReferenceRequest,
): Pick<ChatCallOptions, 'maxTokens' | 'omitMaxTokens' | 'n' | 'responseFormat'> {
  const { max_tokens: maxTokens, n, response_format: responseFormat } = reference.params;
  return {
    ...(maxTokens !== undefined ? { maxTokens } : { omitMaxTokens: true }),
    ...(n !== undefined ? { n } : {}),
    ...(responseFormat !== undefined ? { responseFormat: { type: responseFormat.type } } : {}),
  };
}

/** Why an endpoint's temperature cannot speak for the reference, or null when it can. */
export function referenceTemperatureIssue(
  reference: ReferenceRequest | undefined,
  temperature: number,
  what: string,
): string | null {
  if (reference === undefined || reference.params.temperature === temperature) return null;
  return `${what} mirrors ${reference.citation}, which sends temperature ${reference.params.temperature} (got ${temperature})`;
}
