import { z } from 'zod';
import { formatPath, type ErrorPath } from './errors';
import { DESIGN_INDEX_NAME_PATTERN, flag, int, num, oneOf } from './index-kinds/fields';
import { INDEX_KINDS, findIndexKindFace, type FaceType } from './index-kinds/registry';

/**
 * Collection designs: a memory collection described as data (its indexes, how their hits are
 * fused, and how the fused list is re-ranked), edited in the Collections view, tried in its
 * playground and run in experiments by the `designed` memory preset. The schema is shared so the
 * editor shows exactly the errors the engine would raise, field by field.
 *
 * Every message is written to follow a path: `indexes[2].capacity: must be >= 1`.
 */

/** The memory preset that runs a design; its config is the whole design. */
export const DESIGNED_PRESET = 'designed';

/** Presets a design can start from; `designs.fromPreset` prefills their defaults. */
export const DESIGN_BASE_PRESETS = ['vector', 'text', 'hybrid'] as const;
export type DesignBasePreset = (typeof DESIGN_BASE_PRESETS)[number];

/**
 * The index types a design can hold: every kind with a face (index-kinds/registry.ts), in the
 * designer's order. Nothing here is per kind: a kind's design schema, fields and defaults live in
 * its face.
 */
export const DESIGN_INDEX_TYPES = INDEX_KINDS.map((f) => f.type) as unknown as TypesOf<
  typeof INDEX_KINDS
>;
export type DesignIndexType = FaceType;

export { DESIGN_INDEX_NAME_PATTERN };
export { TURN_SORT_FIELDS, type TurnSortField } from './index-kinds/sorted';

export const MAX_DESIGN_INDEXES = 12;
export const MAX_DESIGN_NAME = 80;
/** The most hits a playground query shows per index (a run's top_k goes higher). */
export const PLAYGROUND_MAX_TOP_K = 100;

// Mapped over a type parameter, so a tuple of faces maps to a tuple (the union needs one).
type TypesOf<F extends readonly unknown[]> = {
  readonly [K in keyof F]: F[K] extends { type: infer T } ? T : never;
};
type DesignSchemasOf<F extends readonly unknown[]> = {
  readonly [K in keyof F]: F[K] extends { design: { schema: infer S } } ? S : never;
};

/** One design index: the union of every face's design schema, told apart by `type`. */
export const designIndexSchema = z.discriminatedUnion(
  'type',
  INDEX_KINDS.map((f) => f.design.schema) as unknown as DesignSchemasOf<typeof INDEX_KINDS>,
  { error: `type must be one of ${DESIGN_INDEX_TYPES.join(', ')}` },
);

export const designFusionSchema = z.strictObject({
  /** rrf: sum of weight/(rrfK + rank); weighted: min-max normalised scores times weights; union. */
  method: oneOf(['rrf', 'weighted', 'union']).default('rrf'),
  /** Weight per index name; an index not listed weighs 1. */
  weights: z.record(z.string(), num(0, 100)).default({}),
  rrfK: num(0, 1_000_000).default(60),
});

export const designRetrievalSchema = z.strictObject({
  /** Hits taken from each index before fusion, and the size of the fused pool. */
  candidates: int(1, 10_000).default(50),
  /** final(t) = s(t) + previousTurnScore * s(t-1) + nextTurnScore * s(t+1), within a session. */
  previousTurnScore: num(0, 10).default(0.5),
  nextTurnScore: num(0, 10).default(0.2),
  /** Turns of a speaker the question names score x (1 + speakerBoost). */
  speakerBoost: num(0, 10).default(0.4),
  /** Drop question boilerplate ("what kind of", "when did") from text queries. */
  dropQuestionWords: flag.default(true),
});

const designShape = z.strictObject({
  name: z
    .string({ error: 'must be a text' })
    .trim()
    .min(1, 'must not be empty')
    .max(MAX_DESIGN_NAME, `must be at most ${MAX_DESIGN_NAME} characters`),
  basePreset: oneOf(DESIGN_BASE_PRESETS).optional(),
  indexes: z
    .array(designIndexSchema, { error: 'must be a list of indexes' })
    .min(1, 'must hold at least one index')
    .max(MAX_DESIGN_INDEXES, `must hold at most ${MAX_DESIGN_INDEXES} indexes`),
  fusion: designFusionSchema.prefault({}),
  retrieval: designRetrievalSchema.prefault({}),
});

