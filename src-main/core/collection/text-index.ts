import { Index } from 'flexsearch';
import type { FullTextIndex, TextIndexSettings } from '../../../src-shared/index-kinds/engine';
import { memoizeString } from '../../../src-shared/memo';
import { createAnalyzer } from './analyzer';
import { KthBest, selectTop } from './top-k';

/** A query term the index knows, with its idf and the most it can add to a document's score. */
interface WeightedTerm {
  term: string;
  idf: number;
  bound: number;
}

interface DocStats {
  length: number;
  tf: Map<string, number>;
}

export interface TextHit {
  seq: number;
  score: number;
}

/**
 * Full-text index: flexsearch finds the candidates, BM25 ranks them.
 *
 * flexsearch's own query requires every term (AND), which on natural-language questions returns
 * almost nothing, and it gives no score. So each distinct query term is looked up on its own (OR
 * semantics) and the union is scored with BM25 (k1, b from the config; Lucene's idf
 * ln(1 + (N - df + 0.5) / (df + 0.5)), always positive) from term statistics kept here.
 *
 * Documents are analysed once (our analyzer: accent folding, lowercase, stop words, Porter stem)
 * and flexsearch receives the analysed terms joined by spaces, with an encoder that only splits,
 * so the index and the statistics agree on what a term is. Nothing is persisted: the collection
 * rebuilds this from SQLite on open.
 */
export class TextIndex implements FullTextIndex {
  readonly analyze: (text: string) => string[];
  private readonly fx: Index;
  private readonly docs = new Map<number, DocStats>();
  private readonly df = new Map<string, number>();
  private totalLength = 0;
  /**
   * Bounds for pruning, kept safe rather than exact: the most times each term occurs in one
   * document and the shortest document length ever added. Removals leave them as they are, which
   * only loosens the bound.
   */
  private readonly maxTf = new Map<string, number>();
  private minLength = Infinity;
  /** Documents the last search scored (for tests and diagnostics: pruning keeps it small). */
  lastScored = 0;
  /** A query's distinct terms: the same questions come back at every test of a run. */
  private readonly queryTerms = memoizeString(
    (query: string): readonly string[] => [...new Set(this.analyze(query))],
    10_000,
  );

  constructor(private readonly config: TextIndexSettings) {
    this.analyze = createAnalyzer(config);
    this.fx = new Index({
      tokenize: config.prefix ? 'forward' : 'strict',
      encoder: (content: string) => (content === '' ? [] : content.split(' ')),
      // Keeps a reverse map so remove() does not scan the whole index.
      fastupdate: true,
    });
  }

  get size(): number {
    return this.docs.size;
  }

  has(seq: number): boolean {
    return this.docs.has(seq);
  }

  /** Document frequency of an analysed term (for tests and diagnostics). */
  documentFrequency(term: string): number {
    return this.df.get(term) ?? 0;
  }

