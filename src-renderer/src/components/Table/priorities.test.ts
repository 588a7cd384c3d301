import { describe, expect, it } from 'vitest';
import { hiddenColumns } from './priorities';

const columns = [
  { id: 'sample', min: 80, priority: 2 },
  { id: 'question', min: 180, priority: 1 },
  { id: 'gold', min: 100, priority: 1 },
  { id: 'tokens', min: 60, priority: 3 },
  { id: 'latency', min: 60, priority: 3 },
  { id: 'f1', min: 60, priority: 1 },
];

describe('column priorities', () => {
  it('hides nothing when everything fits', () => {
    expect(hiddenColumns(columns, 540)).toEqual([]);
  });

  it('hides the lowest priority first, rightmost first', () => {
    // 540 px wanted; 500 available: dropping latency (60) is enough.
    expect(hiddenColumns(columns, 500)).toEqual(['latency']);
    expect(hiddenColumns(columns, 430)).toEqual(['latency', 'tokens']);
    expect(hiddenColumns(columns, 340)).toEqual(['latency', 'tokens', 'sample']);
  });

  it('never hides a priority-1 column, however narrow', () => {
    expect(hiddenColumns(columns, 10)).toEqual(['latency', 'tokens', 'sample']);
  });
});
