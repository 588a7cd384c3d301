import { describe, expect, it } from 'vitest';
import type { LlmCallRecord } from '../../../src-shared/runs';
import { CallFiler, CallTally } from './callTally';

describe('CallTally', () => {
  it('sums deltas per role and model, and drains to empty', () => {
    const tally = new CallTally();
    const sent = { calls: 1, failures: 0, promptTokens: 0, completionTokens: 0 };
    tally.add({ role: 'answer', model: 'm', ...sent });
    tally.add({
      role: 'answer',
      model: 'm',
      ...sent,
      calls: 0,
      promptTokens: 10,
      completionTokens: 2,
    });
    tally.add({ role: 'answer', model: 'n', ...sent, failures: 1 });
    tally.add({ role: 'memory', model: 'm', ...sent });
    expect(tally.drain()).toEqual([
      { role: 'answer', model: 'm', calls: 1, failures: 0, promptTokens: 10, completionTokens: 2 },
      { role: 'answer', model: 'n', calls: 1, failures: 1, promptTokens: 0, completionTokens: 0 },
      { role: 'memory', model: 'm', calls: 1, failures: 0, promptTokens: 0, completionTokens: 0 },
    ]);
    expect(tally.drain()).toEqual([]);
  });
});

describe('CallFiler', () => {
  const call = { role: 'answer' as const, model: 'm', calls: 1, failures: 0 };
  const tokens = { promptTokens: 1, completionTokens: 1 };

  it('writes the calls of one turn of the event loop as one batch, at the next turn', async () => {
    const writes: LlmCallRecord[][] = [];
    const filer = new CallFiler((records) => writes.push(records));
    filer.record({ ...call, ...tokens });
    filer.record({ ...call, ...tokens });
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual([[{ ...call, calls: 2, promptTokens: 2, completionTokens: 2 }]]);
  });

  it('flush writes what is pending now; close leaves no write scheduled', async () => {
    const writes: LlmCallRecord[][] = [];
    const filer = new CallFiler((records) => writes.push(records));
    filer.record({ ...call, ...tokens });
    filer.flush();
    expect(writes).toEqual([[{ ...call, ...tokens }]]);
    filer.record({ ...call, ...tokens, model: 'n' });
    filer.close();
    expect(writes).toHaveLength(2);
    await new Promise((resolve) => setImmediate(resolve));
    // The scheduled write was cancelled: nothing more after close.
    expect(writes).toHaveLength(2);
  });
});
