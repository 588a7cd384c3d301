/**
 * Mem0-style lexical metrics, from mem0ai/mem0 `evaluation/metrics/utils.py` (borrowed there from
 * A-Mem) and `evaluation/evals.py`, which score categories 1-4 only:
 *
 * - `f1` of `calculate_metrics`: `simple_tokenize` (lowercase; `.`, `,`, `!`, `?` become spaces;
 *   whitespace split), then F1 over token *sets*.
 * - `bleu1` of `calculate_bleu_scores`: NLTK `sentence_bleu([ref], hyp, weights=(1, 0, 0, 0),
 *   smoothing_function=SmoothingFunction().method1)`, ported from `nltk/translate/bleu_score.py`,
 *   on `nltk.word_tokenize(text.lower())` tokens: Punkt sentences, then NLTK 3.8's word rules
 *   (treebank.ts, punkt.ts). Punkt's English parameters are NLTK's data: src-main installs them
 *   with `setMem0SentenceSplitter` where NLTK's `punkt_tab` is installed; without them sentences
 *   split with no abbreviation list (measured: 5 of 1,540 real answers then differ from Mem0).
 * - `bleu1Simple`: the same BLEU on `simple_tokenize` tokens, which inflates BLEU-1 by 0.04-0.07 on
 *   real answers; kept as a labelled variant because earlier runs reported it.
 */
import { EMPTY_PUNKT_PARAMETERS, PunktSentenceTokenizer, type PunktParameters } from './punkt';
import { pySplit, pyStrip } from './pytext';
import { memoizeStringPair } from '../memo';
import { nltkWordTokenize } from './treebank';

/** mem0 `simple_tokenize`. */
export function simpleTokenize(text: string): string[] {
  return pySplit(text.toLowerCase().replace(/[.,!?]/g, ' '));
}

/**
 * mem0 `calculate_metrics(...)['f1']`: set-based token F1. An empty prediction or gold (before
 * stripping, as mem0 checks `not prediction`) scores 0, as does one with no tokens.
 */
export const setF1 = memoizeStringPair(function setF1(prediction: string, gold: string): number {
  if (prediction === '' || gold === '') return 0;
  const predTokens = new Set(simpleTokenize(pyStrip(prediction)));
  const goldTokens = new Set(simpleTokenize(pyStrip(gold)));
  if (predTokens.size === 0 || goldTokens.size === 0) return 0;
  let common = 0;
  for (const token of predTokens) if (goldTokens.has(token)) common++;
  const precision = common / predTokens.size;
  const recall = common / goldTokens.size;
  return precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
});

/** NLTK `modified_precision` as [numerator, denominator]: clipped n-gram matches over hypothesis n-grams (denominator at least 1). */
export function modifiedPrecision(
  references: readonly (readonly string[])[],
  hypothesis: readonly string[],
  n: number,
): [numerator: number, denominator: number] {
  const counts = ngramCounts(hypothesis, n);
  const maxCounts = new Map<string, number>();
  for (const reference of references) {
    const referenceCounts = ngramCounts(reference, n);
    for (const gram of counts.keys()) {
      maxCounts.set(gram, Math.max(maxCounts.get(gram) ?? 0, referenceCounts.get(gram) ?? 0));
    }
  }
  let numerator = 0;
  let total = 0;
  for (const [gram, count] of counts) {
    numerator += Math.min(count, maxCounts.get(gram) ?? 0);
    total += count;
  }
  return [numerator, Math.max(1, total)];
}

