/**
 * Word tokeniser for the word-vector embedder. It runs on every turn of every conversation, so it
 * never builds arrays or regex matches: it walks the char codes of an already-lowercased string and
 * hands each token to a sink as `(text, start, end)`. A contraction's expansion ("n't" -> "not") is
 * handed over as a constant string, so even that allocates nothing.
 *
 * Rules (the GloVe vocabulary is lowercase and was tokenised Penn-Treebank style):
 * - a token is a maximal run of letters (Unicode letters and combining marks); everything else,
 *   digits included, separates tokens, so pure numbers never become tokens;
 * - single-letter tokens are dropped ("i", "a", and the "s"/"t" left over by naive splitting);
 * - an apostrophe between letters is a contraction: "don't" -> "do" "not", "can't" -> "can" "not",
 *   "won't" -> "will" "not", "caroline's" -> "caroline", "we're" -> "we" "are", "i'll" -> "will",
 *   "they've" -> "they" "have", "i'm" -> "am", "she'd" -> "she" "would". Any other letters after an
 *   apostrophe ("o'neill") are an ordinary separate token.
 */

export type TokenSink = (text: string, start: number, end: number) => void;

const APOSTROPHE = 0x27;
const RIGHT_SINGLE_QUOTE = 0x2019;
const MODIFIER_APOSTROPHE = 0x2bc;

let nonAsciiLetters: Uint8Array | null = null;

function isNonAsciiLetter(code: number): boolean {
  // Built on the first non-ASCII character: most turns never pay for it.
  if (nonAsciiLetters === null) {
    const table = new Uint8Array(65536);
    const letter = /[\p{L}\p{M}]/u;
    for (let c = 0x80; c < 65536; c++) {
      // Lone surrogates are not letters; astral-plane characters separate tokens.
      if (c >= 0xd800 && c <= 0xdfff) continue;
      if (letter.test(String.fromCharCode(c))) table[c] = 1;
    }
    nonAsciiLetters = table;
  }
  return nonAsciiLetters[code] === 1;
}

function isLetter(code: number): boolean {
  if (code < 0x80) return code >= 0x61 && code <= 0x7a;
  return isNonAsciiLetter(code);
}

function isApostrophe(code: number): boolean {
  return code === APOSTROPHE || code === RIGHT_SINGLE_QUOTE || code === MODIFIER_APOSTROPHE;
}

function emitWord(text: string, start: number, end: number, sink: TokenSink): void {
  if (end - start >= 2) sink(text, start, end);
}

function emitConstant(word: string, sink: TokenSink): void {
  sink(word, 0, word.length);
}

function equalsAt(text: string, start: number, end: number, word: string): boolean {
  if (end - start !== word.length) return false;
  for (let i = 0; i < word.length; i++) {
    if (text.charCodeAt(start + i) !== word.charCodeAt(i)) return false;
  }
  return true;
}

/** Stems whose "n't" form is not simply the stem minus its trailing "n". */
const IRREGULAR_NEGATIONS: ReadonlyArray<readonly [string, string | null]> = [
  ['can', 'can'],
  ['won', 'will'],
  ['shan', 'shall'],
  ['ain', null],
];

/**
 * Handles `stem'suffix` where stem = text[start, apos) and suffix = text[apos + 1, end).
 * Returns false when the suffix is not a contraction we know.
 */
function emitContraction(
  text: string,
  start: number,
  apos: number,
  end: number,
  sink: TokenSink,
): boolean {
  const s = apos + 1;
  const len = end - s;
  const c0 = text.charCodeAt(s);
  if (len === 1) {
    if (c0 === 0x74 /* t */ && apos - start >= 2 && text.charCodeAt(apos - 1) === 0x6e /* n */) {
      let handled = false;
      for (const [stem, replacement] of IRREGULAR_NEGATIONS) {
        if (equalsAt(text, start, apos, stem)) {
          if (replacement !== null) emitConstant(replacement, sink);
          handled = true;
          break;
        }
      }
      if (!handled) emitWord(text, start, apos - 1, sink);
      emitConstant('not', sink);
      return true;
    }
    if (c0 === 0x73 /* s */) {
      // Possessive, "is" or "has": the stem carries the meaning, the rest is a stop word.
      emitWord(text, start, apos, sink);
      return true;
    }
    if (c0 === 0x6d /* m */) {
      emitWord(text, start, apos, sink);
      emitConstant('am', sink);
      return true;
    }
    if (c0 === 0x64 /* d */) {
      emitWord(text, start, apos, sink);
      emitConstant('would', sink);
      return true;
    }
    return false;
  }
  if (len === 2) {
    const c1 = text.charCodeAt(s + 1);
    const expansion =
      c0 === 0x72 && c1 === 0x65 // re
        ? 'are'
        : c0 === 0x6c && c1 === 0x6c // ll
          ? 'will'
          : c0 === 0x76 && c1 === 0x65 // ve
            ? 'have'
            : null;
    if (expansion !== null) {
      emitWord(text, start, apos, sink);
      emitConstant(expansion, sink);
      return true;
    }
  }
  return false;
}

/**
 * Scans `lower` (the caller lowercases once per text) and calls `sink` for each token, in order.
 */
export function scanTokens(lower: string, sink: TokenSink): void {
  const n = lower.length;
  let i = 0;
  while (i < n) {
    if (!isLetter(lower.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    while (i < n && isLetter(lower.charCodeAt(i))) i++;
    if (i + 1 < n && isApostrophe(lower.charCodeAt(i)) && isLetter(lower.charCodeAt(i + 1))) {
      let j = i + 1;
      while (j < n && isLetter(lower.charCodeAt(j))) j++;
      if (emitContraction(lower, start, i, j, sink)) {
        i = j;
        continue;
      }
    }
    emitWord(lower, start, i, sink);
  }
}

/**
 * Calls `sink` for each maximal run of letters or digits, single characters included. The
 * fallback for texts with no known word hashes these, so "2022" and "2023" still differ.
 */
export function scanRawTokens(lower: string, sink: TokenSink): void {
  const n = lower.length;
  let i = 0;
  while (i < n) {
    const c = lower.charCodeAt(i);
    if (!isLetter(c) && !(c >= 0x30 && c <= 0x39)) {
      i++;
      continue;
    }
    const start = i;
    while (i < n) {
      const d = lower.charCodeAt(i);
      if (!isLetter(d) && !(d >= 0x30 && d <= 0x39)) break;
      i++;
    }
    sink(lower, start, i);
  }
}

/** The tokens of `text` as strings: for tests, debugging and corpus statistics, not hot paths. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  scanTokens(text.toLowerCase(), (t, start, end) => {
    out.push(t.slice(start, end));
  });
  return out;
}
