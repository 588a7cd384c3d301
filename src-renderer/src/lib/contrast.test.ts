import { describe, expect, it } from 'vitest';
import { RUN_COLORS } from '../../../src-shared/runPalette';
import { contrastRatio, inkOn, luminanceOf } from './contrast';

describe('inkOn', () => {
  it('gives every run colour a tag text of at least 4.5:1', () => {
    for (const fill of RUN_COLORS) {
      const l = luminanceOf(fill);
      expect(l, fill).not.toBeNull();
      const ink = luminanceOf(inkOn(fill)) ?? 0;
      expect(contrastRatio(l ?? 0, ink), fill).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('picks black on a light fill and white on a dark one', () => {
    // Tableau orange (run B) gave white text 2.4:1; black reads at 8.7:1.
    expect(inkOn('#f28e2b')).toBe('#000000');
    expect(inkOn('#1d2330')).toBe('#ffffff');
  });
});
