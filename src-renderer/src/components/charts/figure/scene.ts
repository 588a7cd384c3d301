import type { MarkerShape } from '@shared/palette';
import { ASCENT, DESCENT, textWidth } from './textMetrics';

/**
 * A figure as a flat list of shapes in points (1/72 in), origin top left: the one drawing that
 * the SVG, the PNG (drawn from the SVG) and the PDF are all written from, so the three agree.
 * `role` names what a shape is (axis title, legend, value label, whisker) for tests and readers.
 */

export type Role =
  | 'axis-title-x'
  | 'axis-title-y'
  | 'tick'
  | 'legend'
  | 'value-label'
  | 'whisker'
  | 'bar'
  | 'line'
  | 'marker'
  | 'cell'
  | 'grid'
  | 'axis'
  | 'colorbar';

interface Painted {
  role?: Role;
  /** The series or cell a shape belongs to, for tests that pair a label with its whisker. */
  group?: string;
}

export interface RectShape extends Painted {
  kind: 'rect';
  x: number;
  y: number;
  w: number;
  h: number;
  fill: string | null;
  stroke?: string;
  strokeWidth?: number;
}

export interface LineShape extends Painted {
  kind: 'line';
  points: ReadonlyArray<readonly [number, number]>;
  stroke: string;
  strokeWidth: number;
  dash?: string | undefined;
}

export interface MarkerShapeDef extends Painted {
  kind: 'marker';
  shape: MarkerShape;
  x: number;
  y: number;
  size: number;
  color: string;
}

export interface TextShape extends Painted {
  kind: 'text';
  x: number;
  /** The baseline. */
  y: number;
  text: string;
  size: number;
  anchor: 'start' | 'middle' | 'end';
  fill: string;
  /** Degrees, counter-clockwise about (x, y): 90 reads bottom to top (a y-axis title). */
  rotate?: number;
}

export type Shape = RectShape | LineShape | MarkerShapeDef | TextShape;

export interface Scene {
  /** Points. */
  width: number;
  height: number;
  title: string;
  /** The caption (n, CI method): written into the SVG's <desc> and the PDF's Subject. */
  caption: string;
  shapes: Shape[];
}

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The box a text covers (rotations by multiples of 90° and unrotated text only). */
export function textBox(
  t: Pick<TextShape, 'x' | 'y' | 'text' | 'size' | 'anchor' | 'rotate'>,
): Box {
  const w = textWidth(t.text, t.size);
  const along = t.anchor === 'start' ? 0 : t.anchor === 'middle' ? w / 2 : w;
  const up = ASCENT * t.size;
  const down = DESCENT * t.size;
  const rotate = (((t.rotate ?? 0) % 360) + 360) % 360;
  // 90: reads bottom to top, the glyphs' tops to the left; 270: top to bottom, tops to the right.
  if (rotate === 90) return { x: t.x - up, y: t.y + along - w, w: up + down, h: w };
  if (rotate === 270) return { x: t.x - down, y: t.y - along, w: up + down, h: w };
  return { x: t.x - along, y: t.y - up, w, h: up + down };
}

export function overlaps(a: Box, b: Box, gap = 0): boolean {
  return (
    a.x < b.x + b.w + gap && b.x < a.x + a.w + gap && a.y < b.y + b.h + gap && b.y < a.y + a.h + gap
  );
}

/** A marker's outline as a closed polygon of `size` across, centred on (x, y) (circle excepted). */
export function markerPolygon(
  shape: MarkerShape,
  x: number,
  y: number,
  size: number,
): Array<[number, number]> {
  const r = size / 2;
  const star = (points: number, inner: number, turn: number): Array<[number, number]> =>
    Array.from({ length: points * 2 }, (_, k) => {
      const radius = k % 2 === 0 ? r : r * inner;
      const angle = turn + (Math.PI * k) / points;
      return [x + radius * Math.sin(angle), y - radius * Math.cos(angle)];
    });
  switch (shape) {
    case 'square':
      return [
        [x - r * 0.85, y - r * 0.85],
        [x + r * 0.85, y - r * 0.85],
        [x + r * 0.85, y + r * 0.85],
        [x - r * 0.85, y + r * 0.85],
      ];
    case 'triangle':
      return [
        [x, y - r],
        [x + r, y + r * 0.8],
        [x - r, y + r * 0.8],
      ];
    case 'triangleDown':
      return [
        [x, y + r],
        [x + r, y - r * 0.8],
        [x - r, y - r * 0.8],
      ];
    case 'diamond':
      return [
        [x, y - r],
        [x + r, y],
        [x, y + r],
        [x - r, y],
      ];
    case 'cross':
      return star(4, 0.35, Math.PI / 4);
    case 'plus':
      return star(4, 0.35, 0);
    case 'star':
      return star(5, 0.45, 0);
    case 'circle':
      return star(12, 1, 0);
  }
}
