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

/** Round ticks (1, 2 or 5 × 10^k apart) covering [min, max], about `target` of them. */
export function niceTicks(min: number, max: number, target = 5): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / Math.max(1, target - 1);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((m) => m * power >= raw) ?? 10) * power;
  const ticks: number[] = [];
  for (let t = Math.ceil(min / step) * step; t <= max + step * 1e-9; t += step) {
    ticks.push(Math.round(t / step) * step);
  }
  return ticks;
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
  const ticks = niceTicks(xMin, xMax);
  const left = yAxisWidth(fs, SCORE_TICKS.map(formatTick));
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
