/** `vector`: one item per turn, hnsw (cosine) over SIF vectors of the turn and the turn before it. */
import { parseOrThrow } from '../../../../src-shared/errors';
import type { MemoryPresetDefinition, MemoryServiceFactory } from '../registry';
import { vectorPresetConfigSchema } from '../retrieval/config';
import { TurnRetrievalService, vectorSettings } from '../retrieval/service';

export const vectorPreset: MemoryServiceFactory = async (config, ctx) => {
  const parsed = parseOrThrow(
    vectorPresetConfigSchema,
    config ?? {},
    'memory preset "vector" config',
  );
  return TurnRetrievalService.open(vectorSettings(parsed), ctx);
};

export const vectorPresetDefinition: MemoryPresetDefinition = {
  name: 'vector',
  create: vectorPreset,
  configSchema: vectorPresetConfigSchema,
  embedder: true,
};
