/**
 * Ten colours that stay apart side by side (d3's category10), so a full LoCoMo run's ten samples
 * each get their own; a dash pattern on top tells neighbours apart for colour-blind readers and
 * in greyscale prints.
 */
export const LINE_COLORS = [
  '#1f77b4',
  '#ff7f0e',
  '#2ca02c',
  '#d62728',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#7f7f7f',
  '#bcbd22',
  '#17becf',
] as const;

/** Solid, dashed, dotted, dash-dot: three of them never repeat on adjacent colours. */
export const LINE_DASHES = [undefined, '7 4', '2 3', '10 3 2 3'] as const;

export interface LineStyle {
  color: string;
  dash: string | undefined;
}

/** The i-th line's colour and dash: distinct pairs for the first 40 lines. */
export function lineStyle(index: number): LineStyle {
  return {
    color: LINE_COLORS[index % LINE_COLORS.length] ?? LINE_COLORS[0],
    dash: LINE_DASHES[(index + Math.floor(index / LINE_COLORS.length)) % LINE_DASHES.length],
  };
}
