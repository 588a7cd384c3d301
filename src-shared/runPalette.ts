/**
 * How a comparison tells its runs apart: a letter and a colour per run, shared by the Compare
 * view and the exported HTML report, so a run is "B" and orange in both.
 */

/** A, B, …: short tags that tie a run's columns, bars and config values together. */
export function runLetter(index: number): string {
  return String.fromCharCode(65 + index);
}

/** Eight colours that stay distinguishable side by side (Tableau 10, minus the two greys). */
export const RUN_COLORS = [
  '#4e79a7',
  '#f28e2b',
  '#59a14f',
  '#b07aa1',
  '#e15759',
  '#76b7b2',
  '#edc948',
  '#9c755f',
] as const;

export function runColor(index: number): string {
  return RUN_COLORS[index % RUN_COLORS.length] ?? RUN_COLORS[0];
}
