import { describe, expect, it } from 'vitest';
import { fuse } from './fusion';
import type { RankedList } from './fusion';

// Two small lists whose fused orders were worked out by hand below.
const A: RankedList<string> = {
  index: 'A',
  weight: 1,
  hits: [
    { key: 'x', score: 0.9 },
    { key: 'y', score: 0.5 },
    { key: 'z', score: 0.1 },
  ],
};
const B: RankedList<string> = {
  index: 'B',
  weight: 1,
  hits: [
    { key: 'y', score: 10 },
    { key: 'w', score: 4 },
    { key: 'x', score: 2 },
  ],
};

describe('fuse', () => {
  it('rrf sums 1/(k + rank)', () => {
    const out = fuse([A, B], 'rrf', 60);
    // y: 1/62 + 1/61 = 0.0325225; x: 1/61 + 1/63 = 0.0322665; w: 1/62; z: 1/63.
    expect(out.map((e) => e.key)).toEqual(['y', 'x', 'w', 'z']);
    expect(out[0]?.score).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(out[1]?.score).toBeCloseTo(1 / 61 + 1 / 63, 12);
    expect(out[2]?.score).toBeCloseTo(1 / 62, 12);
    expect(out[3]?.score).toBeCloseTo(1 / 63, 12);
    expect(out[1]?.contributions).toEqual([
      { index: 'A', rank: 1, score: 0.9, normalized: 1, contribution: 1 / 61 },
      { index: 'B', rank: 3, score: 2, normalized: 0, contribution: 1 / 63 },
    ]);
  });

  it('rrf multiplies by the list weight', () => {
    const out = fuse([A, { ...B, weight: 2 }], 'rrf', 10);
    // y: 1/12 + 2/11 = 0.26515; x: 1/11 + 2/13 = 0.24476; w: 2/12 = 0.16667; z: 1/13.
    expect(out.map((e) => e.key)).toEqual(['y', 'x', 'w', 'z']);
    expect(out[0]?.score).toBeCloseTo(1 / 12 + 2 / 11, 12);
  });

  it('weighted min-max normalises each list, then sums weight * normalised', () => {
    const out = fuse([A, { ...B, weight: 2 }], 'weighted');
    // A normalised: x 1, y (0.5-0.1)/0.8 = 0.5, z 0. B normalised: y 1, w (4-2)/8 = 0.25, x 0.
    // x = 1 + 2*0 = 1; y = 0.5 + 2*1 = 2.5; w = 2*0.25 = 0.5; z = 0.
    expect(out.map((e) => [e.key, e.score])).toEqual([
      ['y', 2.5],
      ['x', 1],
      ['w', 0.5],
      ['z', 0],
    ]);
  });

  it('weighted treats a list of equal scores as all 1', () => {
    const flat: RankedList<string> = {
      index: 'F',
      weight: 1,
      hits: [
        { key: 'p', score: 3 },
        { key: 'q', score: 3 },
      ],
    };
    expect(fuse([flat], 'weighted').map((e) => e.score)).toEqual([1, 1]);
  });

  it('union keeps each item once with its best normalised score; ties by best rank, then list order', () => {
    const out = fuse([A, B], 'union');
    // x: max(1, 0) = 1 (rank 1 in A); y: max(0.5, 1) = 1 (rank 1 in B); w: 0.25; z: 0.
    // x and y tie on score and best rank; x comes from the first list.
    expect(out.map((e) => [e.key, e.score])).toEqual([
      ['x', 1],
      ['y', 1],
      ['w', 0.25],
      ['z', 0],
    ]);
    expect(out[1]?.contributions.map((c) => c.index)).toEqual(['A', 'B']);
  });

  it('returns nothing for no lists or empty lists', () => {
    expect(fuse([], 'rrf')).toEqual([]);
    expect(fuse([{ index: 'E', weight: 1, hits: [] }], 'weighted')).toEqual([]);
  });
});
