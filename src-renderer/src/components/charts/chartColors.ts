import { createElement, type ReactNode } from 'react';

/**
 * The charts' chrome (ink, tick labels, grid) in CSS variables, so recharts draws in the app's
 * theme (styles.css defines them for light and dark). The series colours stay fixed: they are
 * chosen to read on both backgrounds.
 */
export const CHART_COLORS = {
  ink: 'var(--chart-ink)',
  muted: 'var(--muted)',
  grid: 'var(--chart-grid)',
} as const;

/**
 * The score axis both charts draw (category bars, accuracy over the conversation): every metric
 * they plot is a fraction, so 0 to 1 in quarters, two decimals, in the theme's muted ink.
 */
export const SCORE_AXIS = {
  domain: [0, 1] as [number, number],
  ticks: [0, 0.25, 0.5, 0.75, 1],
  width: 44,
  tickFormatter: (v: number): string => v.toFixed(2),
  tick: { fontSize: 12, fill: CHART_COLORS.muted },
};

/**
 * A legend entry's text, for recharts' `Legend formatter`: recharts writes it in its series'
 * colour, and series colours are picked for lines and bars, not for text (#2f6fde is 3.5:1 on the
 * dark surface, #009e73 3.4:1 on the light one; text needs 4.5:1). The text takes the theme's
 * ink; the icon beside it keeps the series' colour and dash.
 */
export function legendText(value: ReactNode): ReactNode {
  return createElement('span', { style: { color: CHART_COLORS.ink } }, value);
}
