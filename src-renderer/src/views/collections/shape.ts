import type { ApiEvent } from '@shared/api';
import type { QA } from '@shared/dataset';
import {
  DESIGN_BASE_PRESETS,
  designPath,
  designRetrievalSchema,
  designFusionSchema,
  newDesignIndex,
  type CollectionDesign,
  type DesignBasePreset,
  type DesignIndex,
  type DesignIndexType,
  type DesignIssue,
  type FusionContribution,
  type PlaygroundHit,
  type PlaygroundRecall,
  type PlaygroundResult,
  PlaygroundScoringSchema,
} from '@shared/designs';
import { parseOrThrow } from '@shared/errors';
import {
  numberBounds,
  numberField,
  type FieldSpec,
  type NumberBounds,
} from '@shared/index-kinds/fields';
import { INDEX_KINDS } from '@shared/index-kinds/registry';

/**
 * Pure shaping for the Collections view: URL params, the design editor's state changes, field
 * descriptions (with bounds read from the shared schema, so the inputs and the validation agree),
 * validation messages by field, and playground numbers (progress, recall@k).
 */

// ---- URL params -----------------------------------------------------------------------------

export interface CollectionsParams {
  design: string | null;
  dataset: string | null;
  sample: string | null;
}
export type CollectionsParamsPatch = Partial<CollectionsParams>;

export function parseCollectionsParams(params: URLSearchParams): CollectionsParams {
  const get = (key: string) => {
    const v = params.get(key);
    return v === null || v === '' ? null : v;
  };
  return { design: get('design'), dataset: get('dataset'), sample: get('sample') };
}

export function collectionsParamsToRecord(params: CollectionsParams): Record<string, string> {
  const out: Record<string, string> = {};
  if (params.design !== null) out['design'] = params.design;
  if (params.dataset !== null) out['dataset'] = params.dataset;
  if (params.sample !== null) out['sample'] = params.sample;
  return out;
}

// ---- Editor state -----------------------------------------------------------------------------

export type DesignAction =
  | { type: 'set-name'; name: string }
  | { type: 'add-index'; indexType: DesignIndexType }
  | { type: 'remove-index'; index: number }
  | { type: 'rename-index'; index: number; name: string }
  | { type: 'set-index-field'; index: number; key: string; value: unknown }
  | { type: 'set-fusion'; key: 'method' | 'rrfK'; value: unknown }
  | { type: 'set-weight'; name: string; value: number }
  | { type: 'set-retrieval'; key: keyof CollectionDesign['retrieval']; value: unknown };

/**
 * The design after one edit. Values are kept as typed, even when invalid (NaN for an empty number
 * field): the shared schema reports them next to the field, and Save stays off until they are fixed.
 */
