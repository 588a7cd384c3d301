import type { ModelEndpoint, ModelEndpointInput } from '@shared/models';
import { API_KEY_ENV_PATTERN } from '@shared/models';

/** Pure helpers of the Models view: the endpoint form's text fields to an API input. */

export interface EndpointForm {
  name: string;
  baseUrl: string;
  model: string;
  apiKeyEnv: string;
  inputPrice: string;
  outputPrice: string;
}

export const EMPTY_FORM: EndpointForm = {
  name: '',
  baseUrl: 'https://api.openai.com/v1',
  model: '',
  apiKeyEnv: 'OPENAI_API_KEY',
  inputPrice: '',
  outputPrice: '',
};

export function formOf(endpoint: ModelEndpoint): EndpointForm {
  return {
    name: endpoint.name,
    baseUrl: endpoint.baseUrl,
    model: endpoint.model,
    apiKeyEnv: endpoint.apiKeyEnv,
    inputPrice: endpoint.prices ? String(endpoint.prices.inputPerMillion) : '',
    outputPrice: endpoint.prices ? String(endpoint.prices.outputPerMillion) : '',
  };
}

function price(text: string): number | null {
  const t = text.trim();
  if (!/^\d+(\.\d+)?$/.test(t)) return null;
  return Number(t);
}

/** The save input, or the problems a person must fix first (one line each, naming the field). */
export function endpointInput(
  form: EndpointForm,
  id: string | undefined,
): { ok: true; input: ModelEndpointInput } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  if (form.name.trim() === '') problems.push('Name must not be empty.');
  if (!/^https?:\/\/\S+$/.test(form.baseUrl.trim()))
    problems.push('Base URL must be an http(s) URL.');
  if (form.model.trim() === '') problems.push('Model must not be empty.');
  if (!API_KEY_ENV_PATTERN.test(form.apiKeyEnv.trim()))
    problems.push('Key variable must be an environment variable name (A-Z, 0-9 and _).');
  const hasPrices = form.inputPrice.trim() !== '' || form.outputPrice.trim() !== '';
  const input = price(form.inputPrice);
  const output = price(form.outputPrice);
  if (hasPrices && (input === null || output === null))
    problems.push('Prices must both be numbers (USD per million tokens), or both empty.');
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    input: {
      ...(id ? { id } : {}),
      name: form.name.trim(),
      baseUrl: form.baseUrl.trim(),
      model: form.model.trim(),
      apiKeyEnv: form.apiKeyEnv.trim(),
      ...(hasPrices && input !== null && output !== null
        ? { prices: { inputPerMillion: input, outputPerMillion: output } }
        : {}),
    },
  };
}

/** "LLM: GPT (gpt-4o-mini)": how an endpoint is offered as an answerer or judge. */
export function endpointLabel(endpoint: Pick<ModelEndpoint, 'name' | 'model'>): string {
  return `LLM: ${endpoint.name} (${endpoint.model})`;
}
