import type { Contribution, FusionMethod } from './types';

/** One index's hits, best first, as the fusion functions see them. */
export interface RankedList<K> {
  index: string;
  weight: number;
  hits: ReadonlyArray<{ key: K; score: number }>;
}

export interface FusedEntry<K> {
  key: K;
  score: number;
  contributions: Contribution[];
}

export const DEFAULT_RRF_K = 60;

/**
 * Fuses several ranked lists into one, best first.
 *
 * - `rrf`: score = sum over lists of weight / (rrfK + rank), rank 1-based.
 * - `weighted`: each list's scores are min-max normalised to [0, 1] (a list whose scores are all
 *   equal normalises to 1), then score = sum of weight * normalised; absent from a list adds 0.
 * - `union`: every item once; score = the best weight * normalised score it got in any list, so
 *   each list's top item scores its weight. (Not round-robin: a list's runner-up can outrank
 *   another list's third item only by normalised score.)
 *
 * Ties are broken by the best (smallest) rank the item reached in any list, then by the order in
 * which the lists were given, so the output is deterministic.
 */
export function fuse<K>(
  lists: ReadonlyArray<RankedList<K>>,
  method: FusionMethod,
  rrfK: number = DEFAULT_RRF_K,
): Array<FusedEntry<K>> {
  interface Acc {
    key: K;
    score: number;
    bestRank: number;
    firstSeen: number;
    contributions: Contribution[];
  }
  const acc = new Map<K, Acc>();
  let seen = 0;
  for (const list of lists) {
    const hits = list.hits;
    let min = Infinity;
    let max = -Infinity;
    for (const hit of hits) {
      if (hit.score < min) min = hit.score;
      if (hit.score > max) max = hit.score;
    }
    const span = max - min;
    hits.forEach((hit, i) => {
      const rank = i + 1;
      const normalized = span > 0 ? (hit.score - min) / span : 1;
      let contribution: number;
      if (method === 'rrf') contribution = list.weight / (rrfK + rank);
      else contribution = list.weight * normalized;
      let entry = acc.get(hit.key);
      if (!entry) {
        entry = {
          key: hit.key,
          score: method === 'union' ? -Infinity : 0,
          bestRank: rank,
          firstSeen: seen++,
          contributions: [],
        };
        acc.set(hit.key, entry);
      }
      if (method === 'union') entry.score = Math.max(entry.score, contribution);
      else entry.score += contribution;
      if (rank < entry.bestRank) entry.bestRank = rank;
      entry.contributions.push({
        index: list.index,
        rank,
        score: hit.score,
        normalized,
        contribution,
      });
    });
  }
  return [...acc.values()]
    .sort((a, b) => b.score - a.score || a.bestRank - b.bestRank || a.firstSeen - b.firstSeen)
    .map(({ key, score, contributions }) => ({ key, score, contributions }));
}
