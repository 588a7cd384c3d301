import type { ApiHandlers, ApiName, ApiOutput, ApiParsedInput } from '../../src-shared/api';
import { WorkbenchError } from '../../src-shared/errors';

/**
 * The service is one handler map per domain (datasets, experiments, runs, designs, models,
 * reproduce ...), each declared beside its engine and merged by spreading (service.ts); the
 * guards several methods share are wrappers here, written once.
 */

/** The API methods of the domains `D`: those named `<domain>.<method>`. */
export type DomainMethod<D extends string> = Extract<ApiName, `${D}.${string}`>;

/**
 * The handlers of the domains `D`, one for every method they name: a method the contract gains
 * fails the type check of its domain's map until it has a handler.
 */
export type DomainHandlers<D extends string> = Pick<ApiHandlers, DomainMethod<D>>;

/** A handler for each of `methods` that hands its call to `call` (the runs read pool, say). */
export function handlersVia<M extends ApiName>(
  methods: readonly M[],
  call: <K extends M>(method: K, input: ApiParsedInput<K>) => Promise<ApiOutput<K>>,
): Pick<ApiHandlers, M> {
  // Object.fromEntries forgets which key holds which method's handler; `call` keeps them paired.
  return Object.fromEntries(
    methods.map((method) => [method, (input: ApiParsedInput<M>) => call(method, input)]),
  ) as Pick<ApiHandlers, M>;
}

/**
 * `handler`, refused with CONFLICT (naming `runId`) while the run its input names is running;
 * `refusal` says why, for the message.
 */
export function unlessRunning<I extends { runId: string }, O>(
  isRunning: (runId: string) => boolean,
  refusal: (runId: string) => string,
  handler: (input: I) => Promise<O>,
): (input: I) => Promise<O> {
  return async (input) => {
    if (isRunning(input.runId)) {
      throw new WorkbenchError('CONFLICT', refusal(input.runId), { path: ['runId'] });
    }
    return handler(input);
  };
}
