import { describe, expect, it } from 'vitest';
import { CallTally } from './callTally';

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
