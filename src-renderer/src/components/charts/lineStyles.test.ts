import { describe, expect, it } from 'vitest';
import { LINE_COLORS, lineStyle } from './lineStyles';

describe('curve line styles', () => {
  it('gives ten samples ten different colour-dash pairs', () => {
    const styles = Array.from(
      { length: 10 },
      (_, i) => `${lineStyle(i).color} ${lineStyle(i).dash ?? 'solid'}`,
    );
    expect(new Set(styles).size).toBe(10);
  });

  it('varies the dash between neighbours and never repeats a colour-dash pair in 32 lines', () => {
    for (let i = 1; i < 10; i++) expect(lineStyle(i).dash).not.toBe(lineStyle(i - 1).dash);
    const pairs = Array.from({ length: 4 * LINE_COLORS.length }, (_, i) => {
      const s = lineStyle(i);
      return `${s.color} ${s.dash ?? 'solid'}`;
    });
    expect(new Set(pairs).size).toBe(pairs.length);
  });
});
