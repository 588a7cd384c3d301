import { describe, expect, it } from 'vitest';
import { evidenceRecallAtK, meanEvidenceRecall } from './retrieval';

describe('evidenceRecallAtK', () => {
  const evidence = ['D1:3', 'D2:8'];
  const retrieved = ['D1:3', 'D4:1', 'D2:8', 'D5:2'];

  it('counts evidence among all retrieved turns when k is omitted', () => {
    expect(evidenceRecallAtK(evidence, retrieved)).toBe(1);
  });

  it('looks only at the first k turns', () => {
    // Top-2 holds D1:3 but not D2:8 (third): 1 of 2.
    expect(evidenceRecallAtK(evidence, retrieved, 2)).toBe(0.5);
    expect(evidenceRecallAtK(evidence, retrieved, 0)).toBe(0);
  });

  it('counts a duplicated evidence id once', () => {
    expect(evidenceRecallAtK(['D1:3', 'D1:3', 'D9:9'], retrieved)).toBe(0.5);
  });

  it('is undefined for a question without evidence, and such questions leave the mean', () => {
    expect(evidenceRecallAtK([], retrieved)).toBeUndefined();
    expect(meanEvidenceRecall([1, undefined, 0.5])).toEqual({ mean: 0.75, n: 2 });
    expect(meanEvidenceRecall([undefined]).n).toBe(0);
  });

  it('rejects a k that is not a non-negative integer', () => {
    expect(() => evidenceRecallAtK(evidence, retrieved, -1)).toThrow(
      'evidenceRecallAtK: k must be a non-negative integer, got -1',
    );
    expect(() => evidenceRecallAtK(evidence, retrieved, 1.5)).toThrow(/non-negative integer/);
  });
});
