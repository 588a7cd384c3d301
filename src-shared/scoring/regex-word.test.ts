import { describe, expect, it } from 'vitest';
import regexWord from '../../tests/fixtures/golden/regex-word.json';
import { normalizeAnswer } from './official';
import { REGEX_WORD_CHAR } from './pytext';

/** Whether `cp` falls in one of the sorted, disjoint [first, last] ranges. */
function inRanges(ranges: readonly (readonly number[])[], cp: number): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [first, last] = ranges[mid] as [number, number];
    if (cp < first) hi = mid - 1;
    else if (cp > last) lo = mid + 1;
    else return true;
  }
  return false;
}

describe("the regex module's \\w (LoCoMo normalize_answer's word boundaries)", () => {
  it('matches regex 2022.10.31 on every code point both Unicode tables assign', () => {
    const word = new RegExp(`^${REGEX_WORD_CHAR}$`, 'u');
    const unassigned = /^\p{Cn}$/u;
    const mismatches: string[] = [];
    let checked = 0;
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      // Code points assigned after one side's Unicode version cannot be compared.
      if (!inRanges(regexWord.assigned, cp) || unassigned.test(ch)) continue;
      checked++;
      if (word.test(ch) !== inRanges(regexWord.word, cp)) mismatches.push(cp.toString(16));
    }
    expect(checked).toBeGreaterThan(280_000);
    expect(mismatches.slice(0, 20)).toEqual([]);
  });

  it('keeps an article that a combining mark continues, as the reference does (re would drop it)', () => {
    expect(normalizeAnswer('the\u0301 cat')).toBe('the\u0301 cat');
    expect(normalizeAnswer('the cat')).toBe('cat');
  });
});
