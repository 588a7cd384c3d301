/**
 * Official LoCoMo QA scoring, as in `task_eval/evaluation.py` of snap-research/locomo:
 * `normalize_answer`, `f1_score` (Porter-stemmed multiset token F1), `f1` (the multi-hop variant)
 * and the per-category dispatch of `eval_question_answering`. Golden values produced by the
 * Python reference live in `tests/fixtures/golden/scores.json`.
 */
import { memoizeStringPair } from '../memo';
import { createCachedStemmer } from './porter';
import { pySplit, pyStrip, regexReplaceWholeWords, removeAsciiPunctuation } from './pytext';

/** LoCoMo categories by their stored number (official names: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial). */
export type LocomoCategory = 1 | 2 | 3 | 4 | 5;

const stem = createCachedStemmer();

const ARTICLES = ['a', 'an', 'the', 'and'] as const;

/**
 * `normalize_answer`: drop commas, lowercase, drop ASCII punctuation, replace the words
 * a/an/the/and with a space (word boundaries of the `regex` module the reference imports, whose word
 * characters include marks and joiners), collapse whitespace.
 */
export function normalizeAnswer(s: string): string {
  const noCommas = s.replaceAll(',', '');
  const text = regexReplaceWholeWords(
    removeAsciiPunctuation(noCommas.toLowerCase()),
    ARTICLES,
    ' ',
  );
  return pySplit(text).join(' ');
}

/** The tokens `f1_score` compares: the normalised answer split on whitespace, each Porter-stemmed. */
export function officialTokens(s: string): string[] {
  return pySplit(normalizeAnswer(s)).map(stem);
}

/** Multiset overlap F1 of two token lists (`Counter(a) & Counter(b)`); 0 when nothing overlaps. */
export function multisetF1(
  predictionTokens: readonly string[],
  goldTokens: readonly string[],
): number {
  const goldCounts = new Map<string, number>();
  for (const token of goldTokens) goldCounts.set(token, (goldCounts.get(token) ?? 0) + 1);
  let same = 0;
  for (const token of predictionTokens) {
    const left = goldCounts.get(token) ?? 0;
    if (left > 0) {
      same++;
      goldCounts.set(token, left - 1);
    }
  }
  if (same === 0) return 0;
  const precision = same / predictionTokens.length;
  const recall = same / goldTokens.length;
  return (2 * precision * recall) / (precision + recall);
}

/** `f1_score(prediction, ground_truth)`. */
export const f1Score = memoizeStringPair(function f1Score(
  prediction: string,
  gold: string,
): number {
  return multisetF1(officialTokens(prediction), officialTokens(gold));
});

/**
 * `f1(prediction, ground_truth)`, used for category 1 (multi-hop): both sides are split on commas;
 * the score is the mean over gold parts of the best F1 any prediction part reaches.
 */
export function multiHopF1(prediction: string, gold: string): number {
  const predictions = prediction.split(',').map(pyStrip);
  const golds = gold.split(',').map(pyStrip);
  let total = 0;
  for (const g of golds) total += Math.max(...predictions.map((p) => f1Score(p, g)));
  return total / golds.length;
}

const ADVERSARIAL_MARKERS = ['no information available', 'not mentioned'] as const;

/** Category 5: correct when the lowercased answer contains "no information available" or "not mentioned". */
export function adversarialCorrect(prediction: string): 0 | 1 {
  const lowered = prediction.toLowerCase();
  return ADVERSARIAL_MARKERS.some((marker) => lowered.includes(marker)) ? 1 : 0;
}

/**
 * The official per-question score. The gold answer is compared as a string (`str(answer)`), so a
 * numeric gold such as 2022 becomes "2022". Category 3 golds are cut at the first `;`. Category 5
 * ignores the gold (444 of its 446 questions have none). A missing gold for categories 1-4 (which
 * LoCoMo never has) scores as an empty answer, i.e. 0.
 */
export function officialF1(
  prediction: string,
  gold: string | number | null,
  category: LocomoCategory,
): number {
  return officialScore(prediction, gold, LOCOMO_OFFICIAL_RULES[category]);
}

/**
 * How `task_eval/evaluation.py` scores a category, named so a benchmark profile can pick one:
 * `abstain` (category 5), `comma-parts` (1: multi-answer), `first-alternative` (3: gold cut at
 * the first `;`), `plain` (F1).
 */
export type OfficialRule = 'plain' | 'comma-parts' | 'first-alternative' | 'abstain';

const LOCOMO_OFFICIAL_RULES: Readonly<Record<LocomoCategory, OfficialRule>> = {
  1: 'comma-parts',
  2: 'plain',
  3: 'first-alternative',
  4: 'plain',
  5: 'abstain',
};

export function officialScore(
  prediction: string,
  gold: string | number | null,
  rule: OfficialRule,
): number {
  if (rule === 'abstain') return adversarialCorrect(prediction);
  let answer = gold === null ? '' : String(gold);
  if (rule === 'first-alternative') answer = pyStrip(answer.split(';')[0] as string);
  if (rule === 'comma-parts') return multiHopF1(prediction, answer);
  return f1Score(prediction, answer);
}
