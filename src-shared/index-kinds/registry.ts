import type { AnyIndexKindFace } from './face';
import { fifoFace } from './fifo';
import { graphFace } from './graph';
import { sortedFace } from './sorted';
import { textFace } from './text';
import { vectorFace } from './vector';

/**
 * The faces of the index kinds, in the designer's order: the one browser-safe list, from which
 * the design schema (designs.ts), the designs engine and the Collections view derive. Each
 * engine in src-main/core/collection/kinds/registry.ts is registered with its face;
 * kinds-contract.test.ts checks that every face is complete and the two lists agree.
 */
export const INDEX_KIND_FACES = [vectorFace, textFace, fifoFace, sortedFace, graphFace] as const;

export type IndexKindFaces = typeof INDEX_KIND_FACES;
/** The type of every kind with a face. */
export type FaceType = IndexKindFaces[number]['type'];

const byType = new Map<string, AnyIndexKindFace>(INDEX_KIND_FACES.map((f) => [f.type, f]));

/** The face of kind `type`, or undefined. */
export function findIndexKindFace(type: string): AnyIndexKindFace | undefined {
  return byType.get(type);
}
