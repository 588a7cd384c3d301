import { describe, expect, it } from 'vitest';
import { CallBudget } from '../http/callBudget';
import { RemoteCallGate, SlotLender, type SlotRequest } from './remoteGate';

const endOfTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A worker's gate wired to a lender through message queues that deliver at the end of a turn. */
function wire(budget: CallBudget | undefined): {
  gate: RemoteCallGate;
  lender: SlotLender;
  grants: number[][];
} {
  const grants: number[][] = [];
  const lender = new SlotLender(budget, (ids) => {
    grants.push(ids);
    for (const id of ids) gate.granted(id);
  });
  const gate = new RemoteCallGate((request: SlotRequest) => lender.handle(request));
  return { gate, lender, grants };
}

describe('SlotLender', () => {
  it("grants the asks of one moment in one message, and a released slot's next ask after it", async () => {
    const budget = new CallBudget(2, new Map());
    const { gate, grants } = wire(budget);
    const releases: Array<() => void> = [];
    const order: string[] = [];
    const runs = [1, 2, 3].map((n) =>
      gate.run('http://e', async () => {
        order.push(`start ${n}`);
        await new Promise<void>((resolve) => releases.push(resolve));
      }),
    );
    await endOfTurn();
    // Two slots: the first two asks granted together, the third waits.
    expect(grants).toEqual([[1, 2]]);
    expect(order).toEqual(['start 1', 'start 2']);
    releases[0]?.();
    await endOfTurn();
    expect(grants).toEqual([[1, 2], [3]]);
    expect(order).toEqual(['start 1', 'start 2', 'start 3']);
    for (const release of releases) release();
    await Promise.all(runs);
  });

  it('sends no grant once the sample has ended, and gives the slot back', async () => {
    const budget = new CallBudget(1, new Map());
    const sent: number[][] = [];
    const lender = new SlotLender(budget, (ids) => sent.push(ids));
    lender.handle({ type: 'slot-acquire', id: 1, endpoint: 'http://e' });
    lender.close();
    await endOfTurn();
    expect(sent).toEqual([]);
    // The slot is free again: another lender gets it at once.
    const other = new SlotLender(budget, (ids) => sent.push(ids));
    other.handle({ type: 'slot-acquire', id: 7, endpoint: 'http://e' });
    await endOfTurn();
    await endOfTurn();
    expect(sent).toEqual([[7]]);
  });
});
