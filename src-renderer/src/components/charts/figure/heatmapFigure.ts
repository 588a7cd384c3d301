import { inkOn, rampColor } from '@shared/palette';
import { heatPosition, heatScaleEnd, type HeatScale } from '@shared/sweeps';
import type { Scene, Shape } from './scene';
import { FIGURE_SIZES, INK, MUTED, lineHeight, yTitle, type FigureOptions } from './layout';
import { ASCENT, DESCENT, fitText, textWidth } from './textMetrics';

/** A sweep's grid: one cell per (x, y) grid point, coloured by its mean on a grey-safe ramp. */
export interface HeatmapFigureInput {
  title: string;
  caption: string;
  xTitle: string;
  yTitle: string;
  /** What the colour means, e.g. "Mean official F1". */
  valueTitle: string;
  xs: readonly string[];
  ys: readonly string[];
  cell: (x: string, y: string) => { mean: number | null; n: number } | undefined;
  /** What the colours span (sweeps.ts heatScale): the metric's range, or the cells' if chosen. */
  scale: HeatScale;
}

export function heatmapFigure(input: HeatmapFigureInput, options: FigureOptions): Scene {
  const fs = options.fontSize;
  const width = FIGURE_SIZES[options.size].width;
  const shapes: Shape[] = [];
  const rowLabelWidth = Math.min(
    width * 0.3,
    Math.max(...input.ys.map((v) => textWidth(v, fs)), 0) + fs * 0.5,
  );
  const left = lineHeight(fs) + fs * 0.4 + rowLabelWidth;
  const barWidth = fs * 0.9;
  const scaleLabel = textWidth('0.000', fs);
  const right = width - (barWidth + fs * 0.6 + scaleLabel + lineHeight(fs) + fs * 0.6);
  const top = fs * 0.6;
  const cellW = (right - left) / Math.max(1, input.xs.length);
  // Tall enough that the y title and the colour scale's title fit beside the rows uncut.
  const titlesFit =
    (Math.max(textWidth(input.yTitle, fs), textWidth(input.valueTitle, fs)) + fs) /
    Math.max(1, input.ys.length);
  const cellH = Math.max(Math.min(cellW * 0.7, fs * 3.2), titlesFit);
  const bottom = top + cellH * Math.max(1, input.ys.length);
  const t = (v: number): number => heatPosition(input.scale, v);
  input.ys.forEach((yv, yi) => {
    const cy = top + yi * cellH;
    shapes.push({
      kind: 'text',
      role: 'tick',
      x: left - fs * 0.4,
      y: cy + cellH / 2 + (ASCENT * fs) / 2,
      text: fitText(yv, fs, rowLabelWidth - fs * 0.4),
      size: fs,
      anchor: 'end',
      fill: INK,
    });
    input.xs.forEach((xv, xi) => {
      const cell = input.cell(xv, yv);
      const mean = cell?.mean ?? null;
      const fill = mean === null ? '#ffffff' : rampColor(t(mean));
      const tag = `${xi}:${yi}`;
      shapes.push({
        kind: 'rect',
        role: 'cell',
        group: tag,
        x: left + xi * cellW,
        y: cy,
        w: cellW,
        h: cellH,
        fill,
        stroke: '#ffffff',
        strokeWidth: 0.8,
      });
      shapes.push({
        kind: 'text',
        role: 'value-label',
        group: tag,
        x: left + xi * cellW + cellW / 2,
        y: cy + cellH / 2 + (ASCENT * (fs - 1)) / 2,
        text: fitText(mean === null ? '–' : mean.toFixed(3), fs - 1, cellW - 2),
        size: fs - 1,
        anchor: 'middle',
        fill: mean === null ? MUTED : inkOn(fill),
      });
    });
  });
  input.xs.forEach((xv, xi) => {
    shapes.push({
      kind: 'text',
      role: 'tick',
      x: left + xi * cellW + cellW / 2,
      y: bottom + fs * 0.3 + ASCENT * fs,
      text: fitText(xv, fs, cellW - 2),
      size: fs,
      anchor: 'middle',
      fill: INK,
    });
  });
  const height = bottom + fs * 0.3 + lineHeight(fs) * 2 + fs * 0.3;
  shapes.push({
    kind: 'text',
    role: 'axis-title-x',
    x: (left + right) / 2,
    y: height - fs * 0.3 - DESCENT * fs,
    text: fitText(input.xTitle, fs, right - left),
    size: fs,
    anchor: 'middle',
    fill: INK,
  });
  shapes.push(yTitle({ top, bottom }, input.yTitle, fs));
  // The colour scale: the ramp in steps, its ends labelled with the scale's ends.
  const barX = right + fs * 0.6;
  const steps = 24;
  for (let k = 0; k < steps; k++) {
    shapes.push({
      kind: 'rect',
      role: 'colorbar',
      x: barX,
      y: top + ((bottom - top) * k) / steps,
      w: barWidth,
      h: (bottom - top) / steps + 0.2,
      fill: rampColor(1 - (k + 0.5) / steps),
    });
  }
  const scaleText = (v: number, yAt: number): Shape => ({
    kind: 'text',
    role: 'colorbar',
    x: barX + barWidth + fs * 0.3,
    y: yAt,
    // Three decimals on the cells' range, as the cells: it is often narrower than 0.01.
    text: heatScaleEnd(input.scale, v),
    size: fs,
    anchor: 'start',
    fill: MUTED,
  });
  shapes.push(scaleText(input.scale.hi, top + ASCENT * fs), scaleText(input.scale.lo, bottom));
  shapes.push({
    kind: 'text',
    role: 'legend',
    // Read top to bottom, its glyphs' tops to the right: the ascent is what meets the edge.
    x: width - fs * 0.3 - ASCENT * fs,
    y: (top + bottom) / 2,
    text: fitText(input.valueTitle, fs, bottom - top),
    size: fs,
    anchor: 'middle',
    fill: INK,
    rotate: 270,
  });
  return { width, height, title: input.title, caption: input.caption, shapes };
}
