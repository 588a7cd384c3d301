import type { AnyIndexEngine, IndexHandle, IndexTx } from '../../../src-shared/index-kinds/engine';
import type { FifoOverflow } from './types';

/** One open index: what the collection keeps (identity, members) around the kind's handle. */
export interface Runtime {
  id: number;
  name: string;
  kind: AnyIndexEngine;
  config: { type: string };
  /** Item seqs that are members, mirrored from SQLite (the durable truth). */
  members: Set<number>;
  handle: IndexHandle;
}

const NOTHING_NAMED: ReadonlySet<number> = new Set();

/** What one write transaction changes in memory once SQLite has committed. */
export class TxContext {
  readonly after: Array<() => void> = [];
  readonly overflow = new Map<Runtime, FifoOverflow>();
  private readonly added = new Map<Runtime, Set<number>>();
  /** Indexes this transaction tried to add to, in order: their finishTx runs at the end. */
  private readonly touched = new Set<Runtime>();
  private readonly states = new Map<Runtime, unknown>();
  private readonly views = new Map<Runtime, IndexTx>();

  /** `named`: the index and items an insertToIndex call names (its adds must not evict them). */
  constructor(private readonly named?: { rt: Runtime; seqs: ReadonlySet<number> }) {}

  isMember(rt: Runtime, seq: number): boolean {
    return rt.members.has(seq) || (this.added.get(rt)?.has(seq) ?? false);
  }

  /** Adds one membership in SQLite; memory follows after commit. Returns false if refused. */
  add(rt: Runtime, seq: number, id: string, text: string, payload: unknown): boolean {
    this.touched.add(rt);
    if (!rt.handle.addTx(this.view(rt), { seq, id, text, payload })) return false;
    let added = this.added.get(rt);
    if (!added) {
      added = new Set();
      this.added.set(rt, added);
    }
    added.add(seq);
    this.after.push(() => rt.members.add(seq));
    return true;
  }

  remove(rt: Runtime, seq: number): void {
    rt.handle.removeTx(this.view(rt), seq);
    this.added.get(rt)?.delete(seq);
    this.after.push(() => {
      rt.members.delete(seq);
      rt.handle.forget?.(seq);
    });
  }

  /** Lets every index this transaction added to finish (a fifo evicts what overflowed). */
  finish(): void {
    for (const rt of this.touched) rt.handle.finishTx?.(this.view(rt));
  }

  view(rt: Runtime): IndexTx {
    let view = this.views.get(rt);
    if (view) return view;
    view = {
      after: (fn) => this.after.push(fn),
      isMember: (seq) => this.isMember(rt, seq),
      size: () => rt.members.size + (this.added.get(rt)?.size ?? 0),
      state: <T>(init: () => T): T => {
        if (!this.states.has(rt)) this.states.set(rt, init());
        return this.states.get(rt) as T;
      },
      remove: (seq) => this.remove(rt, seq),
      overflow: (policy) => {
        let report = this.overflow.get(rt);
        if (!report) {
          report = { index: rt.name, policy, evicted: [], rejected: [] };
          this.overflow.set(rt, report);
        }
        return report;
      },
      named: this.named?.rt === rt ? this.named.seqs : NOTHING_NAMED,
    };
    this.views.set(rt, view);
    return view;
  }
}
