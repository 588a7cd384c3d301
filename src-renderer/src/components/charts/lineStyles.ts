import { SERIES_COLORS, SERIES_DASHES, seriesStyle } from '@shared/palette';

/**
 * The curve's lines take the figures' colour-blind-safe series styles (src-shared/palette.ts, their
 * one owner): a colour and a dash per line, so ten samples stay apart in colour-blind eyes and in
 * greyscale prints, where colour alone would not.
 */
export const LINE_COLORS = SERIES_COLORS;
export const LINE_DASHES = SERIES_DASHES;

export interface LineStyle {
  color: string;
  dash: string | undefined;
}

/** The i-th line's colour and dash: distinct pairs for the first 32 lines. */
export function lineStyle(index: number): LineStyle {
  const { color, dash } = seriesStyle(index);
  return { color, dash };
}
