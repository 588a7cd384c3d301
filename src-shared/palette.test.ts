import { describe, expect, it } from 'vitest';
import { RUN_COLORS } from './runPalette';
import { contrastRatio, inkOn } from './palette';

describe('inkOn', () => {
  it('gives every run colour a tag text of at least 4.5:1', () => {
    for (const fill of RUN_COLORS) {
      expect(contrastRatio(fill, inkOn(fill)), fill).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('picks black on a light fill and white on a dark one', () => {
    // Tableau orange (the old run B) gave white text 2.4:1; black reads at 8.7:1.
    expect(inkOn('#f28e2b')).toBe('#000000');
    expect(inkOn('#1d2330')).toBe('#ffffff');
    expect(contrastRatio('#f28e2b', '#ffffff')).toBeLessThan(4.5);
  });
});
