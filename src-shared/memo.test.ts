import { describe, expect, it } from 'vitest';
import { memoizeString, memoizeStringPair } from './memo';

describe('memoizeString', () => {
  it('computes each key once and answers repeats from the cache', () => {
    const seen: string[] = [];
    const upper = memoizeString((s: string) => {
      seen.push(s);
      return s.toUpperCase();
    });
    expect(['a', 'b', 'a', 'a', 'b'].map(upper)).toEqual(['A', 'B', 'A', 'A', 'B']);
    expect(seen).toEqual(['a', 'b']);
  });

  it('caches undefined results too', () => {
    let calls = 0;
    const nothing = memoizeString((): undefined => {
      calls++;
      return undefined;
    });
    nothing('x');
    nothing('x');
    expect(calls).toBe(1);
  });

  it('empties the cache when it reaches its limit, and on clear()', () => {
    const seen: string[] = [];
    const id = memoizeString((s: string) => {
      seen.push(s);
      return s;
    }, 2);
    for (const key of ['a', 'b', 'c', 'a', 'c']) id(key);
    // 'c' found the cache full (a, b) and emptied it, so 'a' was computed again; 'c' was kept.
    expect(seen).toEqual(['a', 'b', 'c', 'a']);
    id.clear();
    id('c');
    expect(seen).toEqual(['a', 'b', 'c', 'a', 'c']);
  });
});

describe('memoizeStringPair', () => {
  it('keys on both strings, whatever characters they hold', () => {
    const seen: Array<[string, string]> = [];
    const join = memoizeStringPair((a: string, b: string) => {
      seen.push([a, b]);
      return `${a}|${b}`;
    });
    // Same concatenation, different pairs: a separator-joined key would mix these up.
    expect(join('ab', 'c')).toBe('ab|c');
    expect(join('a', 'bc')).toBe('a|bc');
    expect(join('a\u0000', 'b')).toBe('a\u0000|b');
    expect(join('a', '\u0000b')).toBe('a|\u0000b');
    expect(join('ab', 'c')).toBe('ab|c');
    expect(seen).toHaveLength(4);
  });

  it('empties the cache when it reaches its limit, and on clear()', () => {
    let calls = 0;
    const pair = memoizeStringPair((a: string, b: string) => {
      calls++;
      return a + b;
    }, 2);
    pair('a', 'x');
    pair('a', 'y');
    pair('a', 'x');
    expect(calls).toBe(2);
    // Full: ('b', 'x') empties it, so ('a', 'x') is computed again.
    pair('b', 'x');
    pair('a', 'x');
    expect(calls).toBe(4);
    pair.clear();
    expect(pair('b', 'x')).toBe('bx');
    expect(calls).toBe(5);
  });
});

describe('the key-character budget', () => {
  it('keeps no key longer than the budget and empties the cache when the keys would pass it', () => {
    const seen: string[] = [];
    const id = memoizeString(
      (s: string) => {
        seen.push(s);
        return s;
      },
      { maxChars: 5 },
    );
    // 'abcdef' is over the budget: computed each time, never kept.
    for (const key of ['abcdef', 'abcdef', 'ab', 'cd', 'ab', 'ef', 'ab']) id(key);
    // 'ef' would make 6 characters with 'ab' and 'cd': the cache was emptied for it.
    expect(seen).toEqual(['abcdef', 'abcdef', 'ab', 'cd', 'ef', 'ab']);
  });

  it('bounds all the pairs of a two-string cache together', () => {
    let calls = 0;
    const pair = memoizeStringPair(
      (a: string, b: string) => {
        calls++;
        return a + b;
      },
      { maxChars: 6 },
    );
    pair('ab', 'c');
    pair('de', 'f');
    pair('ab', 'c');
    expect(calls).toBe(2);
    // 3 + 3 characters kept; one more pair empties the cache, whichever first string it has.
    pair('gh', 'i');
    pair('ab', 'c');
    expect(calls).toBe(4);
  });
});
