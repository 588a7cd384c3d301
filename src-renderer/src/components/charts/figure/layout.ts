import { seriesStyle, type SeriesStyle } from '@shared/palette';
import type { Shape } from './scene';
import { ASCENT, DESCENT, fitText, textWidth } from './textMetrics';

/** Column widths of the common two-column paper formats (ACL, IEEE, ACM): 3.5 in and 7.16 in. */
export const FIGURE_SIZES = {
  'one-column': { label: 'One column (3.5 in / 88 mm)', width: 3.5 * 72 },
  'two-column': { label: 'Two columns (7.16 in / 182 mm)', width: 7.16 * 72 },
} as const;
export type FigureSize = keyof typeof FIGURE_SIZES;

/** Font sizes in points; 8 pt reads at a column's width without shrinking the figure. */
export const FIGURE_FONT_SIZES = [7, 8, 9, 10] as const;
export type FigureFontSize = (typeof FIGURE_FONT_SIZES)[number];

export interface FigureOptions {
  size: FigureSize;
  fontSize: FigureFontSize;
}

export const DEFAULT_FIGURE_OPTIONS: FigureOptions = { size: 'one-column', fontSize: 8 };

export const INK = '#1d2330';
export const MUTED = '#5f6b7a';
export const GRID = '#d9dde4';

/** A line of text's height at `size`. */
export const lineHeight = (size: number): number => (ASCENT + DESCENT) * size * 1.15;

/** One entry of a legend: a bar swatch or a line sample (dash and marker) and its label. */
export interface LegendEntry {
  label: string;
  style: SeriesStyle;
  kind: 'bar' | 'line';
}

/**
 * A legend laid out in rows across `width` from (x, y); returns its shapes and height. Labels
 * wider than the width are cut with "…".
 */
export function legend(
  entries: readonly LegendEntry[],
  x: number,
  y: number,
  width: number,
  fontSize: number,
): { shapes: Shape[]; height: number } {
  const shapes: Shape[] = [];
  const sample = fontSize * 2.2;
  const gap = fontSize * 0.4;
  const spacing = fontSize * 1.2;
  const rowHeight = lineHeight(fontSize);
  let cx = x;
  let cy = y;
  for (const entry of entries) {
    const label = fitText(entry.label, fontSize, width - sample - gap);
    const w = sample + gap + textWidth(label, fontSize);
    if (cx > x && cx + w > x + width) {
      cx = x;
      cy += rowHeight;
    }
    const mid = cy + rowHeight / 2;
    const group = entry.label;
    if (entry.kind === 'bar') {
      const side = fontSize * 0.8;
      shapes.push({
        kind: 'rect',
        role: 'legend',
        group,
        x: cx + (sample - side) / 2,
        y: mid - side / 2,
        w: side,
        h: side,
        fill: entry.style.color,
        stroke: INK,
        strokeWidth: 0.4,
      });
    } else {
      shapes.push({
        kind: 'line',
        role: 'legend',
        group,
        points: [
          [cx, mid],
          [cx + sample, mid],
        ],
        stroke: entry.style.color,
        strokeWidth: 1.2,
        dash: entry.style.dash,
      });
      shapes.push({
        kind: 'marker',
        role: 'legend',
        group,
        shape: entry.style.marker,
        x: cx + sample / 2,
        y: mid,
        size: fontSize * 0.55,
        color: entry.style.color,
      });
    }
    shapes.push({
      kind: 'text',
      role: 'legend',
      group,
      x: cx + sample + gap,
      y: mid + (ASCENT * fontSize) / 2,
      text: label,
      size: fontSize,
      anchor: 'start',
      fill: INK,
    });
    cx += w + spacing;
  }
  return { shapes, height: entries.length === 0 ? 0 : cy - y + rowHeight };
}

export interface ScoreAxis {
  /** Plot area, points. */
  left: number;
  top: number;
  right: number;
  bottom: number;
  /** Value -> y. */
  y: (value: number) => number;
}

/** The 0-1 score axis every score figure shares: quarters, two decimals, grid lines. */
export const SCORE_TICKS = [0, 0.25, 0.5, 0.75, 1] as const;
export const formatTick = (v: number): string => v.toFixed(2);

/** Width the y axis takes left of the plot: its title (rotated) and its tick labels. */
export function yAxisWidth(fontSize: number, ticks: readonly string[]): number {
  const tickWidth = Math.max(...ticks.map((t) => textWidth(t, fontSize)));
  return lineHeight(fontSize) + fontSize * 0.4 + tickWidth + fontSize * 0.4;
}

/** The y axis' grid, tick labels and rotated title (cut to the plot's height if it must be). */
export function scoreAxisShapes(axis: ScoreAxis, title: string, fontSize: number): Shape[] {
  const shapes: Shape[] = [];
  for (const t of SCORE_TICKS) {
    const y = axis.y(t);
    shapes.push({
      kind: 'line',
      role: t === 0 ? 'axis' : 'grid',
      points: [
        [axis.left, y],
        [axis.right, y],
      ],
      stroke: t === 0 ? INK : GRID,
      strokeWidth: t === 0 ? 0.6 : 0.4,
    });
    shapes.push({
      kind: 'text',
      role: 'tick',
      x: axis.left - fontSize * 0.4,
      y: y + (ASCENT * fontSize) / 2,
      text: formatTick(t),
      size: fontSize,
      anchor: 'end',
      fill: MUTED,
    });
  }
  shapes.push(yTitle(axis, title, fontSize));
  return shapes;
}

export function yTitle(
  axis: Pick<ScoreAxis, 'top' | 'bottom'>,
  title: string,
  fontSize: number,
): Shape {
  return {
    kind: 'text',
    role: 'axis-title-y',
    x: ASCENT * fontSize + 1,
    y: (axis.top + axis.bottom) / 2,
    text: fitText(title, fontSize, axis.bottom - axis.top),
    size: fontSize,
    anchor: 'middle',
    fill: INK,
    rotate: 90,
  };
}

export { seriesStyle };
