import { describe, expect, it } from 'vitest';
import {
  bleu1,
  brevityPenalty,
  closestRefLength,
  modifiedPrecision,
  sentenceBleu,
  setF1,
  setMem0SentenceSplitter,
  simpleTokenize,
} from './mem0';
import { EMPTY_PUNKT_PARAMETERS } from './punkt';

describe('simpleTokenize', () => {
  it('lowercases and turns . , ! ? into spaces, keeping other punctuation', () => {
    expect(simpleTokenize('Hello, World! e.g. yes? (no);')).toEqual([
      'hello',
      'world',
      'e',
      'g',
      'yes',
      '(no);',
    ]);
  });
});

describe('setF1', () => {
  it('compares token sets, so repeats count once', () => {
    // {dog, cat} vs {dog, bird}: common 1, P = 1/2, R = 1/2, F1 = 1/2.
    expect(setF1('dog dog cat', 'dog bird')).toBe(0.5);
  });

  it('is 0 for empty or token-less sides', () => {
    expect(setF1('', 'dog')).toBe(0);
    expect(setF1('dog', '')).toBe(0);
    expect(setF1('   ', 'dog')).toBe(0);
    expect(setF1('?!', 'dog')).toBe(0);
  });

  it('does not stem: "dogs" and "dog" differ', () => {
    expect(setF1('dogs', 'dog')).toBe(0);
  });
});

describe('BLEU pieces (NLTK semantics)', () => {
  it('clips a repeated hypothesis word at its reference count', () => {
    // 'the' x4 in the hypothesis, once in the reference: 1 of 4.
    expect(modifiedPrecision([['the', 'cat']], ['the', 'the', 'the', 'the'], 1)).toEqual([1, 4]);
  });

  it('uses denominator 1 when the hypothesis has no n-grams of that order', () => {
    expect(modifiedPrecision([['a', 'b']], ['a'], 2)).toEqual([0, 1]);
  });

  it('takes the closest reference length, the shorter on a tie', () => {
    expect(closestRefLength([new Array(13).fill('a'), new Array(11).fill('a')], 12)).toBe(11);
    expect(closestRefLength([new Array(11).fill('a'), new Array(8).fill('a')], 7)).toBe(8);
  });

  it('penalises short hypotheses: exp(1 - r/c)', () => {
    // NLTK docstring example: r = 8, c = 7 -> exp(-1/7) = 0.8668...
    expect(brevityPenalty(8, 7)).toBeCloseTo(Math.exp(-1 / 7), 15);
    expect(brevityPenalty(8, 9)).toBe(1);
    expect(brevityPenalty(8, 0)).toBe(0);
  });

  it('smooths zero-count higher orders with epsilon 0.1 (method1)', () => {
    // p1 = p2 = p3 = 1; no 4-grams in 3 tokens -> p4 = 0.1/1. BLEU-4 = 0.1^(1/4) = 0.56234...
    expect(sentenceBleu([['the', 'cat', 'sat']], ['the', 'cat', 'sat'])).toBeCloseTo(
      0.5623413251903491,
      15,
    );
  });
});

describe('bleu1', () => {
  it('is the clipped unigram precision when the hypothesis is longer', () => {
    // p1 = 1/4 (clipped), c = 4 > r = 2 so no penalty.
    expect(bleu1('the the the the', 'the cat')).toBe(0.25);
  });

  it('applies the brevity penalty to a short exact fragment', () => {
    // p1 = 1/1, r = 4, c = 1: exp(1 - 4) = e^-3 = 0.049787...
    expect(bleu1('no', 'yes no maybe so')).toBeCloseTo(Math.exp(-3), 15);
  });

  it('is 0 with no unigram match, including an empty prediction', () => {
    expect(bleu1('x', 'y')).toBe(0);
    expect(bleu1('', 'y')).toBe(0);
    expect(bleu1('y', '')).toBe(0);
  });

  it('scores again with a newly installed sentence splitter (its results are cached)', () => {
    // Without "dr" as an abbreviation "dr." ends a sentence and its period becomes a token of its
    // own; with it, "dr." stays one token that the gold's "dr" does not match.
    const prediction = 'Dr. Smith came';
    const gold = 'dr smith came';
    setMem0SentenceSplitter(EMPTY_PUNKT_PARAMETERS);
    const plain = bleu1(prediction, gold);
    try {
      setMem0SentenceSplitter({ ...EMPTY_PUNKT_PARAMETERS, abbrevTypes: new Set(['dr']) });
      const withAbbreviation = bleu1(prediction, gold);
      expect(withAbbreviation).not.toBe(plain);
      expect(withAbbreviation).toBeCloseTo(2 / 3, 10);
    } finally {
      setMem0SentenceSplitter(EMPTY_PUNKT_PARAMETERS);
    }
    expect(bleu1(prediction, gold)).toBe(plain);
  });
});
