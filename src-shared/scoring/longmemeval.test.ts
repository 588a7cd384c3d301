import { describe, expect, it } from 'vitest';
import goldenJson from '../../tests/fixtures/golden/longmemeval.json';
import { sessionRecallAll, turnRecallAll } from './longmemeval';

/** Written by scripts/golden/generate-longmemeval.py from LongMemEval's src/retrieval/eval_utils.py. */
interface RecallCase {
  turns: Array<{ id: string; hasAnswer: boolean }>;
  ranked: string[];
  k: number;
  effectiveK: number;
  turnRecallAll: number;
  sessionRecallAll: number;
}
const golden = goldenJson as { recall: RecallCase[] };

describe('LongMemEval recall_all@k against the reference', () => {
  it('turn level equals evaluate_retrieval on every case', () => {
    expect(golden.recall.length).toBeGreaterThan(50);
    for (const c of golden.recall) {
      const evidence = c.turns.filter((t) => t.hasAnswer).map((t) => t.id);
      expect(turnRecallAll(evidence, c.ranked.slice(0, c.k))).toBe(c.turnRecallAll);
    }
  });

  it('session level equals evaluate_retrieval_turn2session over the same ranked prefix', () => {
    let differsFromNaive = 0;
    for (const c of golden.recall) {
      const evidence = c.turns.filter((t) => t.hasAnswer).map((t) => t.id);
      const prefix = c.ranked.slice(0, c.effectiveK);
      expect(sessionRecallAll(evidence, prefix)).toBe(c.sessionRecallAll);
      // A non-evidence turn of an answer session does not retrieve it (the reference's `noans`).
      const sessions = new Set(prefix.map((id) => id.split(':')[0]));
      const naive = evidence.every((id) => sessions.has(id.split(':')[0])) ? 1 : 0;
      if (naive !== c.sessionRecallAll) differsFromNaive++;
    }
    expect(differsFromNaive).toBeGreaterThan(0);
  });

  it('has no value without evidence (abstention)', () => {
    expect(turnRecallAll([], ['D1:1'])).toBeNull();
    expect(sessionRecallAll([], ['D1:1'])).toBeNull();
  });
});
