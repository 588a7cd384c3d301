/**
 * LongMemEval's retrieval metrics as the reference computes them (xiaowu0162/LongMemEval
 * `src/retrieval/eval_utils.py`, called from `src/retrieval/run_retrieval.py` at turn granularity):
 * recall_any@k (1 when one evidence item is among the first k), recall_all@k (1 when every one
 * is) and ndcg_any@k (binary relevance, DCG = rel[0] + sum rel[i] / log2(i + 1)).
 *
 * The reference's corpus holds the user turns only (`process_item_flat_index`), so assistant
 * turns neither take up k nor count as evidence; a question with no user `has_answer` turn has no
 * value (the reference skips it, as it skips abstention). Session level
 * (`evaluate_retrieval_turn2session`) maps turns to sessions, a turn of an answer session without
 * `has_answer` being another session (the reference renames it `noans_…`), and reads the ranking
 * until it holds k distinct sessions (the effective k). The ranking is the memory's, read as deep
 * as `lmeRankingReachesDepth` asks (the pipeline retrieves further for it); where the memory could
 * not return that many items, the value is a lower bound.
 */

export interface LmeRetrievalInput {
  /** The reference's corpus, the turns it ranks (LongMemEval: the user turns). */
  corpus: readonly string[];
  /** Turns marked `has_answer`; those outside the corpus are not evidence. */
  evidence: readonly string[];
  /** Retrieved turn ids, best first; ids outside the corpus are skipped. */
  ranked: readonly string[];
  k: number;
}

export interface LmeRetrievalScores {
  recallAny: number;
  recallAll: number;
  ndcgAny: number;
}

/** `D12:3` -> `D12`: turn ids name their session before the colon. */
export function sessionOfTurn(id: string): string {
  const colon = id.indexOf(':');
  return colon < 0 ? id : id.slice(0, colon);
}

/** eval_utils.py `dcg`: the first item undiscounted, item i (0-based) over log2(i + 1). */
function dcg(relevances: readonly number[], k: number): number {
  const top = relevances.slice(0, k);
  let sum = top[0] ?? 0;
  for (let i = 1; i < top.length; i++) sum += (top[i] as number) / Math.log2(i + 1);
  return sum;
}

/** eval_utils.py `evaluate_retrieval` over keyed items (turn ids, or session keys). */
function evaluate(
  rankedKeys: readonly string[],
  correct: ReadonlySet<string>,
  corpusKeys: readonly string[],
  k: number,
): LmeRetrievalScores {
  const recalled = new Set(rankedKeys.slice(0, k));
  const found = [...correct].filter((key) => recalled.has(key)).length;
  const relevance = (key: string): number => (correct.has(key) ? 1 : 0);
  const ideal = dcg(
    corpusKeys.map(relevance).sort((a, b) => b - a),
    k,
  );
  return {
    recallAny: found > 0 ? 1 : 0,
    recallAll: found === correct.size ? 1 : 0,
    ndcgAny: ideal === 0 ? 0 : dcg(rankedKeys.slice(0, k).map(relevance), k) / ideal,
  };
}

/** The corpus, its evidence and the ranking restricted to it, each turn once; null: no evidence. */
function restrict(input: LmeRetrievalInput): { gold: Set<string>; ranked: string[] } | null {
  const corpus = new Set(input.corpus);
  const gold = new Set(input.evidence.filter((id) => corpus.has(id)));
  if (gold.size === 0) return null;
  const ranked = [...new Set(input.ranked.filter((id) => corpus.has(id)))];
  return { gold, ranked };
}

export function lmeTurnRetrieval(input: LmeRetrievalInput): LmeRetrievalScores | null {
  const restricted = restrict(input);
  if (!restricted) return null;
  return evaluate(restricted.ranked, restricted.gold, input.corpus, input.k);
}

/** A non-evidence turn keys to another session than its evidence turns (the reference's `noans`). */
function sessionKeyOf(gold: ReadonlySet<string>): (id: string) => string {
  return (id) => (gold.has(id) ? sessionOfTurn(id) : `noans ${sessionOfTurn(id)}`);
}

/**
 * Whether a ranking is deep enough for both levels at k to equal the reference's over the memory's
 * whole ranking: it holds k distinct session keys among the corpus turns (the session level's
 * effective k ends there, and the turn level's first k corpus turns are within it), or every
 * corpus turn. True for a question the metrics give no value.
 */
export function lmeRankingReachesDepth(input: LmeRetrievalInput): boolean {
  const restricted = restrict(input);
  if (!restricted) return true;
  const { gold, ranked } = restricted;
  if (ranked.length >= new Set(input.corpus).size) return true;
  return new Set(ranked.map(sessionKeyOf(gold))).size >= input.k;
}

export function lmeSessionRetrieval(input: LmeRetrievalInput): LmeRetrievalScores | null {
  const restricted = restrict(input);
  if (!restricted) return null;
  const { gold, ranked } = restricted;
  const key = sessionKeyOf(gold);
  const corpusKeys = input.corpus.map(key);
  const rankedKeys = ranked.map(key);
  let effectiveK = input.k;
  while (
    effectiveK <= corpusKeys.length &&
    new Set(rankedKeys.slice(0, effectiveK)).size < input.k
  ) {
    effectiveK++;
  }
  return evaluate(rankedKeys, new Set([...gold].map(sessionOfTurn)), corpusKeys, effectiveK);
}