export interface DesignIssue {
  /** JSON path of the bad value, e.g. ['indexes', 2, 'capacity']. */
  path: Array<string | number>;
  message: string;
}

/**
 * Checks between fields: index names are unique, graph indexes start from (and take neighbours
 * from) indexes that exist and have the right type, weights name existing indexes. Works on
 * anything shaped roughly like a design, so the editor can show these next to field errors.
 */
export function crossFieldIssues(design: unknown): DesignIssue[] {
  const issues: DesignIssue[] = [];
  if (!isRecord(design) || !Array.isArray(design['indexes'])) return issues;
  const indexes: unknown[] = design['indexes'];
  const types = new Map<string, string>();
  indexes.forEach((raw, i) => {
    if (!isRecord(raw) || typeof raw['name'] !== 'string') return;
    const name = raw['name'];
    if (types.has(name)) {
      const first = indexes.findIndex((o) => isRecord(o) && o['name'] === name);
      issues.push({
        path: ['indexes', i, 'name'],
        message: `duplicate index name "${name}" (also indexes[${first}])`,
      });
    } else {
      types.set(name, typeof raw['type'] === 'string' ? raw['type'] : '');
    }
  });
  let firstGraph = -1;
  indexes.forEach((raw, i) => {
    if (!isRecord(raw) || raw['type'] !== 'graph') return;
    if (firstGraph >= 0) {
      // The collection adds an item's edges to every graph index it joins, so two graphs with
      // different edge settings cannot be built from one insert.
      issues.push({
        path: ['indexes', i, 'type'],
        message: `only one graph index per design (indexes[${firstGraph}] is one)`,
      });
    } else {
      firstGraph = i;
    }
    const start = raw['startFrom'];
    if (typeof start === 'string') {
      const type = types.get(start);
      if (start === '') {
        issues.push({
          path: ['indexes', i, 'startFrom'],
          message: 'must name a vector or text index of this design',
        });
      } else if (type === undefined) {
        issues.push({ path: ['indexes', i, 'startFrom'], message: `names no index ("${start}")` });
      } else if (type !== 'vector' && type !== 'text') {
        issues.push({
          path: ['indexes', i, 'startFrom'],
          message: `must name a vector or text index; "${start}" is a ${type} index`,
        });
      }
    }
    const from = raw['neighboursFrom'];
    const k = raw['neighbours'];
    if (typeof from === 'string' && typeof k === 'number' && k > 0) {
      const type = types.get(from);
      if (type !== 'vector') {
        issues.push({
          path: ['indexes', i, 'neighboursFrom'],
          message:
            from === ''
              ? 'must name a vector index when neighbours > 0'
              : type === undefined
                ? `names no index ("${from}")`
                : `must name a vector index; "${from}" is a ${type} index`,
        });
      }
    }
  });
  const fusion = design['fusion'];
  if (isRecord(fusion) && isRecord(fusion['weights'])) {
    for (const name of Object.keys(fusion['weights'])) {
      if (!types.has(name)) {
        issues.push({
          path: ['fusion', 'weights', name],
          message: 'names no index of this design',
        });
      }
    }
  }
  return issues;
}

export const CollectionDesignSchema = designShape.superRefine((design, ctx) => {
  for (const issue of crossFieldIssues(design)) {
    ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  }
});

export type CollectionDesignInput = z.input<typeof CollectionDesignSchema>;
export type CollectionDesign = z.output<typeof CollectionDesignSchema>;
export type DesignIndex = z.output<typeof designIndexSchema>;
/** The design index of one type (`DesignIndexOf<'vector'>`). */
export type DesignIndexOf<T extends DesignIndexType> = Extract<DesignIndex, { type: T }>;
export type DesignFusion = z.output<typeof designFusionSchema>;
export type DesignRetrieval = z.output<typeof designRetrievalSchema>;

/** Every problem of a design: field errors and cross-field errors, each with its path. */
export function designIssues(value: unknown): DesignIssue[] {
  const result = CollectionDesignSchema.safeParse(value);
  const issues: DesignIssue[] = result.success
    ? []
    : result.error.issues.map((issue) => ({
        path: issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
        message: issue.message,
      }));
  // Refinements do not run when a field has the wrong type; the editor still wants them.
  const seen = new Set(issues.map(issueText));
  for (const issue of crossFieldIssues(value)) {
    if (!seen.has(issueText(issue))) issues.push(issue);
  }
  return issues;
}

