/**
 * NLTK's PorterStemmer in its default mode (`PorterStemmer()` == `NLTK_EXTENSIONS`), ported rule
 * for rule from `nltk/stem/porter.py` (NLTK 3.8). Official LoCoMo F1 stems every token with it, so
 * any deviation here moves the headline number; `porter.golden.test.ts` checks thousands of words
 * against NLTK's own output.
 *
 * Python indexes strings by code point while JS indexes UTF-16 units, so the word is handled as
 * an array of code points throughout: `len(word)`, `word[-1]` and slicing then mean what they mean
 * in Python even for words that hold emoji or other astral characters.
 */
import { DEFAULT_MEMO_LIMIT, memoizeString } from '../memo';

type Chars = readonly string[];

/**
 * NLTK's table of irregular forms (form -> stem). It is consulted with the word exactly as given
 * (before lowercasing), as NLTK does, so `Dying` is stemmed by the rules, `dying` by the table.
 */
const IRREGULAR_FORMS: ReadonlyMap<string, string> = new Map(
  Object.entries({
    sky: ['sky', 'skies'],
    die: ['dying'],
    lie: ['lying'],
    tie: ['tying'],
    news: ['news'],
    inning: ['innings', 'inning'],
    outing: ['outings', 'outing'],
    canning: ['cannings', 'canning'],
    howe: ['howe'],
    proceed: ['proceed'],
    exceed: ['exceed'],
    succeed: ['succeed'],
  }).flatMap(([stem, forms]) => forms.map((form) => [form, stem] as const)),
);

const VOWELS: ReadonlySet<string> = new Set(['a', 'e', 'i', 'o', 'u']);

type Condition = (stem: Chars) => boolean;
/** [suffix, replacement, condition or null]; the suffix `*d` means "ends in a double consonant". */
type Rule = readonly [suffix: string, replacement: string, condition: Condition | null];

function chars(s: string): string[] {
  return Array.from(s);
}

function endsWith(word: Chars, suffix: string): boolean {
  const suf = chars(suffix);
  if (suf.length > word.length) return false;
  const offset = word.length - suf.length;
  for (let i = 0; i < suf.length; i++) if (word[offset + i] !== suf[i]) return false;
  return true;
}

/** `word[:-len(suffix)] + replacement`; an empty suffix appends (Python's `[:-0]` would be empty). */
function replaceSuffix(word: Chars, suffix: string, replacement: string): string[] {
  const cut = chars(suffix).length;
  return [...word.slice(0, word.length - cut), ...chars(replacement)];
}

function isConsonant(word: Chars, i: number): boolean {
  const ch = word[i] as string;
  if (VOWELS.has(ch)) return false;
  // 'y' is a consonant at the start or after a vowel, a vowel after a consonant (TOY vs SYZYGY).
  if (ch === 'y') return i === 0 ? true : !isConsonant(word, i - 1);
  return true;
}

/** m in [C](VC){m}[V]: the number of vowel->consonant transitions. */
function measure(stem: Chars): number {
  let m = 0;
  for (let i = 1; i < stem.length; i++) {
    if (!isConsonant(stem, i - 1) && isConsonant(stem, i)) m++;
  }
  return m;
}

const hasPositiveMeasure: Condition = (stem) => measure(stem) > 0;
const measureGreaterThan1: Condition = (stem) => measure(stem) > 1;

function containsVowel(stem: Chars): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

/** Condition *d. */
function endsDoubleConsonant(word: Chars): boolean {
  const n = word.length;
  return n >= 2 && word[n - 1] === word[n - 2] && isConsonant(word, n - 1);
}

/** Condition *o, plus NLTK's two-letter vowel-consonant case. */
function endsCvc(word: Chars): boolean {
  const n = word.length;
  return (
    (n >= 3 &&
      isConsonant(word, n - 3) &&
      !isConsonant(word, n - 2) &&
      isConsonant(word, n - 1) &&
      !['w', 'x', 'y'].includes(word[n - 1] as string)) ||
    (n === 2 && !isConsonant(word, 0) && isConsonant(word, 1))
  );
}

