import { describe, expect, it } from 'vitest';
import { formatSort, parseSort } from './sortParam';

describe('table sort in the URL', () => {
  it('round-trips a column and its direction', () => {
    expect(parseSort('officialF1.desc')).toEqual([{ id: 'officialF1', desc: true }]);
    expect(parseSort('score-1.asc')).toEqual([{ id: 'score-1', desc: false }]);
    expect(formatSort(parseSort('category.asc'))).toBe('category.asc');
  });

  it('treats anything else as the table’s own order', () => {
    for (const bad of [null, undefined, '', 'f1', 'f1.up', '.desc', 'a b.asc'])
      expect(parseSort(bad)).toEqual([]);
    expect(formatSort([])).toBeNull();
  });
});