export function reduceDesign(design: CollectionDesign, action: DesignAction): CollectionDesign {
  switch (action.type) {
    case 'set-name':
      return { ...design, name: action.name };
    case 'add-index':
      return {
        ...design,
        indexes: [...design.indexes, newDesignIndex(action.indexType, design.indexes)],
      };
    case 'remove-index': {
      const removed = design.indexes[action.index];
      if (!removed) return design;
      // Its weight goes with it; graph references to it stay, so the editor says what broke.
      const weights = { ...design.fusion.weights };
      delete weights[removed.name];
      return {
        ...design,
        indexes: design.indexes.filter((_, i) => i !== action.index),
        fusion: { ...design.fusion, weights },
      };
    }
    case 'rename-index': {
      const old = design.indexes[action.index];
      if (!old) return design;
      // Renaming carries the index's weight and every reference to it (the fields of kind
      // 'index' that name it) along.
      const indexes = design.indexes.map((ix, i): DesignIndex => {
        if (i === action.index) return { ...ix, name: action.name };
        const values: Record<string, unknown> = ix;
        const moved = INDEX_FIELDS[ix.type].filter(
          (f) => f.kind === 'index' && values[f.key] === old.name,
        );
        if (moved.length === 0) return ix;
        // Only string fields that named the old index change, so the index keeps its type.
        return {
          ...ix,
          ...Object.fromEntries(moved.map((f) => [f.key, action.name])),
        } as DesignIndex;
      });
      const weights: Record<string, number> = {};
      for (const [name, w] of Object.entries(design.fusion.weights)) {
        weights[name === old.name ? action.name : name] = w;
      }
      return { ...design, indexes, fusion: { ...design.fusion, weights } };
    }
    case 'set-index-field':
      return {
        ...design,
        indexes: design.indexes.map((ix, i) =>
          // The field list comes from INDEX_FIELDS[ix.type], so the key belongs to this type.
          i === action.index ? ({ ...ix, [action.key]: action.value } as DesignIndex) : ix,
        ),
      };
    case 'set-fusion':
      return { ...design, fusion: { ...design.fusion, [action.key]: action.value } };
    case 'set-weight':
      return {
        ...design,
        fusion: {
          ...design.fusion,
          weights: { ...design.fusion.weights, [action.name]: action.value },
        },
      };
    case 'set-retrieval':
      return { ...design, retrieval: { ...design.retrieval, [action.key]: action.value } };
  }
}

/** The weight an index has in fusion (1 when the design lists none). */
export function weightOf(design: CollectionDesign, name: string): number {
  return design.fusion.weights[name] ?? 1;
}

// ---- Field descriptions ------------------------------------------------------------------------

export type { FieldSpec, NumberBounds };

/** The parameters of each index type, in display order: each kind's face declares its own. */
export const INDEX_FIELDS = Object.fromEntries(
  INDEX_KINDS.map((f) => [f.type, f.design.fields]),
) as Record<DesignIndexType, readonly FieldSpec[]>;

/** One line per index type, shown beside it in the designer. */
export const INDEX_TYPE_HINTS = Object.fromEntries(
  INDEX_KINDS.map((f) => [f.type, f.description]),
) as Record<DesignIndexType, string>;

const fShape = designFusionSchema.shape;
const rShape = designRetrievalSchema.shape;

export const FUSION_METHODS = fShape.method.unwrap().options;
export const RRF_K_FIELD = numberField(fShape, 'rrfK', 'rrf k');
export const WEIGHT_BOUNDS: NumberBounds = numberBounds(fShape.weights.unwrap().valueType);

export const RETRIEVAL_FIELDS: readonly FieldSpec[] = [
  numberField(rShape, 'candidates', 'Candidates', 'hits per index before fusion'),
  numberField(rShape, 'previousTurnScore', 'Previous-turn score', '+ x · s(t−1)'),
  numberField(rShape, 'nextTurnScore', 'Next-turn score', '+ x · s(t+1)'),
  numberField(rShape, 'speakerBoost', 'Speaker boost', '× (1 + x) for named speakers'),
  { key: 'dropQuestionWords', label: 'Drop question words', kind: 'bool' },
];

export const BASE_PRESETS: readonly DesignBasePreset[] = DESIGN_BASE_PRESETS;

// ---- Validation ---------------------------------------------------------------------------------

/** Messages by field path (`indexes[2].capacity`), for showing each beside its input. */
export function issuesByField(issues: readonly DesignIssue[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const issue of issues) {
    const key = designPath(issue.path);
    const list = out.get(key) ?? [];
    list.push(issue.message);
    out.set(key, list);
  }
  return out;
}

export function fieldKey(...path: Array<string | number>): string {
  return designPath(path);
}

/** What a saved design holds, in one line: `text + vector · weighted`. */
export function designSummary(design: CollectionDesign): string {
  const names = design.indexes.map((i) => (i.name === i.type ? i.name : `${i.name} (${i.type})`));
  return `${names.join(' + ')} · ${design.fusion.method}`;
}

