import { describe, expect, it } from 'vitest';
import { scanRawTokens, tokenize } from './tokenize';

describe('tokenize', () => {
  it.each([
    // Naive splitting gives "don" "t"; GloVe has "do" and "not", and "t" is junk.
    ["Don't", ['do', 'not']],
    ["Caroline's painting", ['caroline', 'painting']],
    ["I can't, won't and shan't", ['can', 'not', 'will', 'not', 'and', 'shall', 'not']],
    ["didn't isn't couldn't ain't", ['did', 'not', 'is', 'not', 'could', 'not', 'not']],
    ["we're i'll they've I'm she'd", ['we', 'are', 'will', 'they', 'have', 'am', 'she', 'would']],
    ['don\u2019t', ['do', 'not']],
    // An apostrophe that is not a known contraction separates words; "o" is a single letter.
    ["O'Neill", ['neill']],
    // Digits separate tokens, so numbers never become tokens and "5k" leaves only a single letter.
    ['In 2023 I ran 5k', ['in', 'ran']],
    ['Café NAÏVE', ['café', 'naïve']],
    ['mother-in-law', ['mother', 'in', 'law']],
    ["the dogs' bowls", ['the', 'dogs', 'bowls']],
    ['  ...!!  ', []],
    ['', []],
  ])('%j', (text, expected) => {
    expect(tokenize(text)).toEqual(expected);
  });

  it('hands the sink ranges of the lowercased text, not copies', () => {
    const ranges: Array<[number, number]> = [];
    const lower = 'hello, world';
    scanRawTokens(lower, (t, s, e) => {
      expect(t).toBe(lower);
      ranges.push([s, e]);
    });
    expect(ranges).toEqual([
      [0, 5],
      [7, 12],
    ]);
  });

  it('keeps digits and single characters as raw tokens (for the unknown-text fallback)', () => {
    const out: string[] = [];
    scanRawTokens('in 2022 a b', (t, s, e) => out.push(t.slice(s, e)));
    expect(out).toEqual(['in', '2022', 'a', 'b']);
  });
});