/** The first rule whose suffix matches decides: its condition failing stops the list. */
function applyRuleList(word: Chars, rules: readonly Rule[]): string[] {
  for (const [suffix, replacement, condition] of rules) {
    if (suffix === '*d' && endsDoubleConsonant(word)) {
      const stem = word.slice(0, -2);
      return condition === null || condition(stem) ? [...stem, ...chars(replacement)] : [...word];
    }
    if (endsWith(word, suffix)) {
      const stem = replaceSuffix(word, suffix, '');
      return condition === null || condition(stem) ? [...stem, ...chars(replacement)] : [...word];
    }
  }
  return [...word];
}

function step1a(word: Chars): string[] {
  // NLTK: 'dies' -> 'die' (four letters) while 'flies' -> 'fli'.
  if (endsWith(word, 'ies') && word.length === 4) return replaceSuffix(word, 'ies', 'ie');
  return applyRuleList(word, [
    ['sses', 'ss', null],
    ['ies', 'i', null],
    ['ss', 'ss', null],
    ['s', '', null],
  ]);
}

function step1b(word: Chars): string[] {
  // NLTK: 'died' -> 'die' (four letters) while 'spied' -> 'spi'.
  if (endsWith(word, 'ied')) {
    return word.length === 4 ? replaceSuffix(word, 'ied', 'ie') : replaceSuffix(word, 'ied', 'i');
  }
  if (endsWith(word, 'eed')) {
    const stem = replaceSuffix(word, 'eed', '');
    return measure(stem) > 0 ? [...stem, 'e', 'e'] : [...word];
  }

  let intermediate: string[] | undefined;
  for (const suffix of ['ed', 'ing']) {
    if (endsWith(word, suffix)) {
      const candidate = replaceSuffix(word, suffix, '');
      if (containsVowel(candidate)) {
        intermediate = candidate;
        break;
      }
    }
  }
  if (intermediate === undefined) return [...word];

  const last = intermediate[intermediate.length - 1] as string;
  return applyRuleList(intermediate, [
    ['at', 'ate', null],
    ['bl', 'ble', null],
    ['iz', 'ize', null],
    ['*d', last, () => !['l', 's', 'z'].includes(last)],
    ['', 'e', (stem) => measure(stem) === 1 && endsCvc(stem)],
  ]);
}

function step1c(word: Chars): string[] {
  // NLTK: y -> i only after a consonant that is not the whole stem ('happy' -> 'happi', 'sky' stays).
  return applyRuleList(word, [
    ['y', 'i', (stem) => stem.length > 1 && isConsonant(stem, stem.length - 1)],
  ]);
}

function step2(word: Chars): string[] {
  // NLTK applies ALLI -> AL first and, when it fires, runs step 2 again on the result.
  if (endsWith(word, 'alli') && hasPositiveMeasure(replaceSuffix(word, 'alli', ''))) {
    return step2(replaceSuffix(word, 'alli', 'al'));
  }
  return applyRuleList(word, [
    ['ational', 'ate', hasPositiveMeasure],
    ['tional', 'tion', hasPositiveMeasure],
    ['enci', 'ence', hasPositiveMeasure],
    ['anci', 'ance', hasPositiveMeasure],
    ['izer', 'ize', hasPositiveMeasure],
    ['bli', 'ble', hasPositiveMeasure],
    ['alli', 'al', hasPositiveMeasure],
    ['entli', 'ent', hasPositiveMeasure],
    ['eli', 'e', hasPositiveMeasure],
    ['ousli', 'ous', hasPositiveMeasure],
    ['ization', 'ize', hasPositiveMeasure],
    ['ation', 'ate', hasPositiveMeasure],
    ['ator', 'ate', hasPositiveMeasure],
    ['alism', 'al', hasPositiveMeasure],
    ['iveness', 'ive', hasPositiveMeasure],
    ['fulness', 'ful', hasPositiveMeasure],
    ['ousness', 'ous', hasPositiveMeasure],
    ['aliti', 'al', hasPositiveMeasure],
    ['iviti', 'ive', hasPositiveMeasure],
    ['biliti', 'ble', hasPositiveMeasure],
    ['fulli', 'ful', hasPositiveMeasure],
    // The 'l' of 'logi' stays with the stem for the measure, so 'geologi' works like 'archaeologi'.
    ['logi', 'log', () => hasPositiveMeasure(word.slice(0, -3))],
  ]);
}

