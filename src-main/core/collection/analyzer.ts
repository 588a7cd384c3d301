import type { AnalyzerOptions } from '../../../src-shared/index-kinds/engine';
import { memoizeString } from '../../../src-shared/memo';
import { porterStem } from './stemmer';

export type { AnalyzerOptions };

/**
 * A small English stop list (articles, pronouns, auxiliaries, prepositions, conjunctions). Kept
 * short on purpose: words such as "when", "where" or "first" carry meaning in LoCoMo questions.
 */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but if then so than that this these those there here of in on at to for from ' +
    'by with about as into onto over under up down out off is am are was were be been being do ' +
    'does did doing have has had having i me my mine myself you your yours yourself he him his ' +
    'himself she her hers herself it its itself we us our ours ourselves they them their theirs ' +
    'themselves what which who whom whose will would shall should can could may might must not no ' +
    'nor just very too also s t d ll m re ve'
  ).split(' '),
);

const WORD = /[\p{L}\p{N}]+/gu;
const POSSESSIVE = /['\u2019][sS]\b/g;
const APOSTROPHE = /['\u2019]/g;
const COMBINING_MARKS = /\p{M}+/gu;

/** Returns a function text -> terms (in order, repeats kept) for the given options. */
export function createAnalyzer(options: AnalyzerOptions): (text: string) => string[] {
  const stem = memoizeString(porterStem);
  return (text: string): string[] => {
    let s = text;
    if (options.foldAccents) s = s.normalize('NFKD').replace(COMBINING_MARKS, '');
    if (options.lowercase) s = s.toLowerCase();
    // "Caroline's" -> "Caroline", "don't" -> "dont": apostrophes never split a word.
    s = s.replace(POSSESSIVE, '').replace(APOSTROPHE, '');
    const out: string[] = [];
    for (const match of s.matchAll(WORD)) {
      let term = match[0];
      if (options.stopWords && ENGLISH_STOP_WORDS.has(term.toLowerCase())) continue;
      if (options.stem) term = stem(term);
      out.push(term);
    }
    return out;
  };
}
