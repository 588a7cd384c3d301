import type { z } from 'zod';
import type { IndexEngine } from './engine';
import type { IndexKindFace } from './face';

/**
 * An index kind: its browser-safe face (what the design schema, the designs engine and the
 * Collections view read) and its engine (what HybridCollection runs), in one object exported from
 * the kind's one file. `type` and `configSchema` belong to both halves, so they cannot disagree.
 * The engine reaches Node only through the ports of its KindContext, so the whole object loads
 * in the browser too (where only the face is used).
 */
export type IndexKind<
  T extends string = string,
  C extends z.ZodType<{ type: T }> = z.ZodType<{ type: T }>,
  D extends z.ZodObject = z.ZodObject,
  P = unknown,
> = IndexKindFace<T, C, D> & IndexEngine<T, C, P>;

/** Lets TypeScript infer a kind's type literal, schemas and payload from one object literal. */
export function defineIndexKind<
  const T extends string,
  C extends z.ZodType<{ type: T }>,
  D extends z.ZodObject,
  P,
>(kind: IndexKind<T, C, D, P>): IndexKind<T, C, D, P> {
  return kind;
}
