import { describe, expect, it } from 'vitest';
import type { ApiOutput, ApiParsedInput } from '../../src-shared/api';
import { WorkbenchError } from '../../src-shared/errors';
import { handlersVia, unlessRunning } from './handlers';

describe('handler guards', () => {
  it('unlessRunning refuses a running run with CONFLICT naming runId, and passes any other through', async () => {
    const calls: string[] = [];
    const guarded = unlessRunning(
      (runId) => runId === 'busy',
      (runId) => `run ${runId} is running; cancel it first`,
      async ({ runId }: { runId: string }) => {
        calls.push(runId);
        return { deleted: true };
      },
    );
    const refusal = await guarded({ runId: 'busy' }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(WorkbenchError);
    expect(refusal).toMatchObject({
      code: 'CONFLICT',
      message: 'run busy is running; cancel it first',
      path: ['runId'],
    });
    expect(await guarded({ runId: 'idle' })).toEqual({ deleted: true });
    // The refused call never reached the handler.
    expect(calls).toEqual(['idle']);
  });

  it('handlersVia gives each method a handler that passes its own name and input on', async () => {
    const seen: Array<[string, unknown]> = [];
    const handlers = handlersVia(['runs.get', 'sweeps.list'], async (method, input) => {
      seen.push([method, input]);
      return {} as ApiOutput<typeof method>;
    });
    expect(Object.keys(handlers).sort()).toEqual(['runs.get', 'sweeps.list']);
    await handlers['runs.get']({ runId: 'r1' } as ApiParsedInput<'runs.get'>);
    await handlers['sweeps.list']({});
    expect(seen).toEqual([
      ['runs.get', { runId: 'r1' }],
      ['sweeps.list', {}],
    ]);
  });
});