function step3(word: Chars): string[] {
  return applyRuleList(word, [
    ['icate', 'ic', hasPositiveMeasure],
    ['ative', '', hasPositiveMeasure],
    ['alize', 'al', hasPositiveMeasure],
    ['iciti', 'ic', hasPositiveMeasure],
    ['ical', 'ic', hasPositiveMeasure],
    ['ful', '', hasPositiveMeasure],
    ['ness', '', hasPositiveMeasure],
  ]);
}

function step4(word: Chars): string[] {
  return applyRuleList(word, [
    ['al', '', measureGreaterThan1],
    ['ance', '', measureGreaterThan1],
    ['ence', '', measureGreaterThan1],
    ['er', '', measureGreaterThan1],
    ['ic', '', measureGreaterThan1],
    ['able', '', measureGreaterThan1],
    ['ible', '', measureGreaterThan1],
    ['ant', '', measureGreaterThan1],
    ['ement', '', measureGreaterThan1],
    ['ment', '', measureGreaterThan1],
    ['ent', '', measureGreaterThan1],
    [
      'ion',
      '',
      (stem) => measure(stem) > 1 && ['s', 't'].includes(stem[stem.length - 1] as string),
    ],
    ['ou', '', measureGreaterThan1],
    ['ism', '', measureGreaterThan1],
    ['ate', '', measureGreaterThan1],
    ['iti', '', measureGreaterThan1],
    ['ous', '', measureGreaterThan1],
    ['ive', '', measureGreaterThan1],
    ['ize', '', measureGreaterThan1],
  ]);
}

function step5a(word: Chars): string[] {
  // Both E rules are tried (unlike applyRuleList, where the first matching suffix decides).
  if (endsWith(word, 'e')) {
    const stem = replaceSuffix(word, 'e', '');
    if (measure(stem) > 1) return stem;
    if (measure(stem) === 1 && !endsCvc(stem)) return stem;
  }
  return [...word];
}

function step5b(word: Chars): string[] {
  return applyRuleList(word, [['ll', 'l', () => measure(word.slice(0, -1)) > 1]]);
}

/**
 * `PorterStemmer().stem(word)` from NLTK (default NLTK_EXTENSIONS mode, `to_lowercase=True`).
 * Lowercasing uses JS `toLowerCase`, which follows the same Unicode default case mapping as
 * Python's `str.lower` (final sigma included).
 */
export function porterStem(word: string): string {
  const lowered = word.toLowerCase();
  const irregular = IRREGULAR_FORMS.get(word);
  // NLTK looks the original word up but returns pool[lowered]; both are equal for every key.
  if (irregular !== undefined) return IRREGULAR_FORMS.get(lowered) ?? irregular;
  // Words of one or two characters (counted before lowercasing, as NLTK does) are not stemmed.
  if (chars(word).length <= 2) return lowered;

  let stem: Chars = chars(lowered);
  stem = step1a(stem);
  stem = step1b(stem);
  stem = step1c(stem);
  stem = step2(stem);
  stem = step3(stem);
  stem = step4(stem);
  stem = step5a(stem);
  stem = step5b(stem);
  return stem.join('');
}

/** A memoising wrapper: LoCoMo scoring stems the same few thousand words over and over. */
export function createCachedStemmer(limit = DEFAULT_MEMO_LIMIT): (word: string) => string {
  return memoizeString(porterStem, limit);
}
