/** `text`: one item per turn, flexsearch candidates ranked by BM25 over Porter stems. */
import { parseOrThrow } from '../../../../src-shared/errors';
import type { MemoryPresetDefinition, MemoryServiceFactory } from '../registry';
import { textPresetConfigSchema } from '../retrieval/config';
import { TurnRetrievalService, textSettings } from '../retrieval/service';

export const textPreset: MemoryServiceFactory = async (config, ctx) => {
  const parsed = parseOrThrow(textPresetConfigSchema, config ?? {}, 'memory preset "text" config');
  return TurnRetrievalService.open(textSettings(parsed), ctx);
};

export const textPresetDefinition: MemoryPresetDefinition = {
  name: 'text',
  create: textPreset,
  configSchema: textPresetConfigSchema,
};
