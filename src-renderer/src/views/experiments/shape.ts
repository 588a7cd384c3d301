import {
  apiMethods,
  type ApiInput,
  type DatasetSummary,
  type ExperimentEstimate,
  type MemoryPresetInfo,
} from '@shared/api';
import { DESIGNED_PRESET, type SavedDesign } from '@shared/designs';
import { WINK_EMBEDDER, type EmbedderChoice } from '@shared/embedders';
import type { ErrorPayload } from '@shared/errors';
import { ExperimentConfigSchema } from '@shared/experiment/config';
import { numberBoundsAt, type NumberBounds } from '@shared/schemaBounds';
import { formatCount as count } from '../../lib/format';

/** Pure helpers of the Experiments view: time formatting and the run form's choices. */

/** "mm:ss" (minutes not capped at 59 below an hour), "h:mm:ss" from an hour; "—" when unknown. */
export function formatEta(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return '—';
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = String(m).padStart(2, '0');
  const ss = String(s).padStart(2, '0');
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

export function percent(fraction: number): number {
  return Math.round(Math.max(0, Math.min(1, fraction)) * 100);
}

/** One entry of the run form's memory list: a built-in preset or a saved collection design. */
export interface MemoryOption {
  /** The preset's name, or `design:<name>` for a saved design: the select's value. */
  value: string;
  label: string;
  /** What the choice does with a memory LLM; null: it uses none. */
  llmStage: string | null;
  /** It cannot run without a memory LLM: the form asks for one. */
  requiresLlm: boolean;
  /** Whether the run form offers an embedder for it (a design names one per vector index). */
  embedder: boolean;
}

/**
 * The presets (but `designed`, which only makes sense with a design as its config), then every
 * saved design (Collections view), run as the `designed` preset.
 */
export function memoryOptions(
  presets: readonly MemoryPresetInfo[] | undefined,
  designs: readonly SavedDesign[] | undefined,
): MemoryOption[] {
  return [
    ...(presets ?? [])
      .filter((p) => p.name !== DESIGNED_PRESET)
      .map((p) => ({
        value: p.name,
        label: `${p.name}${p.isDefault ? ' (default)' : ''}`,
        llmStage: p.llmStage,
        requiresLlm: p.requiresLlm === true,
        embedder: p.embedder,
      })),
    ...(designs ?? []).map((d) => ({
      value: `design:${d.design.name}`,
      label: `design: ${d.design.name}`,
      llmStage: null,
      requiresLlm: false,
      embedder: false,
    })),
  ];
}

/** The experiment's `memory` for a memory-list value; null when it names nothing listed. */
/** Your own memory service over the memory protocol; the form asks for its URL. */
export const EXTERNAL_PRESET = 'external';

export function memoryFor(
  value: string,
  presets: readonly MemoryPresetInfo[] | undefined,
  designs: readonly SavedDesign[] | undefined,
): { preset: string; config: Record<string, unknown> } | null {
  if (value.startsWith('design:')) {
    const name = value.slice('design:'.length);
    const saved = designs?.find((d) => d.design.name === name);
    return saved ? { preset: DESIGNED_PRESET, config: { ...saved.design } } : null;
  }
  return presets?.some((p) => p.name === value && value !== DESIGNED_PRESET)
    ? { preset: value, config: {} }
    : null;
}

/** The memory with the embedder chosen in the form; the offline default is left to the preset. */
export function withEmbedder(
  memory: { preset: string; config: Record<string, unknown> },
  embedder: EmbedderChoice | null,
): { preset: string; config: Record<string, unknown> } {
  return embedder === null || embedder === WINK_EMBEDDER
    ? memory
    : { ...memory, config: { ...memory.config, embedder } };
}

/** The preset the engine marks as default, else the first; null while none is listed. */
export function defaultPreset(presets: readonly MemoryPresetInfo[] | undefined): string | null {
  if (!presets || presets.length === 0) return null;
  return (presets.find((p) => p.isDefault) ?? presets[0])?.name ?? null;
}

/** 1..cores: more workers than cores only makes samples wait on each other. */
export function parallelChoices(cores: number | undefined, samples: number): number[] {
  const max = Math.max(1, Math.min(cores && cores > 0 ? cores : 1, Math.max(1, samples)));
  return Array.from({ length: max }, (_, i) => i + 1);
}

/**
 * The samples to send: undefined means "every sample" (the engine's default), which keeps the
 * run's config short and its meaning exact when every box is ticked.
 */
export function samplesToRun(
  dataset: Pick<DatasetSummary, 'stats'>,
  chosen: ReadonlySet<string>,
): string[] | undefined {
  const all = dataset.stats.samples.map((s) => s.sampleId);
  const picked = all.filter((id) => chosen.has(id));
  return picked.length === all.length ? undefined : picked;
}

/** Number input text to an integer in range, or null when it is not one. */
export function parseIntInRange(text: string, min: number, max: number): number | null {
  if (!/^-?\d+$/.test(text.trim())) return null;
  const n = Number(text.trim());
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : null;
}

const configBounds = (...path: string[]): NumberBounds =>
  numberBoundsAt(ExperimentConfigSchema, path);
const timeoutMsBounds = configBounds('timeouts', 'insertMs');

/**
 * The run form's number fields with the bounds the config schema gives them, so the form offers
 * what the engine takes. Timeouts are asked in whole seconds, as a person thinks of them: the
 * schema's millisecond bounds, rounded inwards.
 */
export const RUN_FORM_BOUNDS = {
  topK: configBounds('retrieval', 'topK'),
  judgeRepeats: configBounds('judge', 'repeats'),
  concurrency: configBounds('concurrency'),
  timeoutSeconds: {
    min: Math.max(1, Math.ceil(timeoutMsBounds.min / 1000)),
    max: Math.floor(timeoutMsBounds.max / 1000),
    int: true,
  },
} as const satisfies Record<string, NumberBounds>;

/** Number input text to a whole number within the field's bounds, or null when it is not one. */
export function parseIntIn(text: string, bounds: NumberBounds): number | null {
  return parseIntInRange(text, bounds.min, bounds.max);
}

/**
 * Number input text to a whole number, or null when it is not one. Its range is the schema's to
 * judge (runFormIssues), so the message beside the field is the one the engine would give.
 */
export function parseWholeNumber(text: string): number | null {
  return parseIntInRange(text, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
}

/** The run form's fields that show an error inline, by the first segment of its path. */
export const RUN_FORM_FIELDS = [
  'samples',
  'memory',
  'answerer',
  'judge',
  'concurrency',
  'retrieval',
  'seed',
  'timeouts',
] as const;
export type RunFormField = (typeof RUN_FORM_FIELDS)[number];

/**
 * Which form field an engine error belongs to (`memory.config.topK` → memory), so the form shows
 * it beside that field; null for errors without a path the form has (they show below the form).
 */
export function runFormFieldOf(error: Pick<ErrorPayload, 'path'> | null): RunFormField | null {
  const head = error?.path?.[0];
  return RUN_FORM_FIELDS.find((field) => field === head) ?? null;
}

/** The form's fields with what the schema says of each; `form` holds what no field shows. */
export type RunFormIssues = Partial<Record<RunFormField | 'form', string[]>>;

/**
 * What the schema the engine checks a run with says of the run the form would send, by field
 * (an endpoint's temperature the mem0 judge refuses, a bound): the form shows each beside its
 * field before anything is sent. Empty when the run passes.
 */
export function runFormIssues(input: ApiInput<'experiments.start'>): RunFormIssues {
  const parsed = apiMethods['experiments.start'].input.safeParse(input);
  const issues: RunFormIssues = {};
  if (parsed.success) return issues;
  for (const issue of parsed.error.issues) {
    const path = issue.path.map(String);
    const field = runFormFieldOf({ path }) ?? 'form';
    const message = path.length > 0 ? `${path.join('.')}: ${issue.message}` : issue.message;
    (issues[field] ??= []).push(message);
  }
  return issues;
}

/** Samples of the file the loader refused (their ids may repeat a valid one's), by file position. */
export function invalidSampleCount(dataset: Pick<DatasetSummary, 'problems'>): number {
  const indices = new Set<number>();
  for (const p of dataset.problems) {
    if (p.severity === 'error' && p.sampleIndex !== null) indices.add(p.sampleIndex);
  }
  return indices.size;
}

/** The preset config editor's text as a JSON object, or why it is not one. */
export function parseConfigText(
  text: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } {
  let value: unknown;
  try {
    value = JSON.parse(text.trim() === '' ? '{}' : text);
  } catch (error) {
    return {
      ok: false,
      message: `not JSON: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, message: 'must be a JSON object, e.g. {"candidates": 50}' };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** The run form's estimate line: what the planned run will ask of its LLM endpoints. */
export function estimateLine(estimate: ExperimentEstimate): string {
  const calls = estimate.answerCalls + estimate.judgeCalls;
  if (calls === 0) return `no LLM calls (${count(estimate.questions)} answers, extractive)`;
  const tokens = estimate.promptTokens + estimate.completionTokens;
  const cost =
    estimate.cost === null
      ? 'cost unknown: set prices in Models'
      : // A one-sample run costs fractions of a cent: show its first digits, not "$0.00".
        `$${estimate.cost >= 0.01 || estimate.cost === 0 ? estimate.cost.toFixed(2) : estimate.cost.toPrecision(2)}`;
  return (
    `≈ ${count(calls)} LLM calls (${count(estimate.answerCalls)} answer + ` +
    `${count(estimate.judgeCalls)} judge), ~${count(tokens)} tokens, ${cost}`
  );
}
