/**
 * How a comparison tells its runs apart: a letter and a colour per run, shared by the Compare
 * view and the exported HTML report, so a run is "B" and orange in both. The colours are the
 * figures' colour-blind-safe series colours (palette.ts, their one owner).
 */
import { SERIES_COLORS } from './palette';

/** A, B, …: short tags that tie a run's columns, bars and config values together. */
export function runLetter(index: number): string {
  return String.fromCharCode(65 + index);
}

export const RUN_COLORS = SERIES_COLORS;

export function runColor(index: number): string {
  return RUN_COLORS[index % RUN_COLORS.length] ?? RUN_COLORS[0];
}
