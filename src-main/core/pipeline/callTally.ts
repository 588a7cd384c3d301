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
    if (record.cacheHits) sum.cacheHits = (sum.cacheHits ?? 0) + record.cacheHits;
    if (record.cacheMisses) sum.cacheMisses = (sum.cacheMisses ?? 0) + record.cacheMisses;
    // The store files each shape once; the tally only keeps them until then.
    if (record.shapes?.length) sum.shapes = [...(sum.shapes ?? []), ...record.shapes];
  }

  /** The sums so far, one per role and model, and an empty tally. */
  drain(): LlmCallRecord[] {
    const records = [...this.pending.values()];
    this.pending.clear();
    return records;
  }
}

/**
 * A run's calls filed through `write` in batches: at the next turn of the event loop after a call
 * is reported (a burst is one write), and whenever `flush` is called (before a test commits).
 */
export class CallFiler {
  private readonly tally = new CallTally();
  private scheduled: NodeJS.Immediate | null = null;

  constructor(private readonly write: (records: LlmCallRecord[]) => void) {}

  record(record: LlmCallRecord): void {
    this.tally.add(record);
    this.scheduled ??= setImmediate(() => {
      this.scheduled = null;
      this.flush();
    });
  }

  flush(): void {
    this.write(this.tally.drain());
  }

  /** The run's end: what is pending is written now, and no write is left scheduled. */
  close(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.flush();
  }
}
