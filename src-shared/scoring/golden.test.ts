/**
 * Parity with the Python references. The fixtures are written by scripts/golden/generate.py from
 * NLTK's PorterStemmer and sentence_bleu and a copy of LoCoMo's evaluation.py; every item must
 * match, so one failing word or case is reported on its own rather than as a drifting average.
 */
import { describe, expect, it } from 'vitest';
import porterGolden from '../../tests/fixtures/golden/porter.json';
import scoresGolden from '../../tests/fixtures/golden/scores.json';
import { porterStem } from './porter';
import { normalizeAnswer, officialF1, officialTokens, type LocomoCategory } from './official';
import { bleu1, bleu1Simple, setF1 } from './mem0';

const TOLERANCE = 1e-9;

interface ScoreCase {
  note: string;
  prediction: string;
  gold: string | number | null;
  category: number;
  normalized_prediction: string;
  official_tokens: string[];
  official_f1: number;
  mem0_f1: number | null;
  bleu1: number | null;
  bleu1_simple: number | null;
}

const porterItems = porterGolden.items as [word: string, stem: string, source: string][];
const scoreItems = scoresGolden.items as ScoreCase[];

describe('golden: NLTK PorterStemmer', () => {
  it('covers the tricky, synthetic and LoCoMo word lists', () => {
    const sources = new Set(porterItems.map(([, , source]) => source));
    expect([...sources].sort()).toEqual(['locomo', 'synthetic', 'tricky']);
    expect(porterItems.length).toBeGreaterThan(5000);
  });

  it('stems every word exactly as NLTK does', () => {
    const mismatches = porterItems
      .filter(([word, stem]) => porterStem(word) !== stem)
      .map(([word, stem]) => ({ word, expected: stem, actual: porterStem(word) }));
    expect(mismatches).toEqual([]);
  });
});

describe('golden: scores', () => {
  it('has a few hundred cases over every category', () => {
    expect(scoreItems.length).toBeGreaterThanOrEqual(280);
    expect(new Set(scoreItems.map((item) => item.category))).toEqual(new Set([1, 2, 3, 4, 5]));
  });

  it.each(scoreItems.map((item, index) => [index, item.note, item] as const))(
    'case %i (%s)',
    (_index, _note, item) => {
      const category = item.category as LocomoCategory;
      expect(normalizeAnswer(item.prediction)).toBe(item.normalized_prediction);
      expect(officialTokens(item.prediction)).toEqual(item.official_tokens);
      expect(
        Math.abs(officialF1(item.prediction, item.gold, category) - item.official_f1),
      ).toBeLessThan(TOLERANCE);
      if (item.gold !== null) {
        const gold = String(item.gold);
        expect(item.mem0_f1).not.toBeNull();
        expect(item.bleu1).not.toBeNull();
        expect(Math.abs(setF1(item.prediction, gold) - (item.mem0_f1 as number))).toBeLessThan(
          TOLERANCE,
        );
        expect(Math.abs(bleu1(item.prediction, gold) - (item.bleu1 as number))).toBeLessThan(
          TOLERANCE,
        );
        expect(
          Math.abs(bleu1Simple(item.prediction, gold) - (item.bleu1_simple as number)),
        ).toBeLessThan(TOLERANCE);
      }
    },
  );
});
