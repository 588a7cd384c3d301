/**
 * Caption sentences a paper needs beside a figure (n, the interval's method and level, its
 * resamples and seed), written once here so each figure's caption says them the same way.
 */

export interface BootstrapInterval {
  resamples: number;
  seed: number;
}

export const formatCount = (n: number): string => n.toLocaleString('en-US');

export function bootstrapSentence({ resamples, seed }: BootstrapInterval): string {
  return `Whiskers: 95% percentile bootstrap interval of the mean over questions (${formatCount(resamples)} resamples, seed ${seed}).`;
}

/** "n = 282, 321 and 96 questions per category" style list; equal n said once. */
export function nSentence(what: string, ns: readonly number[]): string {
  if (ns.length === 0) return '';
  const distinct = new Set(ns);
  if (distinct.size === 1) return `n = ${formatCount(ns[0] ?? 0)} questions per ${what}.`;
  return `n = ${ns.map(formatCount).join(', ')} questions per ${what}, in order.`;
}

export function joinSentences(...parts: ReadonlyArray<string | false | null | undefined>): string {
  return parts.filter((p): p is string => typeof p === 'string' && p.trim() !== '').join(' ');
}
