import { Index } from 'flexsearch';
import type { FullTextIndex, TextIndexSettings } from '../../../src-shared/index-kinds/engine';
import { memoizeString } from '../../../src-shared/memo';
import { createAnalyzer } from './analyzer';
import { ExactPostings, bm25Norm, bm25Part, type WeightedTerm } from './text-postings';
import { selectTop } from './top-k';

interface DocStats {
  length: number;
  tf: Map<string, number>;
}

export interface TextHit {
  seq: number;
  score: number;
}

/**
 * Full-text index: each query term's documents are the candidates, BM25 ranks them.
 *
 * Each distinct query term is looked up on its own (OR semantics; flexsearch's own query requires
 * every term, which on natural-language questions returns almost nothing, and gives no score) and
 * the union is scored with BM25 (k1, b from the config; Lucene's idf
 * ln(1 + (N - df + 0.5) / (df + 0.5)), always positive) from term statistics kept here.
 *
 * Documents are analysed once (our analyzer: accent folding, lowercase, stop words, Porter stem).
 * Exact terms find their documents in the index's own postings (text-postings.ts), read once per
 * query term into one array of scores. Prefix terms ask flexsearch (`forward` tokenizer), which receives the
 * analysed terms joined by spaces, with an encoder that only splits, so the index and the
 * statistics agree on what a term is; it is built only for a prefix index. Nothing is persisted:
 * the collection rebuilds this from SQLite on open.
 */
export class TextIndex implements FullTextIndex {
  readonly analyze: (text: string) => string[];
  private readonly fx: Index | null;
  private readonly postings = new ExactPostings();
  private readonly docs = new Map<number, DocStats>();
  private readonly df = new Map<string, number>();
  private totalLength = 0;
  /** Documents the last search scored (for tests and diagnostics: pruning keeps it small). */
  lastScored = 0;
  /** A query's distinct terms: the same questions come back at every test of a run. */
  private readonly queryTerms = memoizeString(
    (query: string): readonly string[] => [...new Set(this.analyze(query))],
    10_000,
  );

  constructor(private readonly config: TextIndexSettings) {
    this.analyze = createAnalyzer(config);
    this.fx = config.prefix
      ? new Index({
          tokenize: 'forward',
          encoder: (content: string) => (content === '' ? [] : content.split(' ')),
          // Keeps a reverse map so remove() does not scan the whole index.
          fastupdate: true,
        })
      : null;
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
    for (const term of tf.keys()) this.df.set(term, (this.df.get(term) ?? 0) + 1);
    this.docs.set(seq, { length: terms.length, tf });
    this.totalLength += terms.length;
    if (terms.length === 0) return;
    if (this.fx) this.fx.add(seq, terms.join(' '));
    else this.postings.add(seq, terms.length, tf);
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
    if (this.fx) this.fx.remove(seq);
    else this.postings.remove(seq, doc.tf.keys());
  }

  search(query: string, topK: number): TextHit[] {
    const n = this.docs.size;
    this.lastScored = 0;
    if (n === 0 || topK <= 0) return [];
    const terms = this.queryTerms(query);
    if (terms.length === 0) return [];
    const avgLength = this.totalLength / n || 1;
    if (this.fx) {
      const scores = this.scorePrefix(this.fx, terms, n, avgLength);
      this.lastScored = scores.size;
      const hits: TextHit[] = [];
      for (const [seq, score] of scores) hits.push({ seq, score });
      return selectTop(hits, topK, byScoreThenSeq);
    }
    const weighted: WeightedTerm[] = [];
    for (const term of terms) {
      const df = this.df.get(term);
      if (df !== undefined) weighted.push({ term, idf: bm25Idf(n, df) });
    }
    const { hits, scored } = this.postings.search(weighted, this.config, avgLength, topK);
    this.lastScored = scored;
    return hits;
  }

  /** Prefix terms: each term's df is what flexsearch finds, so every candidate list is read. */
  private scorePrefix(
    fx: Index,
    terms: readonly string[],
    n: number,
    avgLength: number,
  ): Map<number, number> {
    const scores = new Map<number, number>();
    for (const term of terms) {
      // flexsearch 0.8 was seen returning undefined for some terms after removals (conv-26 turns
      // added and removed in batches); treat that as no candidates rather than crash the query.
      const candidates = (fx.search(term, { limit: n }) as number[] | undefined) ?? [];
      if (candidates.length === 0) continue;
      // With prefix matching a term stands for every word it starts, so its df is the number of
      // documents flexsearch found.
      const idf = bm25Idf(n, candidates.length);
      for (const seq of candidates) {
        const doc = this.docs.get(seq);
        if (!doc) continue;
        const tf = prefixFrequency(doc.tf, term);
        if (tf === 0) continue;
        const norm = bm25Norm(this.config, doc.length, avgLength);
        scores.set(seq, (scores.get(seq) ?? 0) + bm25Part(idf, tf, norm, this.config.k1));
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
