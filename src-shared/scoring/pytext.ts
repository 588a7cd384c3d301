/**
 * The few Python string behaviours the reference scorers rely on, reproduced exactly. JS's `\s`
 * and `\b` differ from Python's: Python's `str.split()` also splits on U+001C..U+001F and U+0085
 * but not on U+FEFF, and Python's `\b` in a `str` pattern is Unicode-aware, where JS's is ASCII.
 */

/** Every code point for which Python's `str.isspace()` is true (Unicode 14), as a character-class body. */
export const PY_WHITESPACE =
  '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_WHITESPACE_RUN = new RegExp(`[${PY_WHITESPACE}]+`, 'u');
const PY_STRIP = new RegExp(`^[${PY_WHITESPACE}]+|[${PY_WHITESPACE}]+$`, 'gu');

/** Python `s.split()` with no arguments: split on whitespace runs, drop empty pieces. */
export function pySplit(s: string): string[] {
  return s.split(PY_WHITESPACE_RUN).filter((piece) => piece !== '');
}

const PY_RSTRIP = new RegExp(`[${PY_WHITESPACE}]+$`, 'u');

/** Python `s.rstrip()` with no arguments. */
export function pyRstrip(s: string): string {
  return s.replace(PY_RSTRIP, '');
}

/** Python `s.strip()` with no arguments. */
export function pyStrip(s: string): string {
  return s.replace(PY_STRIP, '');
}

/** Python `string.punctuation`: the 32 ASCII punctuation characters. */
export const ASCII_PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
const ASCII_PUNCTUATION_SET: ReadonlySet<string> = new Set(ASCII_PUNCTUATION);

/** `''.join(ch for ch in s if ch not in set(string.punctuation))`. */
export function removeAsciiPunctuation(s: string): string {
  let out = '';
  for (const ch of s) if (!ASCII_PUNCTUATION_SET.has(ch)) out += ch;
  return out;
}

/**
 * Python's `\w` for `str` patterns is `str.isalnum()` or `_`, which is exactly the Unicode
 * letter and number categories plus `_` (checked over every code point against CPython 3).
 * Wrapping a word-only alternative in these lookarounds reproduces `\b(...)\b`.
 */
export const PY_WORD_CHAR = '[\\p{L}\\p{N}_]';

/**
 * The third-party `regex` module's `\w`, which LoCoMo's `normalize_answer` uses: letters and other
 * alphabetic characters, marks (a combining accent continues a word), decimal digits, connector
 * punctuation and the zero-width joiners. Matches `regex` 2022.10.31 on every assigned code point
 * (tests/fixtures/golden/regex-word.json).
 */
export const REGEX_WORD_CHAR = '[\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}]';

/** `regex.sub(r'\b(<words>)\b', replacement, s)` with the `regex` module's word boundaries. */
export function regexReplaceWholeWords(
  s: string,
  words: readonly string[],
  replacement: string,
): string {
  const pattern = new RegExp(
    `(?<!${REGEX_WORD_CHAR})(?:${words.join('|')})(?!${REGEX_WORD_CHAR})`,
    'gu',
  );
  return s.replace(pattern, replacement);
}
