import { describe, expect, it } from 'vitest';
import { createAnalyzer } from './analyzer';
import { porterStem } from './stemmer';

describe('porterStem', () => {
  // Pairs from Porter's paper and the reference vocabulary/output files on tartarus.org.
  const cases: Array<[string, string]> = [
    ['caresses', 'caress'],
    ['ponies', 'poni'],
    ['ties', 'ti'],
    ['cats', 'cat'],
    ['feed', 'feed'],
    ['agreed', 'agre'],
    ['plastered', 'plaster'],
    ['motoring', 'motor'],
    ['sing', 'sing'],
    ['conflated', 'conflat'],
    ['hopping', 'hop'],
    ['falling', 'fall'],
    ['filing', 'file'],
    ['happy', 'happi'],
    ['relational', 'relat'],
    ['conditional', 'condit'],
    ['generalization', 'gener'],
    ['hopefulness', 'hope'],
    ['electrical', 'electr'],
    ['adjustment', 'adjust'],
    ['adoption', 'adopt'],
    ['controlling', 'control'],
    ['painting', 'paint'],
    ['painted', 'paint'],
    ['yelling', 'yell'],
  ];
  it.each(cases)('%s -> %s', (word, stem) => {
    expect(porterStem(word)).toBe(stem);
  });

  it('leaves short words, numbers and non-ASCII words alone', () => {
    expect(porterStem('is')).toBe('is');
    expect(porterStem('2023')).toBe('2023');
    expect(porterStem('café')).toBe('café');
  });
});

describe('createAnalyzer', () => {
  it('folds accents, lowercases, drops stop words and possessives, stems', () => {
    const analyze = createAnalyzer({
      lowercase: true,
      foldAccents: true,
      stopWords: true,
      stem: true,
    });
    expect(analyze("Caroline's Café: the paintings were AMAZING, don't you think?")).toEqual([
      'carolin',
      'cafe',
      'paint',
      'amaz',
      'dont',
      'think',
    ]);
  });

  it('keeps everything when every option is off', () => {
    const analyze = createAnalyzer({
      lowercase: false,
      foldAccents: false,
      stopWords: false,
      stem: false,
    });
    expect(analyze('The Café')).toEqual(['The', 'Café']);
  });
});
