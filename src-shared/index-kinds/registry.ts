import type { AnyIndexKindFace } from './face';
import { fifoKind } from './fifo';
import { graphKind } from './graph';
import { sortedKind } from './sorted';
import { textKind } from './text';
import { vectorKind } from './vector';

/**
 * The index kinds, in the designer's order: the one place they are listed. Each entry is the
 * kind's face and its engine in one object; the collection registers these engines
 * (src-main/core/collection/kinds/registry.ts), and the design schema (designs.ts), the designs
 * engine and the Collections view read their faces. kinds-contract.test.ts checks that every
 * kind is complete and every list derived from this one agrees.
 */
export const INDEX_KINDS = [vectorKind, textKind, fifoKind, sortedKind, graphKind] as const;

export type IndexKinds = typeof INDEX_KINDS;
/** The type of every kind in INDEX_KINDS. */
export type FaceType = IndexKinds[number]['type'];

const byType = new Map<string, AnyIndexKindFace>(INDEX_KINDS.map((k) => [k.type, k]));

/** The face of kind `type`, or undefined. */
export function findIndexKindFace(type: string): AnyIndexKindFace | undefined {
  return byType.get(type);
}
