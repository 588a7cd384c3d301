import { WINK_EMBEDDER, type EmbedderChoice } from '@shared/embedders';
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
    apiKeyEnv: endpoint.apiKeyEnv ?? '',
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
  const keyEnv = form.apiKeyEnv.trim();
  // Empty is fine anywhere: a key-less remote server gets a warning (keylessRemoteWarning).
  if (keyEnv !== '' && !API_KEY_ENV_PATTERN.test(keyEnv))
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
      ...(keyEnv !== '' ? { apiKeyEnv: keyEnv } : {}),
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

// ---- Embedder choice (Collections design editor, Experiments view) ---------------------------

/** The select value of an OpenAI-compatible embedder that matches no saved endpoint. */
export const UNSAVED_EMBEDDER = 'unsaved-endpoint';

/**
 * The options of an embedder select: the offline embedder, then every saved endpoint (its model
 * must serve /v1/embeddings), and the current choice when it names an endpoint not saved here.
 */
export function embedderOptions(
  endpoints: readonly ModelEndpoint[],
  current: EmbedderChoice,
): Array<{ value: string; label: string }> {
  const options = [
    { value: WINK_EMBEDDER, label: `${WINK_EMBEDDER} (offline)` },
    ...endpoints.map((e) => ({ value: e.id, label: `${e.name} (${e.model})` })),
  ];
  if (embedderOptionValue(endpoints, current) === UNSAVED_EMBEDDER && current !== WINK_EMBEDDER) {
    options.push({ value: UNSAVED_EMBEDDER, label: `${current.model} at ${current.baseUrl}` });
  }
  return options;
}

/** Which option shows a choice: the offline one, the saved endpoint with its URL and model, or unsaved. */
export function embedderOptionValue(
  endpoints: readonly ModelEndpoint[],
  choice: EmbedderChoice,
): string {
  if (choice === WINK_EMBEDDER) return WINK_EMBEDDER;
  const url = choice.baseUrl.replace(/\/+$/, '');
  const saved = endpoints.find((e) => e.baseUrl === url && e.model === choice.model);
  return saved ? saved.id : UNSAVED_EMBEDDER;
}

/**
 * The embedder an option stands for; null for the unsaved option (keep the current choice). A
 * saved endpoint is copied into the config (URL, model, key variable), so a design or run keeps
 * working when the endpoint is later renamed or deleted.
 */
export function embedderForOption(
  endpoints: readonly ModelEndpoint[],
  value: string,
): EmbedderChoice | null {
  if (value === WINK_EMBEDDER) return WINK_EMBEDDER;
  const endpoint = endpoints.find((e) => e.id === value);
  if (!endpoint) return null;
  return {
    kind: 'openai',
    baseUrl: endpoint.baseUrl,
    model: endpoint.model,
    apiKeyEnv: endpoint.apiKeyEnv,
  };
}
