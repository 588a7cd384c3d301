/** `hybrid` and `hybrid-context` (the default preset): BM25 and SIF vectors fused by weight, then neighbour context. */
import { parseOrThrow } from '../../../../src-shared/errors';
import type { MemoryPresetDefinition, MemoryServiceFactory } from '../registry';
import { hybridContextPresetConfigSchema, hybridPresetConfigSchema } from '../retrieval/config';
import { TurnRetrievalService, hybridSettings } from '../retrieval/service';

export const hybridPreset: MemoryServiceFactory = async (config, ctx) => {
  const parsed = parseOrThrow(
    hybridPresetConfigSchema,
    config ?? {},
    'memory preset "hybrid" config',
  );
  return TurnRetrievalService.open(hybridSettings(parsed), ctx);
};

export const hybridPresetDefinition: MemoryPresetDefinition = {
  name: 'hybrid',
  create: hybridPreset,
  configSchema: hybridPresetConfigSchema,
  embedder: true,
};

/** `hybrid-context`: hybrid with the turn before and the session's month in BM25, session scores. */
export const hybridContextPreset: MemoryServiceFactory = async (config, ctx) => {
  const parsed = parseOrThrow(
    hybridContextPresetConfigSchema,
    config ?? {},
    'memory preset "hybrid-context" config',
  );
  return TurnRetrievalService.open(hybridSettings(parsed, 'hybrid-context'), ctx);
};

export const hybridContextPresetDefinition: MemoryPresetDefinition = {
  name: 'hybrid-context',
  create: hybridContextPreset,
  configSchema: hybridContextPresetConfigSchema,
  embedder: true,
};
