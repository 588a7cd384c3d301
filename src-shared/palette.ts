/**
 * The one colour owner for every figure and run tag: Okabe & Ito's colour-blind-safe set, in an
 * order whose neighbours also differ in lightness (CIE L* 46, 71, 58, 89, …), so the first four
 * series stay apart when a paper is printed in grey. Colour is never the only cue: each series
 * also has a dash and a marker shape (`seriesStyle`). runPalette.ts (Compare, HTML report) and the
 * renderer's chart colours derive from here.
 */

/** Okabe-Ito (2008), ordered for lightness contrast between neighbours, not as published. */
export const SERIES_COLORS = [
  '#0072B2', // blue, L* 46
  '#E69F00', // orange, L* 71
  '#009E73', // bluish green, L* 58
  '#F0E442', // yellow, L* 89 (bars carry an ink outline, so it shows on white)
  '#D55E00', // vermillion, L* 54
  '#56B4E9', // sky blue, L* 70
  '#CC79A7', // reddish purple, L* 61
  '#000000', // black, L* 0
] as const;

/** Solid, dashed, dotted, dash-dot (SVG dasharray in units of the stroke's user space). */
export const SERIES_DASHES = [undefined, '6 3', '1.5 2.5', '8 3 2 3'] as const;

/** Marker shapes, drawn by the figure renderer; one per series before any repeats. */
export const SERIES_MARKERS = [
  'circle',
  'square',
  'triangle',
  'diamond',
  'triangleDown',
  'cross',
  'plus',
  'star',
] as const;
export type MarkerShape = (typeof SERIES_MARKERS)[number];

export interface SeriesStyle {
  color: string;
  dash: string | undefined;
  marker: MarkerShape;
}

/**
 * The i-th series' colour, dash and marker: neighbours differ in all three, and no
 * colour-dash-marker triple repeats within the first 32 series.
 */
export function seriesStyle(index: number): SeriesStyle {
  const i = Math.max(0, Math.floor(index));
  return {
    color: SERIES_COLORS[i % SERIES_COLORS.length] ?? SERIES_COLORS[0],
    dash: SERIES_DASHES[(i + Math.floor(i / SERIES_COLORS.length)) % SERIES_DASHES.length],
    marker: SERIES_MARKERS[i % SERIES_MARKERS.length] ?? 'circle',
  };
}

/**
 * A sequential ramp for heatmaps (viridis' stops): lightness rises monotonically from the first
 * stop to the last, so a grey print still orders the cells.
 */
export const SEQUENTIAL_RAMP = ['#440154', '#3B528B', '#21918C', '#5EC962', '#FDE725'] as const;

function channels(hex: string): [number, number, number] {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function hexOf([r, g, b]: readonly number[]): string {
  return `#${[r, g, b]
    .map((c) =>
      Math.round(c ?? 0)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
}

/** The ramp's colour at t in [0, 1] (clamped), linearly between its stops. */
export function rampColor(t: number): string {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (SEQUENTIAL_RAMP.length - 1);
  const at = Math.min(SEQUENTIAL_RAMP.length - 2, Math.floor(x));
  const a = channels(SEQUENTIAL_RAMP[at] ?? SEQUENTIAL_RAMP[0]);
  const b = channels(SEQUENTIAL_RAMP[at + 1] ?? SEQUENTIAL_RAMP[0]);
  const f = x - at;
  return hexOf(a.map((c, k) => c + ((b[k] ?? 0) - c) * f));
}

/** CIE L* (0 black … 100 white) of a #rrggbb colour: what a greyscale print keeps of it. */
export function lightness(hex: string): number {
  const y = luminance(hex);
  const f = y > 216 / 24389 ? Math.cbrt(y) : (24389 / 27 / 116) * y + 16 / 116;
  return 116 * f - 16;
}

/** WCAG relative luminance of a #rrggbb colour. */
export function luminance(hex: string): number {
  return channels(hex)
    .map((c) => c / 255)
    .map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
    .reduce((sum, c, k) => sum + c * ([0.2126, 0.7152, 0.0722][k] ?? 0), 0);
}

/**
 * Ink for text drawn on a fill (a run tag, a heatmap cell): black or white, whichever contrasts
 * more; on every series colour that is at least 5:1.
 */
export function inkOn(fill: string): '#000000' | '#ffffff' {
  const y = luminance(fill);
  return (y + 0.05) / 0.05 >= 1.05 / (y + 0.05) ? '#000000' : '#ffffff';
}

/** WCAG contrast ratio of two #rrggbb colours (1 … 21). */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}
