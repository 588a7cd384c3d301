import { z } from 'zod';
import { WorkbenchError, formatPath } from '../../../src-shared/errors';
import type { RetrievedRef } from '../../../src-shared/experiment';
import {
  LLM_CALL_ROLES,
  RunManifestSchema,
  checkManifestVersion,
  type RoleWireShape,
  type RunManifest,
} from '../../../src-shared/runs';

/**
 * Reading the runs DB's JSON columns through schemas: a value this build cannot read fails with
 * RUNS_DB naming the file, the row and the column, never as a wrong-typed object deep in a view.
 */
export function parseStoredJson<S extends z.ZodType>(
  schema: S,
  text: string,
  where: string,
): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new WorkbenchError(
      'RUNS_DB',
      `${where}: not valid JSON (${error instanceof Error ? error.message : String(error)})`,
      { where },
    );
  }
  return checkStored(schema, value, where);
}

export function checkStored<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: string,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = (issue?.path ?? []).map((p) => (typeof p === 'symbol' ? String(p) : p));
  throw new WorkbenchError(
    'RUNS_DB',
    `${where}: ${formatPath(path)}: ${issue?.message ?? 'invalid'}`,
    {
      where,
    },
  );
}

export const RetrievedSchema = z.array(
  z.object({
    id: z.string(),
    diaId: z.string().nullable(),
    score: z.number(),
    context: z.array(z.string()).optional(),
    diaIds: z.array(z.string()).optional(),
    text: z.string().optional(),
  }),
) satisfies z.ZodType<RetrievedRef[]>;
export const JudgeLabelsSchema = z.array(z.number());

/**
 * `retrieved` is read for every answer of every test (11,515 on a full LoCoMo run), so the common
 * case is checked by hand; anything off goes through the schema for its precise error.
 */
export function parseRetrieved(text: string, where: string): RetrievedRef[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return parseStoredJson(RetrievedSchema, text, where);
  }
  const wellFormed =
    Array.isArray(value) &&
    value.every(
      (ref: unknown) =>
        ref !== null &&
        typeof ref === 'object' &&
        typeof (ref as { id?: unknown }).id === 'string' &&
        (typeof (ref as { diaId?: unknown }).diaId === 'string' ||
          (ref as { diaId?: unknown }).diaId === null) &&
        typeof (ref as { score?: unknown }).score === 'number' &&
        isOptionalStringList((ref as { context?: unknown }).context) &&
        isOptionalStringList((ref as { diaIds?: unknown }).diaIds) &&
        ['undefined', 'string'].includes(typeof (ref as { text?: unknown }).text),
    );
  return wellFormed ? (value as RetrievedRef[]) : checkStored(RetrievedSchema, value, where);
}
export const StringListSchema = z.array(z.string());

function isOptionalStringList(value: unknown): boolean {
  return value === undefined || (Array.isArray(value) && value.every((v) => typeof v === 'string'));
}

/** A stored manifest: version checked first (absent = 1, newer refused), then the schema. */
export function parseManifest(file: string, runId: string, text: string): RunManifest {
  const where = `runs database ${file}: run ${runId} manifest`;
  const value = parseStoredJson(z.unknown(), text, where);
  checkManifestVersion(value, where);
  const versioned =
    value !== null && typeof value === 'object' ? { manifestVersion: 1, ...value } : value;
  return checkStored(RunManifestSchema, versioned, where);
}

const RequestShapeRowSchema = z.object({
  role: z.enum(LLM_CALL_ROLES),
  step: z.string(),
  params: z.string(),
});

/** A row of `llm_request_shapes`: its role checked, its params read as the JSON object filed. */
export function parseRequestShape(file: string, runId: string, row: unknown): RoleWireShape {
  const where = `runs database ${file}: run ${runId}: llm_request_shapes`;
  const { role, step, params } = checkStored(RequestShapeRowSchema, row, where);
  return {
    role,
    step,
    params: parseStoredJson(z.record(z.string(), z.unknown()), params, `${where}.params`),
  };
}
