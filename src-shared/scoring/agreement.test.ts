import { describe, expect, it } from 'vitest';
import {
  agreementReport,
  cohenKappa,
  fleissKappa,
  krippendorffAlpha,
  percentAgreement,
  ratingStatisticInterval,
  type Rating,
  type RatingMatrix,
} from './agreement';
import { clusterBootstrapCI, clusterBootstrapStatistic } from './significance';
import { mean } from './stats';
import agreementGolden from '../../tests/fixtures/golden/agreement.json';

/** Written by scripts/golden/generate-agreement.py from NLTK 3.8's AnnotationTask (Debian). */
interface Golden {
  complete: Array<{
    name: string;
    ratings: Rating[][];
    kappa: number;
    pi: number;
    avgAo: number;
    alpha: number;
  }>;
  missing: Array<{ name: string; ratings: Rating[][]; alpha: number }>;
  clusteredAlpha: {
    ratings: Rating[][];
    clusters: string[];
    seed: number;
    resamples: number;
    confidence: number;
    result: { estimate: number; low: number; high: number; clusters: number };
  };
}

const golden = agreementGolden as Golden;

/** Rows of a two-rater table from its four cells: both correct, A only, B only, both wrong. */
function twoByTwo(both: number, aOnly: number, bOnly: number, neither: number): Rating[][] {
  return [
    ...Array.from({ length: both }, () => ['correct', 'correct']),
    ...Array.from({ length: aOnly }, () => ['correct', 'wrong']),
    ...Array.from({ length: bOnly }, () => ['wrong', 'correct']),
    ...Array.from({ length: neither }, () => ['wrong', 'wrong']),
  ];
}

/** A rating matrix from per-question label counts (raters are interchangeable for Fleiss). */
function fromCounts(counts: number[][]): Rating[][] {
  return counts.map((row) => row.flatMap((count, label) => Array<Rating>(count).fill(`c${label}`)));
}

