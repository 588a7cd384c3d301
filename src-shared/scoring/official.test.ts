import { describe, expect, it } from 'vitest';
import {
  adversarialCorrect,
  f1Score,
  multiHopF1,
  multisetF1,
  normalizeAnswer,
  officialF1,
  officialTokens,
} from './official';

describe('normalizeAnswer', () => {
  it('drops commas, case, punctuation and the words a/an/the/and, then collapses spaces', () => {
    expect(normalizeAnswer('The Cat, and a Dog!')).toBe('cat dog');
  });

  it('removes punctuation before articles, so "a.m." becomes the word "am"', () => {
    expect(normalizeAnswer('9 a.m.')).toBe('9 am');
  });

  it('uses Unicode word boundaries like Python: "éthe" is one word, not é + the', () => {
    expect(normalizeAnswer('éthe the')).toBe('éthe');
  });

  it('splits on the whitespace Python splits on (NBSP, NEL) but not on a zero-width space', () => {
    expect(normalizeAnswer('new\u00a0york\u0085city')).toBe('new york city');
    expect(normalizeAnswer('trips\u200b')).toBe('trips\u200b');
  });
});

describe('officialTokens', () => {
  it('stems every normalised token', () => {
    expect(officialTokens('The dogs were running')).toEqual(['dog', 'were', 'run']);
  });
});

describe('f1Score', () => {
  it('is 1 when stems agree whatever the inflection and order', () => {
    // running dogs -> [run, dog]; the dog runs -> [dog, run].
    expect(f1Score('running dogs', 'the dog runs')).toBe(1);
  });

  it('is the harmonic mean of precision and recall', () => {
    // pred [red, big, hous], gold [hous]: P = 1/3, R = 1, F1 = 2(1/3)(1)/(4/3) = 0.5.
    expect(f1Score('red big house', 'house')).toBeCloseTo(0.5, 15);
  });

  it('is 0 for an empty prediction or gold', () => {
    expect(f1Score('', 'house')).toBe(0);
    expect(f1Score('the', 'a')).toBe(0);
  });
});

describe('multisetF1', () => {
  it('counts repeated tokens at most as often as the other side has them', () => {
    // overlap: dog min(2,1)=1, cat min(1,2)=1 -> 2; P = 2/3, R = 2/4; F1 = (2/3)/(7/6) = 4/7.
    expect(multisetF1(['dog', 'dog', 'cat'], ['dog', 'cat', 'cat', 'bird'])).toBeCloseTo(4 / 7, 15);
  });
});

describe('officialF1 by category', () => {
  it('category 1 averages, over gold parts, the best match among prediction parts', () => {
    // painting -> 1, hiking -> 1, swimming -> 0: mean 2/3.
    expect(officialF1('hiking, painting', 'painting, hiking, swimming', 1)).toBeCloseTo(2 / 3, 15);
    expect(multiHopF1('hiking, painting', 'painting, hiking, swimming')).toBeCloseTo(2 / 3, 15);
  });

  it('category 1 without commas in the prediction compares the whole prediction to each part', () => {
    // 'hiking painting' vs 'hiking': P = 1/2, R = 1 -> 2/3; same for 'painting'; mean 2/3.
    expect(officialF1('hiking painting', 'hiking, painting', 1)).toBeCloseTo(2 / 3, 15);
  });

  it('categories 2 and 4 compare whole strings; numbers are compared as strings', () => {
    expect(officialF1('2022', 2022, 2)).toBe(1);
    // [2022] vs [in, 2022]: P = 1/2 (pred is 'in 2022'), R = 1 -> 2/3.
    expect(officialF1('In 2022.', 2022, 4)).toBeCloseTo(2 / 3, 15);
  });

  it('category 3 scores against the gold up to its first semicolon', () => {
    expect(officialF1('Likely yes', 'Likely yes; because she said so', 3)).toBe(1);
    expect(officialF1('because she said so', 'Likely yes; because she said so', 3)).toBe(0);
  });

  it('category 5 looks for the two refusal phrases only', () => {
    expect(officialF1('Not mentioned in the conversation', null, 5)).toBe(1);
    expect(officialF1('There is no information available.', 'ignored', 5)).toBe(1);
    expect(officialF1('It was never mentioned', null, 5)).toBe(0);
    expect(adversarialCorrect('NOT MENTIONED')).toBe(1);
  });

  it('a missing gold for categories 1-4 scores 0', () => {
    expect(officialF1('anything', null, 4)).toBe(0);
  });
});
