import {
  CollectionDesignSchema,
  type CollectionDesign,
  type DesignBasePreset,
  type DesignIndex,
} from '../../../src-shared/designs';
import {
  hybridPresetConfigSchema,
  textPresetConfigSchema,
  vectorPresetConfigSchema,
  type HybridPresetConfig,
  type TextPresetConfig,
  type VectorPresetConfig,
} from '../memory/retrieval/config';
import { TEXT_INDEX, VECTOR_INDEX } from '../memory/retrieval/service';

/**
 * Designs that hold a built-in turn preset's defaults, read from the preset's own config schema
 * (so a change of a preset default shows up here). The index order is the preset's query order:
 * fusion breaks ties by list order, so the same order gives the same ranking.
 */
export function designFromPreset(preset: DesignBasePreset): CollectionDesign {
  switch (preset) {
    case 'vector': {
      const c = vectorPresetConfigSchema.parse({});
      return design(preset, [vectorIndex(c)], { method: 'weighted', weights: {}, rrfK: 60 }, c);
    }
    case 'text': {
      const c = textPresetConfigSchema.parse({});
      return design(preset, [textIndex(c)], { method: 'weighted', weights: {}, rrfK: 60 }, c);
    }
    case 'hybrid': {
      const c = hybridPresetConfigSchema.parse({});
      return design(
        preset,
        [textIndex(c), vectorIndex(c)],
        {
          method: c.fusion,
          weights: { [TEXT_INDEX]: c.textWeight, [VECTOR_INDEX]: c.vectorWeight },
          rrfK: c.rrfK,
        },
        c,
      );
    }
  }
}

function design(
  preset: DesignBasePreset,
  indexes: DesignIndex[],
  fusion: CollectionDesign['fusion'],
  c: VectorPresetConfig | TextPresetConfig,
): CollectionDesign {
  return CollectionDesignSchema.parse({
    name: `${preset} design`,
    basePreset: preset,
    indexes,
    fusion,
    retrieval: {
      candidates: c.candidates,
      previousTurnScore: c.previousTurnScore,
      nextTurnScore: c.nextTurnScore,
      speakerBoost: c.speakerBoost,
      dropQuestionWords: c.dropQuestionWords,
    },
  });
}

function vectorIndex(c: VectorPresetConfig | HybridPresetConfig): DesignIndex {
  return {
    name: VECTOR_INDEX,
    type: 'vector',
    embedder: c.embedder,
    space: 'cosine',
    M: c.M,
    efConstruction: c.efConstruction,
    ef: c.ef,
    previousTurnVector: c.previousTurnVector,
  };
}

function textIndex(c: TextPresetConfig | HybridPresetConfig): DesignIndex {
  // The turn presets keep the analyzer's stop list on (it is not part of their config).
  return { name: TEXT_INDEX, type: 'text', k1: c.k1, b: c.b, stem: c.stem, stopWords: true };
}
