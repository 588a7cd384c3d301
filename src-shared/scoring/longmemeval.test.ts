import { describe, expect, it } from 'vitest';
import goldenJson from '../../tests/fixtures/golden/longmemeval.json';
import {
  lmeRankingReachesDepth,
  lmeSessionRetrieval,
  lmeTurnRetrieval,
  type LmeRetrievalScores,
} from './longmemeval';

/**
 * Written by scripts/golden/generate-longmemeval.py: LongMemEval's own process_item_flat_index
 * builds the corpus (user turns), its eval_utils.py scores a random ranking of it, and the
 * exclusions of run_retrieval.py are replayed. `ranked` also holds the assistant turns.
 */
interface Haystack {
  turns: Array<{ id: string; role: 'user' | 'assistant'; hasAnswer: boolean }>;
  ranked: string[];
  excluded: boolean;
  byK: Array<{ k: number; turn?: LmeRetrievalScores; session?: LmeRetrievalScores }>;
}
interface RecallCase extends Omit<Haystack, 'byK'> {
  k: number;
  turn?: LmeRetrievalScores;
  session?: LmeRetrievalScores;
}
const golden = goldenJson as { recall: Haystack[] };
const cases: RecallCase[] = golden.recall.flatMap(({ byK, ...haystack }) =>
  byK.map((scores) => ({ ...haystack, ...scores })),
);

function input(c: RecallCase) {
  return {
    corpus: c.turns.filter((t) => t.role === 'user').map((t) => t.id),
    evidence: c.turns.filter((t) => t.hasAnswer).map((t) => t.id),
    ranked: c.ranked,
    k: c.k,
  };
}

function expectScores(actual: LmeRetrievalScores | null, expected: LmeRetrievalScores): void {
  expect(actual).not.toBeNull();
  expect(actual?.recallAny).toBe(expected.recallAny);
  expect(actual?.recallAll).toBe(expected.recallAll);
  expect(actual?.ndcgAny).toBeCloseTo(expected.ndcgAny, 12);
}

describe('LongMemEval retrieval metrics against the reference', () => {
  const scored = cases.filter((c) => !c.excluded);

  it('turn level equals evaluate_retrieval over the user-turn corpus', () => {
    expect(scored.length).toBeGreaterThan(100);
    for (const c of scored) expectScores(lmeTurnRetrieval(input(c)), c.turn as LmeRetrievalScores);
  });

  it('session level equals evaluate_retrieval_turn2session, effective k included', () => {
    let widened = 0;
    for (const c of scored) {
      const scores = lmeSessionRetrieval(input(c));
      expectScores(scores, c.session as LmeRetrievalScores);
      const userRanked = input(c).ranked.filter((id) => input(c).corpus.includes(id));
      const firstK = new Set(userRanked.slice(0, c.k).map((id) => id.split(':')[0]));
      if (firstK.size < c.k && userRanked.length > c.k) widened++;
    }
    // The cases exercise the reference reading past k turns to reach k sessions.
    expect(widened).toBeGreaterThan(0);
  });

  it('has no value where the reference skips the question (no user has_answer turn)', () => {
    const excluded = cases.filter((c) => c.excluded);
    // Some of them have has_answer on assistant turns only, which the old recall counted.
    expect(excluded.some((c) => c.turns.some((t) => t.hasAnswer))).toBe(true);
    for (const c of excluded) {
      expect(lmeTurnRetrieval(input(c))).toBeNull();
      expect(lmeSessionRetrieval(input(c))).toBeNull();
    }
  });

  it('a ranking cut where lmeRankingReachesDepth says it reaches the depth scores as the whole one', () => {
    // The reference ranks the whole corpus; the run reads a prefix of the memory's ranking. Each
    // prefix said to reach the depth must give the reference's figures; prefixes short of it are
    // the lower bounds, and some of them differ (the check is not vacuous).
    let reached = 0;
    let shortAndDifferent = 0;
    for (const c of scored) {
      for (let cut = 0; cut <= c.ranked.length; cut++) {
        const prefix = { ...input(c), ranked: c.ranked.slice(0, cut) };
        const turn = lmeTurnRetrieval(prefix);
        const session = lmeSessionRetrieval(prefix);
        if (lmeRankingReachesDepth(prefix)) {
          reached++;
          expectScores(turn, c.turn as LmeRetrievalScores);
          expectScores(session, c.session as LmeRetrievalScores);
        } else if (
          JSON.stringify([turn, session]) !== JSON.stringify([c.turn, c.session]) &&
          (turn?.recallAll ?? 0) <= (c.turn?.recallAll ?? 0)
        ) {
          shortAndDifferent++;
        }
      }
      expect(lmeRankingReachesDepth(input(c)), 'the whole ranking').toBe(true);
    }
    expect(reached).toBeGreaterThan(100);
    expect(shortAndDifferent).toBeGreaterThan(0);
  });
});
