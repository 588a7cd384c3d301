/**
 * Evidence recall@k: the share of a question's evidence turns (normalised `dia_id`s such as
 * `D3:12`) found among the first k retrieved turns.
 *
 * A question without evidence has no recall: the result is `undefined` and such questions are
 * excluded from means (they are neither perfect nor zero). Evidence ids are deduplicated first,
 * so a gold list that names a turn twice does not weigh it twice.
 */
import { WorkbenchError } from '../errors';

export function evidenceRecallAtK(
  evidence: readonly string[],
  retrieved: readonly string[],
  k?: number,
): number | undefined {
  if (k !== undefined && !(Number.isInteger(k) && k >= 0)) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `evidenceRecallAtK: k must be a non-negative integer, got ${k}`,
    );
  }
  const gold = new Set(evidence);
  if (gold.size === 0) return undefined;
  const window = new Set(k === undefined ? retrieved : retrieved.slice(0, k));
  let found = 0;
  for (const id of gold) if (window.has(id)) found++;
  return found / gold.size;
}

/** Mean recall over questions, skipping those without evidence; `n` counts the questions used. */
export function meanEvidenceRecall(recalls: readonly (number | undefined)[]): {
  mean: number;
  n: number;
} {
  let sum = 0;
  let n = 0;
  for (const recall of recalls) {
    if (recall === undefined) continue;
    sum += recall;
    n++;
  }
  return { mean: n === 0 ? Number.NaN : sum / n, n };
}
