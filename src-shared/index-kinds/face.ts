import type { z } from 'zod';
import type { FieldSpec } from './fields';

/**
 * The browser-safe face of an index kind: everything about the kind that the design schema, the
 * Collections view and the designs engine need. A kind (kind.ts) is its face and its engine in
 * one object, so `type` and `configSchema` serve both.
 */
export interface IndexKindFace<
  T extends string = string,
  C extends z.ZodType<{ type: T }> = z.ZodType<{ type: T }>,
  D extends z.ZodObject = z.ZodObject,
> {
  /** Stored in `indexes.type`, given as `config.type` and as a design index's `type`. */
  readonly type: T;
  /** One line shown beside the type in the designer ("a window of the newest turns"). */
  readonly description: string;
  /**
   * The collection's config for an index of this kind (createIndex validates with it). Its
   * `.default(...)`s are where the kind's defaults live.
   */
  readonly configSchema: C;
  readonly design: DesignFace<D, C>;
}

/** How the kind appears in a collection design. */
export interface DesignFace<D extends z.ZodObject = z.ZodObject, C extends z.ZodType = z.ZodType> {
  /**
   * A design index of this kind: `name`, `type: z.literal(<type>)` and the user's settings, every
   * one with a default (so `{name, type}` alone is a complete index) and with messages that read
   * after a path (see fields.ts).
   */
  readonly schema: D;
  /** The settings the designer shows, in display order; every key is a key of `schema`. */
  readonly fields: readonly FieldSpec[];
  /**
   * Settings of a new index that depend on the design's other indexes (a graph starts from the
   * first text index); the schema's defaults fill the rest. Absent: the defaults alone.
   */
  initial?(existing: ReadonlyArray<{ name: string; type: string }>): Record<string, unknown>;
  /** The collection config the designs engine creates this index with. */
  collectionConfig(index: z.output<D>, context: CollectionConfigContext): z.input<C>;
  /** What the designs engine asks this index for a question. */
  query(index: z.output<D>, context: DesignQueryContext): DesignQuery;
}

export interface CollectionConfigContext {
  /** The embedder the design chose for this index; null for an index that embeds nothing. */
  embedder: { dim: number } | null;
}

export interface DesignQueryContext {
  /** The question for text matching (question boilerplate dropped when the design says so). */
  textQuery: string;
  /**
   * The plain query for the design index `name`: the question's vector in that index's embedding
   * for a vector index, the text query for any other (or for a name no index has).
   */
  directQuery(name: string): string | Float32Array;
}

/** One index's part of the design's retrieveMulti (the collection validates it through the kind). */
export interface DesignQuery {
  query: unknown;
  options?: { maxDepth?: number; maxNodes?: number };
}

/** Any kind's face, whatever its types. */
export type AnyIndexKindFace = IndexKindFace<string, z.ZodType<{ type: string }>, z.ZodObject>;
