import type { LlmCallRecord } from '../../../src-shared/runs';

/**
 * A run's call-ledger deltas summed by role and model until they are written together: a write
 * transaction per request cost the main thread more than the request itself at low latency. The
 * runner drains it before each test commits and on a short timer, so a kill loses at most that
 * interval's counts and never a committed test's.
 */
export class CallTally {
  private readonly pending = new Map<string, LlmCallRecord>();

  add(record: LlmCallRecord): void {
    const key = `${record.role}\u0000${record.model}`;
    const sum = this.pending.get(key);
    if (!sum) {
      this.pending.set(key, { ...record });
      return;
    }
    sum.calls += record.calls;
    sum.failures += record.failures;
    sum.promptTokens += record.promptTokens;
    sum.completionTokens += record.completionTokens;
  }

  /** The sums so far, one per role and model, and an empty tally. */
  drain(): LlmCallRecord[] {
    const records = [...this.pending.values()];
    this.pending.clear();
    return records;
  }
}
