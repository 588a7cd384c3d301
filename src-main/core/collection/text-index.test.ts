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

  it('ranks exactly as scoring every document after removals and re-adds reuse its slots', () => {
    // Each op adds (or replaces) a document under a seq, or removes one; the index must rank the
    // documents left, with their last texts, as scoring them all does.
    const op = fc.oneof(
      fc.record({
        seq: fc.integer({ min: 1, max: 12 }),
        words: fc.array(fc.constantFrom(...WORDS), { maxLength: 6 }),
      }),
      fc.record({ seq: fc.integer({ min: 1, max: 12 }), remove: fc.constant(true) }),
    );
    fc.assert(
      fc.property(
        fc.array(op, { minLength: 1, maxLength: 60 }),
        fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 12 }),
        (ops, queryWords, topK) => {
          const index = new TextIndex(SETTINGS);
          const live = new Map<number, string>();
          for (const o of ops) {
            if ('remove' in o) {
              index.remove(o.seq);
              live.delete(o.seq);
            } else {
              const text = `caroline: ${o.words.join(' ')}`;
              index.add(o.seq, text);
              live.set(o.seq, text);
            }
          }
          const query = queryWords.join(' ');
          expect(index.size).toBe(live.size);
          expect(index.search(query, topK)).toEqual(fullSortBm25([...live], query, topK, SETTINGS));
        },
      ),
      { numRuns: 300 },
    );
  });
});