/** Two designs are the same when they would save the same (key order aside). */
export function sameDesign(a: CollectionDesign | null, b: CollectionDesign | null): boolean {
  if (a === null || b === null) return a === b;
  return stableJson(a) === stableJson(b);
}

function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const obj = v as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(obj)
        .sort()
        .map((k) => [k, obj[k]]),
    );
  });
}

// ---- Playground -------------------------------------------------------------------------------

export type PlaygroundProgress = Extract<ApiEvent, { type: 'playground-progress' }>;

/** 0-100; 100 once done (a sample without turns is done at 0 of 0). */
export function progressPercent(
  progress: Pick<PlaygroundProgress, 'inserted' | 'total' | 'done'>,
): number {
  if (progress.done && progress.total === 0) return 100;
  if (progress.total <= 0) return 0;
  return Math.round((100 * Math.min(progress.inserted, progress.total)) / progress.total);
}

/** Questions worth asking the playground: those with evidence turns (the others cannot be marked). */
export function questionOptions(qa: readonly QA[]): Array<{ value: string; label: string }> {
  return qa
    .filter((q) => q.evidence.length > 0)
    .map((q) => ({ value: String(q.index), label: `#${q.index + 1} ${q.question}` }));
}

/**
 * Which question the playground's query came from (`fill`) and which question's evidence its
 * results are scored against (`scoreAgainst`); '' is none. Picking a question sets both.
 */
export interface PlaygroundQuestionState {
  fill: string;
  scoreAgainst: string;
}

/**
 * A query edited away from the picked question's text is the user's own query: it is scored
 * against no question (until the user picks one to score against), never against the evidence
 * of the question picked before.
 */
export function afterQueryEdit(
  state: PlaygroundQuestionState,
  text: string,
  qa: ReadonlyArray<Pick<QA, 'index' | 'question'>>,
): PlaygroundQuestionState {
  if (state.fill === '' && state.scoreAgainst === '') return state;
  const filled = qa.find((q) => String(q.index) === state.fill);
  if (filled && filled.question === text) return state;
  // Typed over a picked question: both go. A question picked only to score against stays.
  return state.fill === '' ? state : { fill: '', scoreAgainst: '' };
}

/**
 * A playground result's recall as it arrives from the engine, checked (PlaygroundScoringSchema):
 * the view shows the core's recall, the one `cli retrieve` reports, and computes none itself.
 */
export function checkedPlaygroundResult(result: PlaygroundResult): PlaygroundResult {
  parseOrThrow(
    PlaygroundScoringSchema,
    {
      questionIndex: result.questionIndex,
      fusedRecall: result.fusedRecall,
      perIndexRecall: result.perIndex.map((column) => column.recall),
    },
    'playground result',
  );
  return result;
}

export function formatRecall(r: PlaygroundRecall, k: number): string {
  return `recall@${k} ${r.recall.toFixed(2)} (${r.found}/${r.total})`;
}

/** Scores span BM25 (~0-20), cosines, rrf (~0.01) and positions; 3 significant digits fit all. */
export function formatScore(score: number): string {
  if (!Number.isFinite(score)) return String(score);
  if (score === 0) return '0';
  const abs = Math.abs(score);
  if (abs >= 1000) return score.toFixed(0);
  return Number(score.toPrecision(3)).toString();
}

/** A hit's words without the `Speaker: ` prefix every turn document carries (shown apart). */
export function hitBody(hit: Pick<PlaygroundHit, 'speaker' | 'text'>): string {
  const prefix = hit.speaker ? `${hit.speaker}: ` : null;
  return prefix !== null && hit.text.startsWith(prefix) ? hit.text.slice(prefix.length) : hit.text;
}

/** `text #1 · vector #4`: where a fused hit came from. */
export function contributionText(contributions: readonly FusionContribution[]): string {
  return contributions.map((c) => `${c.index} #${c.rank}`).join(' · ');
}
