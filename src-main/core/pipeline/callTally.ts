import type { LlmCallRecord } from '../../../src-shared/runs';

/**
 * A run's call-ledger deltas summed by role and model until they are written together: a write
 * transaction per request cost the main thread more than the request itself at low latency. The
 * runner drains it at the next turn of the event loop after a call is reported and before each
 * test commits, so a burst is one write and a kill -9 loses no count the old per-call write kept
 * (a timer of a second lost that second's calls, and recorded != received after a resume).
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
