import { describe, expect, it } from 'vitest';
import { isRepair, isUnresolved, normaliseEvidence } from './evidence';

// The turn ids of a small sample; every oddity below is one seen in the real locomo10.json.
const ids = new Set(['D1:1', 'D1:3', 'D2:2', 'D8:6', 'D9:17', 'D11:26', 'D30:5']);

describe('normaliseEvidence', () => {
  it('keeps well-formed ids that resolve, without reporting anything', () => {
    expect(normaliseEvidence(['D1:1', 'D2:2'], ids)).toEqual({
      evidence: ['D1:1', 'D2:2'],
      problems: [],
    });
  });

  it('splits entries joined by ";" or spaces and reports each part', () => {
    const result = normaliseEvidence(['D8:6; D9:17', 'D1:3 D2:2'], ids);
    expect(result.evidence).toEqual(['D8:6', 'D9:17', 'D1:3', 'D2:2']);
    expect(result.problems).toEqual([
      { raw: 'D8:6; D9:17', problem: 'split', part: 'D8:6', repairedTo: 'D8:6' },
      { raw: 'D8:6; D9:17', problem: 'split', part: 'D9:17', repairedTo: 'D9:17' },
      { raw: 'D1:3 D2:2', problem: 'split', part: 'D1:3', repairedTo: 'D1:3' },
      { raw: 'D1:3 D2:2', problem: 'split', part: 'D2:2', repairedTo: 'D2:2' },
    ]);
  });

  it('strips zero padding and repairs a misplaced colon only when the result resolves', () => {
    expect(normaliseEvidence(['D30:05', 'D:11:26', 'D:4:4'], ids)).toEqual({
      evidence: ['D30:5', 'D11:26'],
      problems: [
        { raw: 'D30:05', problem: 'zero-padded', repairedTo: 'D30:5' },
        { raw: 'D:11:26', problem: 'misplaced-colon', repairedTo: 'D11:26' },
        { raw: 'D:4:4', problem: 'unresolved' },
      ],
    });
  });

  it('reports malformed and dangling ids and drops them', () => {
    expect(normaliseEvidence(['D', 'D10:19', '', 'D1:1'], ids)).toEqual({
      evidence: ['D1:1'],
      problems: [
        { raw: 'D', problem: 'malformed' },
        { raw: 'D10:19', problem: 'unresolved' },
        { raw: '', problem: 'malformed' },
      ],
    });
  });

  it('deduplicates, keeping the first occurrence and its order', () => {
    const result = normaliseEvidence(['D2:2', 'D1:1', 'D2:2', 'D01:01'], ids);
    expect(result.evidence).toEqual(['D2:2', 'D1:1']);
    expect(result.problems).toEqual([
      { raw: 'D2:2', problem: 'duplicate', repairedTo: 'D2:2' },
      { raw: 'D01:01', problem: 'duplicate', repairedTo: 'D1:1' },
    ]);
  });

  it('trusts an exact id from the file even when it is oddly shaped', () => {
    expect(normaliseEvidence(['d7-3'], new Set(['d7-3']))).toEqual({
      evidence: ['d7-3'],
      problems: [],
    });
  });

  it('classifies problems for counting', () => {
    const { problems } = normaliseEvidence(['D8:6; D9:17', 'D', 'D10:19', 'D1:1', 'D1:1'], ids);
    expect(problems.filter(isRepair)).toHaveLength(2);
    expect(problems.filter(isUnresolved)).toHaveLength(2);
  });
});
