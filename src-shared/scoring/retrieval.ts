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

/**
 * Evidence recall as LoCoMo's own evaluation computes it (snap-research/locomo
 * task_eval/evaluation.py, `eval_question_answering`, lines 236-247), which differs from
 * `evidenceRecallAtK` on purpose:
 * - evidence ids are the dataset's strings as written (`D30:05` does not match `D30:5`, a joined
 *   `D8:6; D9:17` is one id) and duplicates weigh twice;
 * - a question without evidence, or without a context, counts 1 (all questions in the mean);
 * - a context whose first id starts with `S` lists sessions (summaries): an evidence id counts
 *   when its session (`D3:12` -> `3`) is among them.
 * An empty context with evidence scores 0 (the reference would fail on `context[0]`).
 */
export function locomoEvidenceRecall(
  evidenceRaw: readonly string[],
  context: readonly string[] | null,
): number {
  if (context === null || evidenceRaw.length === 0) return 1;
  let found = 0;
  if (context[0]?.startsWith('S') === true) {
    const sessions = new Set(context.map((id) => id.slice(1)));
    for (const ev of evidenceRaw) if (sessions.has((ev.split(':')[0] ?? '').slice(1))) found++;
  } else {
    const ids = new Set(context);
    for (const ev of evidenceRaw) if (ids.has(ev)) found++;
  }
  return found / evidenceRaw.length;
}
