import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ReportOutbox, type WorkerReport } from './protocol';

const log = (message: string): WorkerReport => ({ type: 'log', level: 'info', message });
const test = (testIndex: number): WorkerReport => ({
  type: 'test-result',
  test: {
    sampleId: 's',
    testIndex,
    packetIdx: 0,
    dialogsInserted: 0,
    visibleCount: 0,
    questionIndices: [],
    answers: [],
  },
});

describe('ReportOutbox', () => {
  let clock = 0;
  let sent: WorkerReport[][];
  let outbox: ReportOutbox;
  beforeEach(() => {
    vi.useFakeTimers();
    clock = 0;
    sent = [];
    outbox = new ReportOutbox(
      (reports) => sent.push(reports),
      25,
      () => clock,
    );
  });
  afterEach(() => vi.useRealTimers());

  it('sends the reports of 25 ms as one batch, in order', () => {
    for (let i = 0; i < 100; i++) {
      outbox.add(log(`r${i}`));
      clock += 0.2; // 100 reports in 20 ms: one batch
    }
    expect(sent).toEqual([]);
    clock = 25;
    outbox.add(log('r100')); // the first report is now 25 ms old
    expect(sent).toHaveLength(1);
    expect(sent[0]?.map((r) => (r.type === 'log' ? r.message : ''))).toEqual(
      Array.from({ length: 101 }, (_, i) => `r${i}`),
    );
  });

  it('sends a lone report when its time is up, without waiting for another', () => {
    outbox.add(log('alone'));
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(25);
    expect(sent).toEqual([[log('alone')]]);
    vi.advanceTimersByTime(100);
    expect(sent).toHaveLength(1);
  });

  it("sends a test's result at once, with the reports before it", () => {
    outbox.add(log('a'));
    outbox.add(test(0));
    expect(sent).toEqual([[log('a'), test(0)]]);
    vi.advanceTimersByTime(100);
    expect(sent).toHaveLength(1);
  });

  it('sends a slot request once the microtasks before it have run, with the reports before it, in one message', async () => {
    const ask: WorkerReport = { type: 'slot-acquire', id: 1, endpoint: 'http://e' };
    const release: WorkerReport = { type: 'slot-release', id: 2 };
    outbox.add(log('a'));
    outbox.add(ask);
    outbox.add(release);
    // A request waits on its slot: not for 25 ms, but not one message per ask either.
    expect(sent).toEqual([]);
    await Promise.resolve();
    expect(sent).toEqual([[log('a'), ask, release]]);
    vi.advanceTimersByTime(100);
    expect(sent).toHaveLength(1);
  });

  it('flush sends what waits (before any other message), and nothing when empty', () => {
    outbox.flush();
    expect(sent).toEqual([]);
    outbox.add(log('a'));
    outbox.flush();
    expect(sent).toEqual([[log('a')]]);
  });
});
