import { WorkbenchError } from '../../src-shared/errors';

/**
 * Runs `fn` with a deadline. On timeout the call's AbortSignal fires (a well-behaved service stops)
 * and the returned promise rejects with a TIMEOUT error at once, whether or not `fn` honours the
 * signal: a hung call must not hang the run. A synchronous throw becomes a rejection.
 */
export async function withTimeout<T>(
  what: string,
  ms: number,
  fn: (signal: AbortSignal) => Promise<T>,
  /** The caller's cancel (a run's): aborts the call too, with a CANCELLED error. */
  parent?: AbortSignal,
): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onParentAbort: (() => void) | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new WorkbenchError('TIMEOUT', `${what} timed out after ${ms} ms`);
      controller.abort(error);
      reject(error);
    }, ms);
    onParentAbort = () => {
      const error = new WorkbenchError('CANCELLED', `${what}: cancelled`);
      controller.abort(error);
      reject(error);
    };
    if (parent?.aborted) onParentAbort();
    else parent?.addEventListener('abort', onParentAbort, { once: true });
  });
  try {
    return await Promise.race([Promise.resolve().then(() => fn(controller.signal)), deadline]);
  } finally {
    clearTimeout(timer);
    if (onParentAbort) parent?.removeEventListener('abort', onParentAbort);
  }
}

/** A one-line description of anything thrown, for answer rows and logs. */
export function describeError(error: unknown): string {
  if (error instanceof WorkbenchError) return `${error.code}: ${error.message}`;
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
