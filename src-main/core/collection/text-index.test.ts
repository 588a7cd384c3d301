import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAnalyzer } from './analyzer';
import type { TextIndexSettings } from '../../../src-shared/index-kinds/engine';
import { TextIndex } from './text-index';

const SETTINGS: TextIndexSettings = {
  lowercase: true,
  foldAccents: true,
  stopWords: true,
  stem: true,
  prefix: false,
  k1: 1.2,
  b: 0.75,
};

/**
 * BM25 the plain way, as TextIndex ranked before pruning: every document holding a query term is
 * scored (terms summed in query order), then all are sorted by score, ties by the smaller seq.
 */
function fullSortBm25(
  docs: ReadonlyArray<readonly [number, string]>,
  query: string,
  topK: number,
  settings: TextIndexSettings,
): Array<{ seq: number; score: number }> {
  const analyze = createAnalyzer(settings);
  const stats = docs.map(([seq, text]) => {
    const terms = analyze(text);
    const tf = new Map<string, number>();
    for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    return { seq, length: terms.length, tf };
  });
  const n = stats.length;
  if (n === 0) return [];
  const avgLength = stats.reduce((s, d) => s + d.length, 0) / n || 1;
  const { k1, b } = settings;
  const scores = new Map<number, number>();
  for (const term of new Set(analyze(query))) {
    const holders = stats.filter((d) => d.tf.has(term));
    if (holders.length === 0) continue;
    const idf = Math.log(1 + (n - holders.length + 0.5) / (holders.length + 0.5));
    for (const d of holders) {
      const tf = d.tf.get(term) as number;
      const norm = k1 * (1 - b + (b * d.length) / avgLength);
      scores.set(d.seq, (scores.get(d.seq) ?? 0) + (idf * tf * (k1 + 1)) / (tf + norm));
    }
  }
  return [...scores]
    .map(([seq, score]) => ({ seq, score }))
    .sort((x, y) => y.score - x.score || x.seq - y.seq)
    .slice(0, topK);
}

const WORDS = ['caroline', 'melanie', 'painting', 'camping', 'adoption', 'guitar', 'lake', 'pride'];

describe('TextIndex.search', () => {
  it('ranks exactly as scoring every document and sorting them all, ties included', () => {
    // Every document starts with a speaker's name, as turn documents do, so the pruning of
    // common terms is exercised on every query that names a speaker.
    const doc = fc
      .tuple(
        fc.constantFrom('caroline', 'melanie'),
        fc.array(fc.constantFrom(...WORDS), { maxLength: 6 }),
      )
      .map(([speaker, words]) => `${speaker}: ${words.join(' ')}`);
    fc.assert(
      fc.property(
        fc.array(doc, { minLength: 1, maxLength: 80 }),
        fc.array(fc.constantFrom(...WORDS, 'unknown'), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 30 }),
        fc.constantFrom(0, 0.5, 1.2),
        (texts, queryWords, topK, k1) => {
          const settings = { ...SETTINGS, k1 };
          const index = new TextIndex(settings);
          const docs = texts.map((text, i) => [i * 2 + 1, text] as const);
          for (const [seq, text] of docs) index.add(seq, text);
          const query = queryWords.join(' ');
          expect(index.search(query, topK)).toEqual(fullSortBm25(docs, query, topK, settings));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never visits the documents that hold only a speaker name the question shares with all of them', () => {
    // 2,000 turns all start with "caroline"; 60 of them mention the lake. The 10 best for
    // "caroline lake" are lake turns, and a turn with only "caroline" scores at most the name's
    // bound (idf ~0 here), below any lake turn, so it is never scored.
    const index = new TextIndex(SETTINGS);
    for (let seq = 1; seq <= 2000; seq++)
      index.add(seq, seq % 33 === 0 ? 'caroline: a swim in the lake' : `caroline: day ${seq}`);
    const hits = index.search('Did Caroline go to the lake?', 10);
    expect(hits.map((h) => h.seq)).toEqual([33, 66, 99, 132, 165, 198, 231, 264, 297, 330]);
    expect(index.lastScored).toBe(60);
  });
});