function ngramCounts(tokens: readonly string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  // A NUL separator cannot occur inside a token produced by either tokenizer.
  for (let i = 0; i + n <= tokens.length; i++) {
    const gram = tokens.slice(i, i + n).join('\u0000');
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  return counts;
}

/** NLTK `closest_ref_length`: the reference length nearest the hypothesis length, the shorter on a tie. */
export function closestRefLength(
  references: readonly (readonly string[])[],
  hypLength: number,
): number {
  let best = Number.POSITIVE_INFINITY;
  for (const reference of references) {
    const length = reference.length;
    const distance = Math.abs(length - hypLength);
    const bestDistance = Math.abs(best - hypLength);
    if (distance < bestDistance || (distance === bestDistance && length < best)) best = length;
  }
  return best;
}

/** NLTK `brevity_penalty`: 1 for a longer hypothesis, 0 for an empty one, else exp(1 - r/c). */
export function brevityPenalty(closestRefLen: number, hypLen: number): number {
  if (hypLen > closestRefLen) return 1;
  if (hypLen === 0) return 0;
  return Math.exp(1 - closestRefLen / hypLen);
}

/** Default n-gram weights of NLTK's `sentence_bleu` (BLEU-4). */
export const defaultBleuWeights: readonly number[] = [0.25, 0.25, 0.25, 0.25];
/** `SmoothingFunction().method1` epsilon. */
export const defaultBleuEpsilon = 0.1;

export interface SentenceBleuOptions {
  /** n-gram weights, unigram first. Default (0.25, 0.25, 0.25, 0.25). */
  weights?: readonly number[];
  /** Smoothing method1's epsilon added to zero match counts. Default 0.1. */
  epsilon?: number;
}

/**
 * NLTK `sentence_bleu([...references], hypothesis, weights, SmoothingFunction().method1)`: returns
 * 0 when no unigram matches (this covers an empty hypothesis or reference); otherwise brevity
 * penalty times the weighted geometric mean of modified precisions, where an order with zero
 * matches gets epsilon / (its n-gram count).
 */
export function sentenceBleu(
  references: readonly (readonly string[])[],
  hypothesis: readonly string[],
  options: SentenceBleuOptions = {},
): number {
  const weights = options.weights ?? defaultBleuWeights;
  const epsilon = options.epsilon ?? defaultBleuEpsilon;
  const precisions = weights.map((_, i) => modifiedPrecision(references, hypothesis, i + 1));
  if (precisions.length === 0 || (precisions[0] as [number, number])[0] === 0) return 0;

  const bp = brevityPenalty(closestRefLength(references, hypothesis.length), hypothesis.length);
  let logSum = 0;
  weights.forEach((weight, i) => {
    const [numerator, denominator] = precisions[i] as [number, number];
    const p = numerator === 0 ? (numerator + epsilon) / denominator : numerator / denominator;
    // NLTK skips orders whose (smoothed) precision is not positive.
    if (p > 0) logSum += weight * Math.log(p);
  });
  return bp * Math.exp(logSum);
}

let sentenceSplitter = new PunktSentenceTokenizer(EMPTY_PUNKT_PARAMETERS);

/** Installs Punkt's parameters for `mem0WordTokenize` (NLTK's English model, found by src-main). */
export function setMem0SentenceSplitter(params: PunktParameters): void {
  sentenceSplitter = new PunktSentenceTokenizer(params);
  // Its scores were tokenised with the splitter this replaces.
  bleu1.clear();
}

/** `nltk.word_tokenize(text)` with the installed Punkt parameters. */
export function mem0WordTokenize(text: string): string[] {
  return nltkWordTokenize(text, sentenceSplitter);
}

const BLEU1 = { weights: [1, 0, 0, 0] } as const;

/**
 * Mem0's BLEU-1 for one answer, as `calculate_bleu_scores(...)['bleu1']`: `sentence_bleu` with
 * weights (1, 0, 0, 0) and method1 smoothing over `nltk.word_tokenize(text.lower())`.
 */
export const bleu1 = memoizeStringPair(function bleu1(prediction: string, gold: string): number {
  return sentenceBleu(
    [mem0WordTokenize(gold.toLowerCase())],
    mem0WordTokenize(prediction.toLowerCase()),
    BLEU1,
  );
});

/** The same BLEU-1 on `simple_tokenize` tokens: the variant earlier runs reported. */
export const bleu1Simple = memoizeStringPair(function bleu1Simple(
  prediction: string,
  gold: string,
): number {
  return sentenceBleu([simpleTokenize(gold)], simpleTokenize(prediction), BLEU1);
});
