import type { z } from 'zod';

/**
 * Stable error codes. They cross every boundary (worker messages, IPC, HTTP) as plain data, so
 * callers branch on `code`, never on message text.
 */
export const ERROR_CODES = [
  'INVALID_INPUT',
  /** No or a wrong credential (HTTP 401): the browser-mode token. */
  'UNAUTHORIZED',
  /** Known caller, refused action (HTTP 403): a foreign Host or Origin, a path outside the allowed folders. */
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'DATASET_INVALID',
  'DATASET_TOO_LARGE',
  'COLLECTION',
  'RUNS_DB',
  /** The runs database file is damaged; `cli runs repair` copies what is readable to a new one. */
  'RUNS_DB_CORRUPT',
  'TIMEOUT',
  'CANCELLED',
  /** Too much work queued already (a bounded queue is full); retry later. */
  'BUSY',
  'UPSTREAM',
  /** The operating system refused a read or write: permissions, a full disk, a closed pipe. */
  'IO',
  /** An LLM or embeddings endpoint sent a reply body larger than the client's cap. */
  'LLM_REPLY_TOO_LARGE',
  /** A run's memory stored nothing from the turns it was given: its scores would mean nothing. */
  'MEMORY_EMPTY',
  'INTERNAL',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export type ErrorPath = ReadonlyArray<string | number>;

/** The serialisable shape of an error: what survives structured clone and JSON. */
export interface ErrorPayload {
  code: ErrorCode;
  message: string;
  /** For input errors: where the bad value is (JSON path segments). */
  path?: ErrorPath;
  /** Human context: a file, a sample id, a collection name. */
  where?: string;
}

export class WorkbenchError extends Error {
  readonly code: ErrorCode;
  readonly path: ErrorPath | undefined;
  readonly where: string | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { path?: ErrorPath; where?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'WorkbenchError';
    this.code = code;
    this.path = options.path;
    this.where = options.where;
  }

  toPayload(): ErrorPayload {
    return {
      code: this.code,
      message: this.message,
      ...(this.path ? { path: [...this.path] } : {}),
      ...(this.where ? { where: this.where } : {}),
    };
  }

  static fromPayload(payload: ErrorPayload): WorkbenchError {
    return new WorkbenchError(payload.code, payload.message, {
      ...(payload.path ? { path: payload.path } : {}),
      ...(payload.where ? { where: payload.where } : {}),
    });
  }
}

/** Converts anything thrown into a payload; unknown errors become INTERNAL with their message. */
export function toErrorPayload(error: unknown): ErrorPayload {
  if (error instanceof WorkbenchError) return error.toPayload();
  if (error instanceof Error) return { code: 'INTERNAL', message: error.message };
  return { code: 'INTERNAL', message: String(error) };
}

export type Result<T> = { ok: true; data: T } | { ok: false; error: ErrorPayload };

/** `a.b[3].c` style rendering of a path, for messages a person reads. */
export function formatPath(path: ErrorPath): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out === '' ? '(root)' : out;
}

/** Turns the first zod issue into an INVALID_INPUT error that names what was wrong and where. */
export function zodError(
  error: z.ZodError,
  what: string,
  basePath: ErrorPath = [],
): WorkbenchError {
  const issue = error.issues[0];
  const path: Array<string | number> = [...basePath];
  for (const segment of issue?.path ?? []) {
    path.push(typeof segment === 'symbol' ? String(segment) : segment);
  }
  const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more problems)` : '';
  return new WorkbenchError(
    'INVALID_INPUT',
    `${what}: ${formatPath(path)}: ${issue?.message ?? 'invalid'}${more}`,
    { path, where: what },
  );
}

/** Parses with a zod schema or throws an INVALID_INPUT WorkbenchError naming `what`. */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw zodError(result.error, what);
  return result.data;
}
