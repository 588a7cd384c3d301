import { z } from 'zod';
import { WorkbenchError } from './errors';

/**
 * The bounds a number schema accepts, read from the schema itself, so a form that offers the
 * field states the rule the schema enforces instead of a copy of it.
 */
export interface NumberBounds {
  /** Smallest accepted value (for a whole number with an exclusive bound, the next one). */
  min: number;
  max: number;
  /** Whole numbers only. */
  int: boolean;
}

/** Wrappers that keep the value's type: what a field's schema is inside them. */
function unwrap(schema: z.ZodType): z.ZodType {
  let inner = schema;
  for (;;) {
    if (
      inner instanceof z.ZodDefault ||
      inner instanceof z.ZodPrefault ||
      inner instanceof z.ZodOptional ||
      inner instanceof z.ZodNullable
    ) {
      inner = inner.unwrap() as z.ZodType;
    } else {
      return inner;
    }
  }
}

/**
 * The bounds of the number field at `path` of an object schema (through defaults, optionals and
 * prefaults): `numberBoundsAt(ExperimentConfigSchema, ['retrieval', 'topK'])` is 1..1000.
 */
export function numberBoundsAt(schema: z.ZodType, path: readonly string[]): NumberBounds {
  let field = unwrap(schema);
  for (const key of path) {
    const shape: Record<string, z.ZodType> | undefined =
      field instanceof z.ZodObject ? (field.shape as Record<string, z.ZodType>) : undefined;
    const next = shape?.[key];
    if (next === undefined) {
      throw new WorkbenchError(
        'INTERNAL',
        `numberBoundsAt: no field ${path.join('.')} in the schema`,
      );
    }
    field = unwrap(next);
  }
  if (!(field instanceof z.ZodNumber)) {
    throw new WorkbenchError('INTERNAL', `numberBoundsAt: ${path.join('.')} is not a number`);
  }
  const int = field.isInt;
  let min = field.minValue ?? -Infinity;
  let max = field.maxValue ?? Infinity;
  // minValue/maxValue do not say whether a bound is exclusive (`positive()` is > 0): ask the
  // schema, and for whole numbers step to the first value it takes.
  if (int && Number.isFinite(min) && !field.safeParse(min).success) min += 1;
  if (int && Number.isFinite(max) && !field.safeParse(max).success) max -= 1;
  return { min, max, int };
}
