import { z } from 'zod';

/**
 * The pieces every index kind's face builds its design schema and its form from: zod fields whose
 * messages read after a path (`indexes[2].capacity: must be >= 1`), and the form's field
 * descriptions, whose number bounds are read from those same schemas so the inputs and the
 * validation agree.
 */

/** Index names become file names in the collection (`<index>.hnsw`): a portable alphabet. */
export const DESIGN_INDEX_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export function num(min: number, max: number) {
  return z
    .number({ error: 'must be a number' })
    .min(min, `must be >= ${min}`)
    .max(max, `must be <= ${max}`);
}
export function int(min: number, max: number) {
  return num(min, max).int('must be a whole number');
}
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: `must be one of ${values.join(', ')}` });
}
export const flag = z.boolean({ error: 'must be true or false' });

export const designIndexName = z
  .string({ error: 'must be a text' })
  .regex(DESIGN_INDEX_NAME_PATTERN, 'must be 1-64 letters, digits, _ or -');
/** A reference to another index; '' is allowed by the field and rejected by the cross-field check. */
export const designIndexRef = z
  .string({ error: 'must be an index name' })
  .max(64, 'must be an index name');

export interface NumberBounds {
  min: number;
  max: number;
  integer: boolean;
}

export type FieldSpec =
  | {
      key: string;
      label: string;
      kind: 'number';
      bounds: NumberBounds;
      step: number;
      hint?: string;
    }
  | { key: string; label: string; kind: 'select'; options: readonly string[]; hint?: string }
  | { key: string; label: string; kind: 'bool'; hint?: string }
  /** The offline embedder or a saved OpenAI-compatible endpoint (Models view). */
  | { key: string; label: string; kind: 'embedder'; hint?: string }
  /** Another index of the design, of one of these types. */
  | { key: string; label: string; kind: 'index'; types: readonly string[]; hint?: string };

interface NumberCheckBag {
  minValue?: number | null;
  maxValue?: number | null;
  isInt?: boolean;
}

/** The schema under `.default()`, `.prefault()` and `.optional()` wrappers. */
function unwrapped(schema: z.ZodType): unknown {
  let inner: unknown = schema;
  for (let i = 0; i < 4; i++) {
    const def = (inner as { def?: { type?: string; innerType?: unknown } }).def;
    if (def?.type === 'default' || def?.type === 'prefault' || def?.type === 'optional') {
      inner = def.innerType;
    } else break;
  }
  return inner;
}

/** min/max/int of a (possibly defaulted) zod number schema: the editor's inputs use the schema's. */
export function numberBounds(schema: z.ZodType): NumberBounds {
  const bag = unwrapped(schema) as NumberCheckBag;
  return {
    min: bag.minValue ?? Number.NEGATIVE_INFINITY,
    max: bag.maxValue ?? Number.POSITIVE_INFINITY,
    integer: bag.isInt === true,
  };
}

/** `shape[key]`, or an error naming the missing key (a face's field list names a schema key). */
function fieldSchema(shape: Record<string, z.ZodType>, key: string): z.ZodType {
  const schema = shape[key];
  if (!schema) throw new Error(`no schema field ${key}`);
  return schema;
}

/** A number input for `shape[key]`, its bounds and step read from the schema. */
export function numberField(
  shape: Record<string, z.ZodType>,
  key: string,
  label: string,
  hint?: string,
): FieldSpec {
  const bounds = numberBounds(fieldSchema(shape, key));
  const step = bounds.integer ? 1 : bounds.max <= 1 ? 0.05 : 0.1;
  return { key, label, kind: 'number', bounds, step, ...(hint === undefined ? {} : { hint }) };
}

/** A select input offering the options of the (possibly defaulted) enum `shape[key]`. */
export function selectField(
  shape: Record<string, z.ZodType>,
  key: string,
  label: string,
  hint?: string,
): FieldSpec {
  const options = (unwrapped(fieldSchema(shape, key)) as { options?: unknown }).options;
  if (!Array.isArray(options) || !options.every((o) => typeof o === 'string')) {
    throw new Error(`schema field ${key} is not an enum`);
  }
  return { key, label, kind: 'select', options, ...(hint === undefined ? {} : { hint }) };
}