/** `indexes[2].capacity: must be >= 1`. */
export function issueText(issue: DesignIssue): string {
  return `${designPath(issue.path)}: ${issue.message}`;
}

export function designPath(path: ErrorPath): string {
  return formatPath(path);
}

/** The parsed design, or its issues. */
export function parseDesign(
  value: unknown,
): { ok: true; design: CollectionDesign } | { ok: false; issues: DesignIssue[] } {
  const result = CollectionDesignSchema.safeParse(value);
  if (result.success) return { ok: true, design: result.data };
  return { ok: false, issues: designIssues(value) };
}

/** A new index of `type` with every default, named so it does not clash with `existing`. */
export function newDesignIndex(
  type: DesignIndexType,
  existing: readonly DesignIndex[],
): DesignIndex {
  const names = new Set(existing.map((i) => i.name));
  let name: string = type;
  for (let n = 2; names.has(name); n++) name = `${type}-${n}`;
  // The kind's settings that depend on the other indexes; the schema's defaults fill the rest.
  const initial = findIndexKindFace(type)?.design.initial?.(existing) ?? {};
  return designIndexSchema.parse({ ...initial, name, type });
}

/** A saved design as listed: the design and when it was last saved. */
export interface SavedDesign {
  design: CollectionDesign;
  savedAt: string;
}

export interface DesignStoreProblem {
  message: string;
  /** Where the unreadable file was moved to (it is kept, never overwritten). */
  movedTo: string | null;
}

export interface DesignList {
  designs: SavedDesign[];
  /** Problems found reading the designs file in this session (e.g. a corrupt file set aside). */
  problems: DesignStoreProblem[];
}

/** What one index contributed to a fused hit (same fields as the collection's fusion). */
export interface FusionContribution {
  index: string;
  rank: number;
  score: number;
  normalized: number;
  contribution: number;
}

export interface PlaygroundHit {
  id: string;
  diaId: string | null;
  speaker: string | null;
  text: string;
  score: number;
  /** 1-based. */
  rank: number;
}

/**
 * Evidence recall of one list of playground hits: the share of the scored question's evidence
 * turns among them (core/memory/retrieval/evaluate.ts computes it, as for `cli retrieve`).
 */
export const PlaygroundRecallSchema = z
  .object({
    found: z.number().int().nonnegative(),
    total: z.number().int().positive(),
    recall: z.number().min(0).max(1),
  })
  .strict()
  .refine((r) => r.found <= r.total && r.recall === r.found / r.total, {
    message: 'recall must be found / total',
  });
export type PlaygroundRecall = z.output<typeof PlaygroundRecallSchema>;

/** A query's recall, as the playground's result carries it: null without a scored question. */
export const PlaygroundScoringSchema = z
  .object({
    questionIndex: z.number().int().nonnegative().nullable(),
    fusedRecall: PlaygroundRecallSchema.nullable(),
    perIndexRecall: z.array(PlaygroundRecallSchema.nullable()),
  })
  .refine((s) => s.questionIndex !== null || s.fusedRecall === null, {
    message: 'a recall needs a scored question',
  });

export interface PlaygroundIndexHits {
  index: string;
  type: DesignIndexType;
  hits: PlaygroundHit[];
  /** Recall of these hits against the scored question's evidence; null without one. */
  recall: PlaygroundRecall | null;
}

export interface PlaygroundFusedHit extends PlaygroundHit {
  /** Per-index contributions to the fused score (empty for a turn pulled in as a neighbour). */
  contributions: FusionContribution[];
  /** The fusion score before neighbour context and speaker boost; null for a neighbour-only turn. */
  fusedScore: number | null;
  speakerBoosted: boolean;
}

export interface PlaygroundResult {
  playgroundId: string;
  query: string;
  topK: number;
  perIndex: PlaygroundIndexHits[];
  fused: PlaygroundFusedHit[];
  /** The sample's question the hits are scored against (its index); null: none. */
  questionIndex: number | null;
  /** Recall of the fused list against that question's evidence; null without one. */
  fusedRecall: PlaygroundRecall | null;
  /** Speakers the query names (their turns were boosted). */
  namedSpeakers: string[];
  /** Wall time of the query, ms. */
  ms: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
