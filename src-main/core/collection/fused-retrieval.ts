import { z } from 'zod';
import { parseOrThrow } from '../../../src-shared/errors';
import { BoundedCache } from '../../../src-shared/memo';
import type { ErrorCode, ErrorPath, WorkbenchError } from '../../../src-shared/errors';
import { DEFAULT_RRF_K, fuse, type FusedEntry } from './fusion';
import type { ScoredSeq } from '../../../src-shared/index-kinds/engine';
import type { Runtime } from './tx-context';
import type { MultiQuery, RetrieveMultiOptions } from './types';
import { describe } from '../../../src-shared/index-kinds/validate';

/** Retrieval's options and the search behind `retrieve` and the fused `retrieveMulti`/`rankMulti`. */

/** What retrieval needs of the collection: its name, its indexes, its error wording, that it is open. */
export interface RetrievalContext {
  readonly name: string;
  runtime(name: string): Runtime;
  error(code: ErrorCode, message: string, path?: ErrorPath): WorkbenchError;
  assertOpen(): void;
}

export const retrieveOptionsSchema = z.strictObject({
  topK: z.number().int().min(1).max(100_000).default(10),
  threshold: z.number().refine(Number.isFinite, 'must be a finite number').optional(),
  withMetadata: z.boolean().default(false),
  startNodes: z.array(z.string()).optional(),
  maxDepth: z.number().int().min(0).max(1000).default(2),
  maxNodes: z.number().int().min(1).max(10_000_000).default(100),
});
export type ParsedRetrieveOptions = z.output<typeof retrieveOptionsSchema>;

const multiOptionsSchema = z.strictObject({
  topK: z.number().int().min(1).max(100_000).default(10),
  fusion: z.enum(['rrf', 'weighted', 'union']).default('rrf'),
  rrfK: z.number().min(0).max(1_000_000).default(DEFAULT_RRF_K),
  candidates: z.number().int().min(1).max(100_000).optional(),
  withMetadata: z.boolean().default(false),
});

/** One index's hits for a query, best first: the kind's search, then threshold and top-k. */
export async function searchIndex(
  ctx: Pick<RetrievalContext, 'assertOpen'>,
  rt: Runtime,
  query: unknown,
  opts: ParsedRetrieveOptions,
): Promise<ScoredSeq[]> {
  let hits = await rt.handle.search(query, opts);
  ctx.assertOpen();
  if (opts.threshold !== undefined) {
    const threshold = opts.threshold;
    hits = hits.filter((h) => h.score >= threshold);
  }
  return hits.length > opts.topK ? hits.slice(0, opts.topK) : hits;
}

/** A named index's hits, its options checked here (a kind's search of another index: a graph's start nodes). */
export function searchNamedIndex(
  ctx: RetrievalContext,
  name: string,
  query: unknown,
  options: unknown,
  what: string,
): Promise<ScoredSeq[]> {
  const rt = ctx.runtime(name);
  const opts = parseOrThrow(
    retrieveOptionsSchema,
    options,
    `HybridCollection '${ctx.name}': ${what}`,
  );
  return searchIndex(ctx, rt, query, opts);
}

/**
 * The parsed options of a fused query's sub-queries that give none of their own, by candidate
 * count: a turn preset asks the same way for every question, and parsing cost about as much as fusing.
 * Frozen, as every query of that count shares the object.
 */
const plainSubOptions = new BoundedCache<ParsedRetrieveOptions>(64);

function subOptions(
  ctx: RetrievalContext,
  candidates: number,
  own: MultiQuery['options'],
  what: string,
): ParsedRetrieveOptions {
  const known = own === undefined ? plainSubOptions.get(String(candidates)) : undefined;
  if (known) return known;
  const parsed = parseOrThrow(
    retrieveOptionsSchema,
    { topK: candidates, ...(own ?? {}) },
    `HybridCollection '${ctx.name}': ${what}`,
  );
  if (own === undefined) plainSubOptions.set(String(candidates), Object.freeze(parsed));
  return parsed;
}

/** Each query's candidates from its index, fused and cut to top-k (best first). */
export async function fuseQueries(
  ctx: RetrievalContext,
  queries: readonly MultiQuery[],
  options: RetrieveMultiOptions,
  method: string,
): Promise<{ fused: Array<FusedEntry<number>>; withMetadata: boolean }> {
  ctx.assertOpen();
  const opts = parseOrThrow(
    multiOptionsSchema,
    options,
    `HybridCollection '${ctx.name}': ${method} options`,
  );
  if (!Array.isArray(queries) || queries.length === 0) {
    throw ctx.error('INVALID_INPUT', `${method} needs at least one query`);
  }
  const candidates = opts.candidates ?? Math.max(2 * opts.topK, 20);
  const lists = await Promise.all(
    queries.map(async (q, i) => {
      const rt = ctx.runtime(q.index);
      const weight = q.weight ?? 1;
      if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0) {
        throw ctx.error(
          'INVALID_INPUT',
          `queries[${i}] (index '${q.index}'): weight must be a finite number >= 0, got ${describe(weight)}`,
        );
      }
      const sub = subOptions(
        ctx,
        candidates,
        q.options,
        `${method} queries[${i}] options for index '${q.index}'`,
      );
      const hits = await searchIndex(ctx, rt, q.query, sub);
      return { index: q.index, weight, hits: hits.map((h) => ({ key: h.seq, score: h.score })) };
    }),
  );
  const fused = fuse(lists, opts.fusion, opts.rrfK).slice(0, opts.topK);
  return { fused, withMetadata: opts.withMetadata };
}
