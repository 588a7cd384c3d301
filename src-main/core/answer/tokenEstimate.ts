import { memoizeString } from '../../../src-shared/memo';

/**
 * Token counts without a tokenizer: the estimate every answer protocol's context budget and
 * Mem0 Table 2's memory tokens are counted with (protocols.ts re-exports it).
 */

/**
 * How many text tokens a string is; the reference uses tiktoken's gpt-3.5-turbo encoding.
 * `splitsOnWhitespace`: no token spans whitespace, so the count of `a + b` is the sum of the
 * counts when `a` ends in whitespace, and the context walk can keep a running total instead of
 * recounting the whole conversation at every turn (the reference's walk is quadratic).
 */
export interface TokenCounter {
  (text: string): number;
  splitsOnWhitespace?: boolean;
}

/**
 * A tokenizer-free estimate of cl100k token counts: words, digit runs of up to three, and each
 * other symbol. Close on English chat; it only matters when a conversation exceeds the budget.
 * It counts the matches of ESTIMATE_TOKEN_PATTERN, by a scan that classifies ASCII itself and asks
 * the pattern's classes only about other code points: every LLM answer counts its memory context
 * (Mem0's memory tokens), and building the array of matches was ~4% of a lane's CPU at 0.1 s.
 */
export const estimateTokens: TokenCounter = Object.assign(countEstimatedTokens, {
  splitsOnWhitespace: true,
});

/** The definition `estimateTokens` counts (its test holds the scan to it). */
export const ESTIMATE_TOKEN_PATTERN = /\p{L}+|\p{N}{1,3}|[^\p{L}\p{N}\s]/gu;

const SPACE = 0;
const LETTER = 1;
const DIGIT = 2;
const SYMBOL = 3;
const LETTER_CHAR = /^\p{L}$/u;
const DIGIT_CHAR = /^\p{N}$/u;
const SPACE_CHAR = /^\s$/u;

function countEstimatedTokens(text: string): number {
  let tokens = 0;
  let previous = SPACE;
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let kind: number;
    if (c < 128) {
      if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90)) kind = LETTER;
      else if (c >= 48 && c <= 57) kind = DIGIT;
      else if (c === 32 || (c >= 9 && c <= 13)) kind = SPACE;
      else kind = SYMBOL;
    } else {
      // One code point: a surrogate pair is one character of the pattern's `u` mode.
      const pair = c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
      const char = pair ? text.slice(i, i + 2) : (text[i] as string);
      if (pair) i++;
      kind = LETTER_CHAR.test(char)
        ? LETTER
        : DIGIT_CHAR.test(char)
          ? DIGIT
          : SPACE_CHAR.test(char)
            ? SPACE
            : SYMBOL;
    }
    if (kind === LETTER) {
      if (previous !== LETTER) tokens++;
    } else if (kind === DIGIT) {
      // A digit run is one token per three digits.
      if (previous !== DIGIT) digits = 0;
      if (digits++ % 3 === 0) tokens++;
    } else if (kind === SYMBOL) {
      tokens++;
    }
    previous = kind;
  }
  return tokens;
}

/**
 * Mem0 Table 2's "memory tokens per question": the planner's estimate of the retrieved context
 * handed to the answerer. Every answerer counts with this, so runs of any answerer compare.
 */
export function memoryTokensOf(context: string): number {
  return estimateTokens(context);
}

const cachedTokens = memoizeString(estimateTokens);

/**
 * `memoryTokensOf(texts.join('\n'))` without recounting a text seen before: no token spans the
 * newline (`splitsOnWhitespace`), so the count is the sum of each text's, and the same retrieved
 * turns come back at every test.
 */
export function memoryTokensOfLines(texts: readonly string[]): number {
  let total = 0;
  for (const text of texts) total += cachedTokens(text);
  return total;
}
