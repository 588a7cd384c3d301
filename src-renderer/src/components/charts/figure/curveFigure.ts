import type { SeriesStyle } from '@shared/palette';
import type { Scene, Shape } from './scene';
import {
  FIGURE_SIZES,
  GRID,
  INK,
  MUTED,
  SCORE_TICKS,
  formatTick,
  legend,
  lineHeight,
  scoreAxisShapes,
  yAxisWidth,
  type FigureOptions,
} from './layout';
import { ASCENT, DESCENT, textWidth } from './textMetrics';

/** Lines over a numeric x (dialogs inserted, or test index), scores on y. */
export interface CurveFigureInput {
  title: string;
  caption: string;
  yTitle: string;
  xTitle: string;
  lines: ReadonlyArray<{
    label: string;
    style: SeriesStyle;
    points: ReadonlyArray<readonly [number, number | null]>;
  }>;
}

export interface TickOptions {
  /** How many ticks to aim for; the default reads well at a column's width. */
  target?: number;
  /** The most that fit the axis' width with room between their labels. */
  most?: number;
  /** Whole numbers only (dialogs inserted, test index): no tick at 2.5 dialogs. */
  integer?: boolean;
}

/** The multiples of `step` inside [min, max]. */
function ticksEvery(min: number, max: number, step: number): number[] {
  const ticks: number[] = [];
  for (let k = Math.ceil(min / step - 1e-9); k * step <= max + step * 1e-9; k++) {
    ticks.push(Number((k * step).toPrecision(12)));
  }
  return ticks;
}

/**
 * Round ticks (1, 2 or 5 × 10^k apart) inside [min, max], as many as lie nearest `target` (4 to 6
 * where the range allows; the plain "step ≥ range / 4" rule gave an axis from 4 to 48 only 20
 * and 40), never more than `most`. Both the on-screen curve and the saved figure use it.
 */
export function niceTicks(min: number, max: number, options: TickOptions = {}): number[] {
  if (!(max > min)) return [min];
  const { target = 5, most = Infinity, integer = false } = options;
  const top = Math.floor(Math.log10(max - min));
  let best: number[] = [];
  for (let power = top - 2; power <= top + 1; power++) {
    for (const m of [1, 2, 5]) {
      const step = m * 10 ** power;
      if (integer && step < 1) continue;
      const ticks = ticksEvery(min, max, step);
      if (ticks.length === 0 || ticks.length > most) continue;
      // Nearest the target; on a tie the larger step (fewer, roomier labels), seen later.
      if (best.length === 0 || Math.abs(ticks.length - target) <= Math.abs(best.length - target))
        best = ticks;
    }
  }
  return best.length > 0 ? best : [min];
}

const tickText = (v: number): string =>
  Number.isInteger(v) ? v.toLocaleString('en-US') : String(Math.round(v * 100) / 100);

export function curveFigure(input: CurveFigureInput, options: FigureOptions): Scene {
  const fs = options.fontSize;
  const width = FIGURE_SIZES[options.size].width;
  const plotHeight = Math.min(190, Math.max(100, width * 0.42));
  const shapes: Shape[] = [];
  const xs = input.lines.flatMap((l) => l.points.map(([x]) => x));
  const xMin = xs.length > 0 ? Math.min(...xs) : 0;
  const xMax = xs.length > 0 ? Math.max(...xs) : 1;
  const left = yAxisWidth(fs, SCORE_TICKS.map(formatTick));
  // As many ticks as fit with a label's width and a space between neighbours.
  const labelRoom = textWidth(tickText(xMax), fs) + fs;
  const ticks = niceTicks(xMin, xMax, {
    most: Math.max(2, Math.floor((width - left - labelRoom / 2) / labelRoom) + 1),
    integer: xs.every((v) => Number.isInteger(v)),
  });
  // The last tick's label is centred on the plot's right edge: half of it must fit beyond it.
  const lastTick = ticks[ticks.length - 1];
  const right =
    width -
    Math.max(fs * 0.5, lastTick === undefined ? 0 : textWidth(tickText(lastTick), fs) / 2 + 1);
  const legendBox = legend(
    input.lines.map((l) => ({ label: l.label, style: l.style, kind: 'line' as const })),
    left,
    fs * 0.3,
    right - left,
    fs,
  );
  shapes.push(...legendBox.shapes);
  const top = fs * 0.3 + legendBox.height + fs * 0.6;
  const bottom = top + plotHeight;
  const y = (v: number): number => bottom - Math.min(1, Math.max(0, v)) * plotHeight;
  const x = (v: number): number =>
    xMax > xMin ? left + ((v - xMin) / (xMax - xMin)) * (right - left) : (left + right) / 2;
  shapes.push(...scoreAxisShapes({ left, right, top, bottom, y }, input.yTitle, fs));
  for (const t of ticks) {
    shapes.push({
      kind: 'line',
      role: 'grid',
      points: [
        [x(t), top],
        [x(t), bottom],
      ],
      stroke: GRID,
      strokeWidth: 0.4,
    });
    shapes.push({
      kind: 'text',
      role: 'tick',
      x: x(t),
      y: bottom + fs * 0.3 + ASCENT * fs,
      text: tickText(t),
      size: fs,
      anchor: 'middle',
      fill: MUTED,
    });
  }
  const height = bottom + fs * 0.3 + lineHeight(fs) * 2 + fs * 0.3;
  shapes.push({
    kind: 'text',
    role: 'axis-title-x',
    x: (left + right) / 2,
    y: height - fs * 0.3 - DESCENT * fs,
    text: input.xTitle,
    size: fs,
    anchor: 'middle',
    fill: INK,
  });
  input.lines.forEach((line) => {
    const drawn = line.points.flatMap(([px, py]) =>
      py === null ? [] : [[x(px), y(py)] as [number, number]],
    );
    shapes.push({
      kind: 'line',
      role: 'line',
      group: line.label,
      points: drawn,
      stroke: line.style.color,
      strokeWidth: 1.2,
      dash: line.style.dash,
    });
    for (const [px, py] of drawn) {
      shapes.push({
        kind: 'marker',
        role: 'marker',
        group: line.label,
        shape: line.style.marker,
        x: px,
        y: py,
        size: fs * 0.55,
        color: line.style.color,
      });
    }
  });
  return { width, height, title: input.title, caption: input.caption, shapes };
}
