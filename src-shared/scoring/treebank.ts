/**
 * NLTK 3.8's `NLTKWordTokenizer` (nltk/tokenize/destructive.py), the word-level half of
 * `nltk.word_tokenize` that Mem0's BLEU-1 tokenises with: ordered regex substitutions (starting
 * quotes, punctuation, brackets, double dashes, ending quotes and clitics, MacIntyre
 * contractions), then a whitespace split. NLTK 3.10 changed these rules; the Mem0-era (pre-3.10)
 * ones are pinned here and checked against Debian's python3-nltk 3.8 by golden tests.
 *
 * Python's `re` on `str` is Unicode-aware where JavaScript's is not, so `\w`, `\d`, `\s`, `\b` and
 * `$` are spelled out: `\w` = letters, numbers and `_`; `\d` = decimal digits (Nd); `\s` = what
 * `str.isspace()` accepts; `$` = end of text or before a final newline.
 */
import { PY_WHITESPACE, PY_WORD_CHAR, pySplit } from './pytext';

const W = PY_WORD_CHAR;
const S = `[${PY_WHITESPACE}]`;
/** Python's `$` without MULTILINE: the end, or just before a newline that ends the text. */
const END = '(?=\\n?$)';
/** `\b` right after a word character. */
const WORD_END = `(?!${W})`;
/** `\b` right before a word character. */
const WORD_START = `(?<!${W})`;

type Rule = readonly [RegExp, string];
const rule = (source: string, replacement: string, flags = ''): Rule => [
  new RegExp(source, `gu${flags}`),
  replacement,
];

const STARTING_QUOTES: readonly Rule[] = [
  rule('([«“‘„]|[`]+)', ' $1 '),
  rule('^"', '``'),
  rule('(``)', ' $1 '),
  rule('([ \\(\\[{<])("|\'{2})', '$1 `` '),
  rule(`(')(?!re|ve|ll|m|t|s|d|n)(${W})${WORD_END}`, '$1 $2', 'i'),
];

const PUNCTUATION: readonly Rule[] = [
  rule(`([^\\.])(\\.)([\\]\\)}>"'»”’ ]*)${S}*${END}`, '$1 $2 $3 '),
  rule('([:,])([^\\p{Nd}])', ' $1 $2'),
  rule(`([:,])${END}`, ' $1 '),
  rule('\\.{2,}', ' $& '),
  rule('[;@#$%&]', ' $& '),
  rule(`([^\\.])(\\.)([\\]\\)}>"']*)${S}*${END}`, '$1 $2$3 '),
  rule('[?!]', ' $& '),
  rule("([^'])' ", "$1 ' "),
  rule('[*]', ' $& '),
];

const PARENS_BRACKETS = rule('[\\]\\[(){}<>]', ' $& ');
const DOUBLE_DASHES = rule('--', ' -- ');

const ENDING_QUOTES: readonly Rule[] = [
  rule('([»”’])', ' $1 '),
  rule("''", " '' "),
  rule('"', " '' "),
  rule("([^' ])('[sS]|'[mM]|'[dD]|') ", '$1 $2 '),
  rule("([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", '$1 $2 '),
];

/** MacIntyre's contractions (CONTRACTIONS2 then CONTRACTIONS3), each split into its two words. */
const CONTRACTIONS: readonly Rule[] = [
  ...[
    '(can)(not)',
    "(d)('ye)",
    '(gim)(me)',
    '(gon)(na)',
    '(got)(ta)',
    '(lem)(me)',
    "(more)('n)",
  ].map((pair) => rule(`${WORD_START}${pair}${WORD_END}`, ' $1 $2 ', 'i')),
  rule(`${WORD_START}(wan)(na)(?=${S})`, ' $1 $2 ', 'i'),
  rule(` ('t)(is)${WORD_END}`, ' $1 $2 ', 'i'),
  rule(` ('t)(was)${WORD_END}`, ' $1 $2 ', 'i'),
];

function applyAll(text: string, rules: readonly Rule[]): string {
  let out = text;
  for (const [pattern, replacement] of rules) out = out.replace(pattern, replacement);
  return out;
}

/** `NLTKWordTokenizer().tokenize(text)` of NLTK 3.8 (convert_parentheses off). */
export function treebankWordTokenize(text: string): string[] {
  let out = applyAll(text, STARTING_QUOTES);
  out = applyAll(out, PUNCTUATION);
  out = applyAll(out, [PARENS_BRACKETS, DOUBLE_DASHES]);
  out = ` ${out} `;
  out = applyAll(out, ENDING_QUOTES);
  out = applyAll(out, CONTRACTIONS);
  return pySplit(out);
}

/**
 * `nltk.word_tokenize(text)`: Punkt sentences (with the given splitter), then each sentence
 * through `treebankWordTokenize`.
 */
export function nltkWordTokenize(
  text: string,
  sentences: { tokenize(text: string): string[] },
): string[] {
  return sentences.tokenize(text).flatMap(treebankWordTokenize);
}
