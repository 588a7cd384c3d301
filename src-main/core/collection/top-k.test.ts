import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KthBest, selectTop } from './top-k';

interface Scored {
  seq: number;
  score: number;
}

/** The rankers' order: best score first, ties by the smaller seq (a total order: seqs are unique). */
const byScoreThenSeq = (x: Scored, y: Scored) => y.score - x.score || x.seq - y.seq;

/** Scores drawn from a handful of values, so most lists have many ties. */
const scoredList = fc
  .array(fc.constantFrom(0, 0.5, 1, 1.5, 2, -1, 1e-9, 3.25), { maxLength: 300 })
  .chain((scores) =>
    fc
      .shuffledSubarray(
        scores.map((_, i) => i * 3),
        { minLength: scores.length, maxLength: scores.length },
      )
      .map((seqs) => scores.map((score, i) => ({ seq: seqs[i] as number, score }))),
  );

describe('selectTop', () => {
  it('gives exactly the full sort cut to k, ties included, for random scores and any k', () => {
    fc.assert(
      fc.property(scoredList, fc.integer({ min: 0, max: 320 }), (items, k) => {
        const expected = [...items].sort(byScoreThenSeq).slice(0, k);
        expect(selectTop(items, k, byScoreThenSeq)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with the full sort on continuous random scores too', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { maxLength: 200 }),
        fc.integer({ min: 1, max: 60 }),
        (scores, k) => {
          const items = scores.map((score, seq) => ({ seq, score }));
          expect(selectTop(items, k, byScoreThenSeq)).toEqual(
            [...items].sort(byScoreThenSeq).slice(0, k),
          );
        },
      ),
    );
  });

  it('keeps the smaller seq among equal scores at the cut', () => {
    // Five items tie at the cut of k = 3: the three smallest seqs win, in seq order.
    const items = [9, 4, 7, 1, 5].map((seq) => ({ seq, score: 1 }));
    expect(selectTop(items, 3, byScoreThenSeq).map((x) => x.seq)).toEqual([1, 4, 5]);
  });
});

describe('KthBest', () => {
  it('after every add, is full once k numbers came and then holds the k-th largest so far', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(0, 0.5, 1, 1.5, 2, -1, 1e-9, 3.25, 7), { maxLength: 120 }),
        fc.integer({ min: 0, max: 40 }),
        (values, k) => {
          const best = new KthBest(k);
          values.forEach((value, i) => {
            best.add(value);
            const seen = values.slice(0, i + 1).sort((x, y) => y - x);
            expect(best.full).toBe(k > 0 && seen.length >= k);
            if (best.full) expect(best.kth).toBe(seen[k - 1]);
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});
