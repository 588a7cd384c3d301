import type { SeriesStyle } from '@shared/palette';
import { overlaps, textBox, type Box, type Scene, type Shape, type TextShape } from './scene';
import {
  FIGURE_SIZES,
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
import { ASCENT, DESCENT, textWidth, wrapText } from './textMetrics';

/** A grouped bar chart with 95% whiskers: per-category scores of one run or several. */
export interface BarFigureInput {
  title: string;
  caption: string;
  /** The metric's registry label, e.g. "Mean official F1". */
  yTitle: string;
  /** What the groups are, e.g. "Category (official LoCoMo names)". */
  xTitle: string;
  series: ReadonlyArray<{ label: string; style: SeriesStyle }>;
  groups: ReadonlyArray<{
    label: string;
    /** Shown under the label, e.g. "n=282". */
    note: string;
    /** One per series, in the series' order. */
    values: ReadonlyArray<{
      value: number | null;
      interval?: readonly [number, number] | undefined;
    }>;
  }>;
}

export interface BarFigure {
  scene: Scene;
  /** Value labels are drawn beyond the whisker cap, or all left out when any would collide. */
  valueLabels: 'shown' | 'dropped' | 'none';
}

const clamp01 = (v: number): number => Math.min(1, Math.max(0, v));

/** The tick labels under each group: wrapped between words, or all turned upright when one word is too wide. */
function groupTicks(input: BarFigureInput, band: number, fontSize: number) {
  const wrapped = input.groups.map((g) => wrapText(g.label, fontSize, band - 2));
  const notesFit = input.groups.every((g) => textWidth(g.note, fontSize) <= band - 2);
  const upright = !notesFit || wrapped.some((lines) => lines === null);
  const lines = upright
    ? input.groups.map((g) => [`${g.label} (${g.note})`])
    : wrapped.map((l, i) => [...(l ?? []), input.groups[i]?.note ?? '']);
  const height = upright
    ? Math.max(...lines.map(([t]) => textWidth(t ?? '', fontSize))) + fontSize * 0.6
    : Math.max(...lines.map((l) => l.length)) * lineHeight(fontSize) + fontSize * 0.3;
  return { upright, lines, height };
}

export function barFigure(input: BarFigureInput, options: FigureOptions): BarFigure {
  const fs = options.fontSize;
  const width = FIGURE_SIZES[options.size].width;
  const plotHeight = Math.min(190, Math.max(100, width * 0.42));
  const labelSize = fs - 1;
  const shapes: Shape[] = [];

  const left = yAxisWidth(fs, SCORE_TICKS.map(formatTick));
  const right = width - fs * 0.5;
  const multi = input.series.length > 1;
  const legendBox = multi
    ? legend(
        input.series.map((s) => ({ label: s.label, style: s.style, kind: 'bar' as const })),
        left,
        fs * 0.3,
        right - left,
        fs,
      )
    : { shapes: [], height: 0 };
  shapes.push(...legendBox.shapes);
  const legendBottom = fs * 0.3 + legendBox.height;
  // Room above the 1.00 line for a value label over a whisker that reaches it.
  const top = legendBottom + lineHeight(labelSize) + 2;
  const bottom = top + plotHeight;
  const y = (v: number): number => bottom - clamp01(v) * plotHeight;
  const axis = { left, right, top, bottom, y };

  const band = (right - left) / Math.max(1, input.groups.length);
  const ticks = groupTicks(input, band, fs);
  const height = bottom + fs * 0.3 + ticks.height + lineHeight(fs) + fs * 0.3;
  shapes.push(...scoreAxisShapes(axis, input.yTitle, fs));

  const count = Math.max(1, input.series.length);
  const barWidth = Math.min((band * 0.8) / count, fs * 3.5);
  const capWidth = Math.min(barWidth * 0.6, fs * 0.8);
  const labels: TextShape[] = [];
  const obstacles: Box[] = [];
  input.groups.forEach((group, gi) => {
    const start = left + gi * band + (band - barWidth * count) / 2;
    group.values.forEach(({ value, interval }, si) => {
      const style = input.series[si]?.style;
      if (value === null || !style) return;
      const tag = `${si}:${gi}`;
      const x = start + si * barWidth;
      const cx = x + barWidth / 2;
      shapes.push({
        kind: 'rect',
        role: 'bar',
        group: tag,
        x,
        y: y(value),
        w: barWidth,
        h: bottom - y(value),
        fill: style.color,
        stroke: INK,
        strokeWidth: 0.4,
      });
      let above = y(value);
      if (interval) {
        const [lo, hi] = [y(interval[0]), y(interval[1])];
        const whisker = (points: Array<[number, number]>): Shape => ({
          kind: 'line',
          role: 'whisker',
          group: tag,
          points,
          stroke: INK,
          strokeWidth: 0.7,
        });
        shapes.push(
          whisker([
            [cx, lo],
            [cx, hi],
          ]),
          whisker([
            [cx - capWidth / 2, hi],
            [cx + capWidth / 2, hi],
          ]),
          whisker([
            [cx - capWidth / 2, lo],
            [cx + capWidth / 2, lo],
          ]),
        );
        obstacles.push({ x: cx - capWidth / 2, y: hi - 0.35, w: capWidth, h: lo - hi + 0.7 });
        above = Math.min(above, hi);
      }
      obstacles.push({ x, y: y(value), w: barWidth, h: bottom - y(value) });
      labels.push({
        kind: 'text',
        role: 'value-label',
        group: tag,
        x: cx,
        // Beyond the cap: its descent clears the cap by a point.
        y: above - 1 - DESCENT * labelSize,
        text: value.toFixed(2),
        size: labelSize,
        anchor: 'middle',
        fill: INK,
      });
    });
    const tickTop = bottom + fs * 0.3;
    const cx = left + gi * band + band / 2;
    const lines = ticks.lines[gi] ?? [];
    if (ticks.upright) {
      shapes.push({
        kind: 'text',
        role: 'tick',
        x: cx + (ASCENT * fs) / 2,
        y: tickTop,
        text: lines[0] ?? '',
        size: fs,
        anchor: 'end',
        fill: INK,
        rotate: 90,
      });
    } else {
      lines.forEach((line, li) => {
        shapes.push({
          kind: 'text',
          role: 'tick',
          x: cx,
          y: tickTop + ASCENT * fs + li * lineHeight(fs),
          text: line,
          size: fs,
          anchor: 'middle',
          fill: li === lines.length - 1 ? MUTED : INK,
        });
      });
    }
  });
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

  // A label is kept only if no label collides with a whisker, a bar, another label or the
  // figure's edge (legend included); otherwise none is drawn, so the figure is never half-labelled.
  const area: Box = { x: 0, y: legendBottom, w: width, h: bottom - legendBottom };
  const boxes = labels.map((l) => textBox(l));
  const collides = boxes.some(
    (b, i) =>
      b.x < area.x ||
      b.y < area.y ||
      b.x + b.w > area.x + area.w ||
      obstacles.some((o) => overlaps(b, o)) ||
      boxes.some((other, j) => j !== i && overlaps(b, other, 1)),
  );
  if (!collides) shapes.push(...labels);
  return {
    scene: { width, height, title: input.title, caption: input.caption, shapes },
    valueLabels: labels.length === 0 ? 'none' : collides ? 'dropped' : 'shown',
  };
}
