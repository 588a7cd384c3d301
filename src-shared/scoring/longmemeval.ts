/**
 * LongMemEval's retrieval recall (xiaowu0162/LongMemEval `src/retrieval/eval_utils.py`):
 * `recall_all@k` is 1 when every evidence item is among the first k retrieved, else 0 (the paper
 * reports it at turn and session level; `recall_any@k` is 1 when one is). Turn level: evidence =
 * the turns with `has_answer`. Session level (`evaluate_retrieval_turn2session`): retrieved turns
 * and evidence turns are mapped to their sessions (a turn without `has_answer` never stands for
 * an answer session: the reference renames it `noans_…`), and the ranked list is read until it
 * holds k distinct sessions. Here the list is the run's top-k turns, so at session level k is the number
 * of distinct sessions among them (the reference reads further down its ranking when the top k
 * turns span fewer than k sessions; a memory service returns only top-k, so this is a lower bound).
 * No evidence: no recall (null), as the reference skips abstention and evidence-less questions.
 */

/** `D12:3` -> `D12`: turn ids name their session before the colon. */
export function sessionOfTurn(id: string): string {
  const colon = id.indexOf(':');
  return colon < 0 ? id : id.slice(0, colon);
}

export function recallAll(
  evidence: readonly string[],
  retrieved: readonly string[],
): number | null {
  const gold = new Set(evidence);
  if (gold.size === 0) return null;
  const found = new Set(retrieved);
  for (const id of gold) if (!found.has(id)) return 0;
  return 1;
}

export function turnRecallAll(
  evidence: readonly string[],
  retrieved: readonly string[],
): number | null {
  return recallAll(evidence, retrieved);
}

export function sessionRecallAll(
  evidence: readonly string[],
  retrieved: readonly string[],
): number | null {
  const gold = new Set(evidence);
  // run_retrieval.py renames the turns of an answer session that lack `has_answer` to `noans_…`,
  // so after strip_turn_id they are another session: only an evidence turn retrieves its session.
  const sessionKey = (id: string): string =>
    gold.has(id) ? sessionOfTurn(id) : `noans ${sessionOfTurn(id)}`;
  return recallAll(evidence.map(sessionOfTurn), retrieved.map(sessionKey));
}
