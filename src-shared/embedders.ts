import { z } from 'zod';
import { API_KEY_ENV_PATTERN } from './models';

/**
 * Which embedder a vector index uses: the offline SIF embedder over wink word vectors (the
 * default), or any OpenAI-compatible `POST {baseUrl}/embeddings` server (OpenAI, vLLM, Ollama,
 * TEI). Shared by the turn presets' configs, collection designs, the CLI and the UI.
 *
 * Like every endpoint config, it never holds a key: `apiKeyEnv` names the variable the key is read
 * from, and the object is strict, so a literal `apiKey` is refused rather than stored in a run.
 */

export const WINK_EMBEDDER = 'wink-sif-100d';

export const openAIEmbedderEndpointShape = {
  /** Includes the version segment: `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`. */
  baseUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  model: z.string({ error: 'must be a text' }).min(1, 'must not be empty'),
  apiKeyEnv: z
    .string()
    .regex(API_KEY_ENV_PATTERN, 'must be an environment variable name (A-Z, 0-9 and _)')
    .optional(),
  /** Sent as `dimensions` (OpenAI text-embedding-3 models can shorten their vectors). */
  dimensions: z.number().int().positive().max(65_536).optional(),
};

export const OpenAIEmbedderChoiceSchema = z.strictObject({
  kind: z.literal('openai'),
  ...openAIEmbedderEndpointShape,
});
export type OpenAIEmbedderChoice = z.output<typeof OpenAIEmbedderChoiceSchema>;

export const EmbedderChoiceSchema = z.union(
  [z.literal(WINK_EMBEDDER), OpenAIEmbedderChoiceSchema],
  {
    error: `must be "${WINK_EMBEDDER}" or {kind: "openai", baseUrl, model}`,
  },
);
export type EmbedderChoice = z.output<typeof EmbedderChoiceSchema>;

/**
 * The name runs record for an embedder; equal to the embedder's own `name`
 * (`openai:text-embedding-3-small`, `openai:text-embedding-3-small:256d`).
 */
export function embedderName(choice: EmbedderChoice): string {
  if (choice === WINK_EMBEDDER) return WINK_EMBEDDER;
  return choice.dimensions === undefined
    ? `openai:${choice.model}`
    : `openai:${choice.model}:${choice.dimensions}d`;
}

/**
 * The embedders a memory preset's config names, wherever the built-in presets put them: the turn
 * presets' `embedder`, a design's `indexes[i].embedder`. Paths are relative to the preset config.
 * Values that do not parse are left to the preset's own validation.
 */
export function embedderChoicesIn(
  config: Record<string, unknown>,
): Array<{ path: Array<string | number>; choice: EmbedderChoice }> {
  const out: Array<{ path: Array<string | number>; choice: EmbedderChoice }> = [];
  const take = (value: unknown, path: Array<string | number>): void => {
    const parsed = EmbedderChoiceSchema.safeParse(value);
    if (parsed.success) out.push({ path, choice: parsed.data });
  };
  if (config['embedder'] !== undefined) take(config['embedder'], ['embedder']);
  const indexes = config['indexes'];
  if (Array.isArray(indexes)) {
    indexes.forEach((index: unknown, i) => {
      if (typeof index === 'object' && index !== null && 'embedder' in index) {
        take((index as { embedder: unknown }).embedder, ['indexes', i, 'embedder']);
      }
    });
  }
  return out;
}

/** What a run's manifest says about one embedder. */
export interface EmbedderRecord {
  name: string;
  /** The endpoint's model; null for the offline embedder. */
  model: string | null;
  baseUrl: string | null;
}

export function embedderRecord(choice: EmbedderChoice): EmbedderRecord {
  return choice === WINK_EMBEDDER
    ? { name: WINK_EMBEDDER, model: null, baseUrl: null }
    : { name: embedderName(choice), model: choice.model, baseUrl: choice.baseUrl };
}