describe('hand-computed agreement', () => {
  it("Cohen's κ with known marginals: p_o 0.7, p_e 0.5·0.6 + 0.5·0.4 = 0.5, κ 0.4", () => {
    const ratings = twoByTwo(20, 5, 10, 15);
    expect(percentAgreement(ratings)).toBeCloseTo(0.7, 15);
    expect(cohenKappa(ratings, 0, 1)).toBeCloseTo(0.4, 15);
  });

  it('the κ paradox: 90% agreement at 95% prevalence gives κ = (0.9 − 0.905)/0.095 = −1/19', () => {
    const ratings = twoByTwo(90, 5, 5, 0);
    expect(percentAgreement(ratings)).toBeCloseTo(0.9, 15);
    expect(cohenKappa(ratings, 0, 1)).toBeCloseTo(-1 / 19, 12);
  });

  it('κ is undefined, not 1, when both raters always give one label', () => {
    expect(cohenKappa(twoByTwo(10, 0, 0, 0), 0, 1)).toBeNaN();
  });

  it("Fleiss' κ on Fleiss's (1971) table as worked on Wikipedia: P̄ 0.378, P_e 0.213, κ 0.210", () => {
    const ratings = fromCounts([
      [0, 0, 0, 0, 14],
      [0, 2, 6, 4, 2],
      [0, 0, 3, 5, 6],
      [0, 3, 9, 2, 0],
      [2, 2, 8, 1, 1],
      [7, 7, 0, 0, 0],
      [3, 2, 6, 3, 0],
      [2, 5, 3, 2, 2],
      [6, 5, 2, 1, 0],
      [0, 2, 2, 3, 7],
    ]);
    expect(percentAgreement(ratings)).toBeCloseTo(0.378, 3);
    expect(fleissKappa(ratings)).toBeCloseTo(0.21, 3);
  });

  it("Fleiss' κ uses only the questions every rater labelled", () => {
    const complete = twoByTwo(20, 5, 10, 15);
    expect(fleissKappa([...complete, ['correct', null], [null, 'wrong']])).toBe(
      fleissKappa(complete),
    );
  });

  it('α with missing labels: a lone label is dropped; D_o 2/5, D_e 12/20, α 1/3', () => {
    // q1: c c –   q2: c w w   q3: w – – (unpairable). Pairable labels: c 3, w 2 (n 5).
    // D_o = (0 + (1·2 + 2·1)/(3 − 1)) / 5 = 0.4; D_e = (3·2 + 2·3) / (5·4) = 0.6.
    const ratings: RatingMatrix = [
      ['correct', 'correct', null],
      ['correct', 'wrong', 'wrong'],
      ['wrong', null, null],
    ];
    expect(krippendorffAlpha(ratings)).toBeCloseTo(1 / 3, 15);
  });

  it("α reproduces Krippendorff's (2011) nominal example with missing values: 0.743", () => {
    const byCoder: (number | null)[][] = [
      [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
      [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3],
      [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null],
      [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null],
    ];
    const ratings = byCoder[0]!.map((_, unit) =>
      byCoder.map((coder) => (coder[unit] === null ? null : String(coder[unit]))),
    );
    expect(krippendorffAlpha(ratings)).toBeCloseTo(0.743, 3);
  });

  it('refuses a rater column no question has, naming it', () => {
    expect(() => cohenKappa(twoByTwo(1, 1, 1, 1), 0, 2)).toThrow(
      'cohenKappa: no question has a column 2',
    );
  });
});

describe('agreement against NLTK 3.8 AnnotationTask', () => {
  it.each(golden.complete)('$name: kappa, pi, avg_Ao, alpha', (c) => {
    const raters = c.ratings[0]!.length;
    const pairKappas: number[] = [];
    for (let a = 0; a < raters; a++)
      for (let b = a + 1; b < raters; b++) pairKappas.push(cohenKappa(c.ratings, a, b));
    // NLTK's kappa is the plain mean of Cohen's κ over rater pairs.
    expect(mean(pairKappas)).toBeCloseTo(c.kappa, 12);
    expect(fleissKappa(c.ratings)).toBeCloseTo(c.pi, 12);
    expect(percentAgreement(c.ratings)).toBeCloseTo(c.avgAo, 12);
    expect(krippendorffAlpha(c.ratings)).toBeCloseTo(c.alpha, 12);
  });

  it.each(golden.missing)('$name: alpha', (c) => {
    expect(c.ratings.some((row) => row.includes(null))).toBe(true);
    expect(krippendorffAlpha(c.ratings)).toBeCloseTo(c.alpha, 12);
  });

  it("α's interval over conversations matches NLTK alpha over the same mulberry32 draws", () => {
    const g = golden.clusteredAlpha;
    const result = ratingStatisticInterval(g.ratings, g.clusters, krippendorffAlpha, {
      seed: g.seed,
      resamples: g.resamples,
      confidence: g.confidence,
    });
    expect(result.estimate).toBeCloseTo(g.result.estimate, 12);
    expect(result.low).toBeCloseTo(g.result.low, 12);
    expect(result.high).toBeCloseTo(g.result.high, 12);
    expect(result.clusters).toBe(g.result.clusters);
    expect(result.undefinedResamples).toBe(0);
  });
});

describe('clustered intervals', () => {
  const ratings = golden.complete[2]!.ratings;
  const clusters = ratings.map((_, i) => `conv-${i % 5}`);

  it("resamples conversations exactly as Compare's cluster bootstrap does", () => {
    const scores = ratings.map((row) => (row[0] === 'correct' ? 1 : 0));
    const compare = clusterBootstrapCI(
      scores.map(() => 0),
      scores,
      clusters,
      { seed: 9, resamples: 400 },
    );
    const generic = clusterBootstrapStatistic(
      clusters,
      (rows) => mean(rows.map((row) => scores[row] as number)),
      { seed: 9, resamples: 400 },
    );
    expect(generic.estimate).toBeCloseTo(compare.meanDiff, 12);
    expect(generic.low).toBeCloseTo(compare.low, 12);
    expect(generic.high).toBeCloseTo(compare.high, 12);
    expect(generic.clusters).toBe(5);
  });

  it('the report gives every statistic an interval around its estimate, the same for a seed', () => {
    const report = agreementReport(ratings, clusters, { seed: 3, resamples: 150 });
    expect(report.raters).toBe(3);
    expect(report.pairs.map((p) => [p.raterA, p.raterB])).toEqual([
      [0, 1],
      [0, 2],
      [1, 2],
    ]);
    expect(report.pairs[1]!.cohenKappa.estimate).toBe(cohenKappa(ratings, 0, 2));
    expect(report.fleissKappa.estimate).toBe(fleissKappa(ratings));
    expect(report.krippendorffAlpha.estimate).toBe(krippendorffAlpha(ratings));
    for (const e of [report.percentAgreement, report.fleissKappa, report.krippendorffAlpha]) {
      expect(e.low).toBeLessThan(e.estimate);
      expect(e.high).toBeGreaterThan(e.estimate);
      expect(e.clusters).toBe(5);
    }
    expect(agreementReport(ratings, clusters, { seed: 3, resamples: 150 })).toEqual(report);
    expect(
      agreementReport(ratings, clusters, { seed: 4, resamples: 150 }).fleissKappa.low,
    ).not.toBe(report.fleissKappa.low);
  });

  it("counts each statistic's usable questions: a pair only where both labelled", () => {
    const withGaps: Rating[][] = ratings.map((row, i) => (i < 10 ? [row[0]!, null, row[2]!] : row));
    const report = agreementReport(withGaps, clusters, { seed: 1, resamples: 50 });
    expect(report.pairs[0]!.cohenKappa.n).toBe(ratings.length - 10);
    expect(report.pairs[1]!.cohenKappa.n).toBe(ratings.length);
    expect(report.fleissKappa.n).toBe(ratings.length - 10);
    expect(report.krippendorffAlpha.n).toBe(ratings.length);
  });

  it('counts resamples where the statistic is undefined instead of using them', () => {
    // One conversation where both raters always agree on "correct": κ is undefined there.
    const rows: Rating[][] = [...twoByTwo(6, 0, 0, 0), ...twoByTwo(2, 1, 1, 2)];
    const conv = rows.map((_, i) => (i < 6 ? 'a' : 'b'));
    const result = ratingStatisticInterval(rows, conv, (m) => cohenKappa(m, 0, 1), {
      seed: 0,
      resamples: 200,
    });
    // A resample that draws conversation a twice has κ undefined (p_e = 1): about a quarter.
    expect(result.undefinedResamples).toBeGreaterThan(20);
    expect(result.undefinedResamples).toBeLessThan(80);
    expect(Number.isNaN(result.low)).toBe(false);
  });

  it('refuses clusters that do not match the questions, naming both counts', () => {
    expect(() => agreementReport(twoByTwo(1, 0, 0, 1), ['a'])).toThrow(
      'agreementReport: one cluster per question is needed, got 1 for 2 questions',
    );
  });
});
