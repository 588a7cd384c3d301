import {
  apiMethods,
  isApiName,
  type ApiHandlers,
  type ApiName,
  type ApiOutput,
  type ApiParsedInput,
} from '../../src-shared/api';
import { toErrorPayload, zodError, type Result } from '../../src-shared/errors';

/**
 * Validates a call that crossed a boundary (IPC or HTTP) against the contract and runs it.
 * Never throws: transports send the Result as it is.
 */
export function dispatch(
  handlers: ApiHandlers,
  name: unknown,
  rawInput: unknown,
): Promise<Result<unknown>> {
  return validated(name, rawInput, (method, input) => callHandler(handlers, method, input));
}

/**
 * An API output already serialised as UTF-8 JSON where it was computed (the runs read worker), so
 * the main thread neither receives nor stringifies the objects. `T` is the output it encodes.
 */
export type JsonBytes<T> = Uint8Array & { readonly __output?: T };

/** Handlers that return their output as JSON bytes: the same methods, inputs and outputs. */
export type SerializedHandlers = Partial<{
  [K in ApiName]: (input: ApiParsedInput<K>) => Promise<JsonBytes<ApiOutput<K>>>;
}>;

/** A whole reply body for a byte transport (HTTP): the Result's JSON, in pieces to write in order. */
export interface JsonReply {
  result: Result<unknown> | { ok: true };
  body: Array<string | Uint8Array>;
}

/**
 * `dispatch` for transports that send JSON text: a method with a serialised handler is answered
 * with its bytes spliced into the Result envelope unchanged; any other method as `dispatch` does.
 */
export async function dispatchJson(
  handlers: ApiHandlers,
  serialized: SerializedHandlers,
  name: unknown,
  rawInput: unknown,
): Promise<JsonReply> {
  if (isApiName(name) && serialized[name] !== undefined) {
    const result = await validated(name, rawInput, (method, input) =>
      callSerialized(serialized, method, input),
    );
    if (result.ok) return { result: { ok: true }, body: ['{"ok":true,"data":', result.data, '}'] };
    return { result, body: [JSON.stringify(result)] };
  }
  const result = await dispatch(handlers, name, rawInput);
  return { result, body: [JSON.stringify(result)] };
}

async function validated<T>(
  name: unknown,
  rawInput: unknown,
  call: (name: ApiName, input: unknown) => Promise<T>,
): Promise<Result<T>> {
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
    return { ok: true, data: await call(name, parsed.data) };
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

function callSerialized<K extends ApiName>(
  serialized: SerializedHandlers,
  name: K,
  input: unknown,
): Promise<Uint8Array> {
  const handler = serialized[name] as (input: unknown) => Promise<Uint8Array>;
  return handler(input);
}