  add(seq: number, text: string): void {
    if (this.docs.has(seq)) this.remove(seq);
    const terms = this.analyze(text);
    const tf = new Map<string, number>();
    for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + 1);
    for (const [term, count] of tf) {
      this.df.set(term, (this.df.get(term) ?? 0) + 1);
      if (count > (this.maxTf.get(term) ?? 0)) this.maxTf.set(term, count);
    }
    if (terms.length > 0 && terms.length < this.minLength) this.minLength = terms.length;
    this.docs.set(seq, { length: terms.length, tf });
    this.totalLength += terms.length;
    if (terms.length > 0) this.fx.add(seq, terms.join(' '));
  }

  remove(seq: number): void {
    const doc = this.docs.get(seq);
    if (!doc) return;
    for (const term of doc.tf.keys()) {
      const n = (this.df.get(term) ?? 1) - 1;
      if (n <= 0) this.df.delete(term);
      else this.df.set(term, n);
    }
    this.totalLength -= doc.length;
    this.docs.delete(seq);
    this.fx.remove(seq);
  }

  search(query: string, topK: number): TextHit[] {
    const n = this.docs.size;
    this.lastScored = 0;
    if (n === 0 || topK <= 0) return [];
    const terms = this.queryTerms(query);
    if (terms.length === 0) return [];
    const avgLength = this.totalLength / n || 1;
    const scores = this.config.prefix
      ? this.scorePrefix(terms, n, avgLength)
      : this.scoreExact(terms, n, avgLength, topK);
    this.lastScored = scores.size;
    const hits: TextHit[] = [];
    for (const [seq, score] of scores) hits.push({ seq, score });
    return selectTop(hits, topK, byScoreThenSeq);
  }

  /**
   * Exact terms, pruned the MaxScore way: a term's contribution is at most its value for the
   * term's largest tf in the shortest document (tf / (tf + norm) grows with tf and shrinks with
   * length), so once
   * the documents of the rarest terms are scored, a document holding only the remaining common
   * terms (a speaker's name is in half of all turns) cannot reach the k-th best score and is never
   * visited. Every document that can still enter the top k is scored over all terms, in query
   * order, by the same formula as before, so the ranking (ties included) is unchanged.
   */
  private scoreExact(
    terms: readonly string[],
    n: number,
    avgLength: number,
    topK: number,
  ): Map<number, number> {
    const { k1, b } = this.config;
    const shortestNorm = k1 * (1 - b + (b * Math.min(this.minLength, avgLength)) / avgLength);
    const weighted: WeightedTerm[] = [];
    for (const term of terms) {
      const df = this.df.get(term);
      if (df === undefined) continue;
      const idf = bm25Idf(n, df);
      const tf = this.maxTf.get(term) ?? 1;
      weighted.push({ term, idf, bound: (idf * tf * (k1 + 1)) / (tf + shortestNorm) });
    }
    const byBound = [...weighted].sort((x, y) => y.bound - x.bound);
    let rest = byBound.reduce((sum, w) => sum + w.bound, 0);
    const scores = new Map<number, number>();
    const best = new KthBest(topK);
    for (const { term, bound } of byBound) {
      // flexsearch 0.8 was seen returning undefined for some terms after removals (conv-26 turns
      // added and removed in batches); treat that as no candidates rather than crash the query.
      const candidates = (this.fx.search(term, { limit: n }) as number[] | undefined) ?? [];
      for (const seq of candidates) {
        if (scores.has(seq)) continue;
        const score = this.scoreDoc(seq, weighted, avgLength);
        if (score === null) continue;
        scores.set(seq, score);
        best.add(score);
      }
      rest -= bound;
      // A small margin keeps the bound safe against rounding in the sums.
      if (best.full && rest * (1 + 1e-9) < best.kth) break;
    }
    return scores;
  }

  /** A document's BM25 score over the query's known terms in query order; null when none occurs. */
  private scoreDoc(seq: number, terms: readonly WeightedTerm[], avgLength: number): number | null {
    const doc = this.docs.get(seq);
    if (!doc) return null;
    const { k1, b } = this.config;
    const norm = k1 * (1 - b + (b * doc.length) / avgLength);
    let score: number | null = null;
    for (const { term, idf } of terms) {
      const tf = doc.tf.get(term) ?? 0;
      if (tf === 0) continue;
      score = (score ?? 0) + (idf * tf * (k1 + 1)) / (tf + norm);
    }
    return score;
  }

  /** Prefix terms: each term's df is what flexsearch finds, so every candidate list is read. */
  private scorePrefix(terms: readonly string[], n: number, avgLength: number): Map<number, number> {
    const { k1, b } = this.config;
    const scores = new Map<number, number>();
    for (const term of terms) {
      const candidates = (this.fx.search(term, { limit: n }) as number[] | undefined) ?? [];
      if (candidates.length === 0) continue;
      // With prefix matching a term stands for every word it starts, so its df is the number of
      // documents flexsearch found.
      const idf = bm25Idf(n, candidates.length);
      for (const seq of candidates) {
        const doc = this.docs.get(seq);
        if (!doc) continue;
        const tf = prefixFrequency(doc.tf, term);
        if (tf === 0) continue;
        const norm = k1 * (1 - b + (b * doc.length) / avgLength);
        scores.set(seq, (scores.get(seq) ?? 0) + (idf * tf * (k1 + 1)) / (tf + norm));
      }
    }
    return scores;
  }
}

/** Lucene's idf: always positive. */
function bm25Idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

const byScoreThenSeq = (x: TextHit, y: TextHit) => y.score - x.score || x.seq - y.seq;

function prefixFrequency(tf: Map<string, number>, prefix: string): number {
  let total = 0;
  for (const [term, count] of tf) if (term.startsWith(prefix)) total += count;
  return total;
}
