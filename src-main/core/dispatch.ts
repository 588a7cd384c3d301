import {
  apiMethods,
  isApiName,
  type ApiHandlers,
  type ApiName,
  type ApiOutput,
} from '../../src-shared/api';
import { toErrorPayload, zodError, type Result } from '../../src-shared/errors';

/**
 * Validates a call that crossed a boundary (IPC or HTTP) against the contract and runs it.
 * Never throws: transports send the Result as it is.
 */
export async function dispatch(
  handlers: ApiHandlers,
  name: unknown,
  rawInput: unknown,
): Promise<Result<unknown>> {
  if (!isApiName(name)) {
    return {
      ok: false,
      error: { code: 'NOT_FOUND', message: `API: unknown method ${JSON.stringify(name)}` },
    };
  }
  const parsed = apiMethods[name].input.safeParse(rawInput ?? {});
  if (!parsed.success) {
    return { ok: false, error: zodError(parsed.error, `API ${name} input`).toPayload() };
  }
  try {
    const data = await callHandler(handlers, name, parsed.data);
    return { ok: true, data };
  } catch (error) {
    return { ok: false, error: toErrorPayload(error) };
  }
}

function callHandler<K extends ApiName>(
  handlers: ApiHandlers,
  name: K,
  input: unknown,
): Promise<ApiOutput<K>> {
  const handler = handlers[name] as (input: unknown) => Promise<ApiOutput<K>>;
  return handler(input);
}
