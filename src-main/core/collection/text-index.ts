import { Index } from 'flexsearch';
import { createAnalyzer, type AnalyzerOptions } from './analyzer';

interface DocStats {
  length: number;
  tf: Map<string, number>;
}

/** The text settings of a text index's config (kinds/text.ts). */
export interface TextIndexSettings extends AnalyzerOptions {
  /** A query term also matches longer words that start with it (flexsearch `forward`). */
  prefix: boolean;
  k1: number;
  b: number;
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
export class TextIndex {
  readonly analyze: (text: string) => string[];
  private readonly fx: Index;
  private readonly docs = new Map<number, DocStats>();
  private readonly df = new Map<string, number>();
  private totalLength = 0;

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
    for (const term of tf.keys()) this.df.set(term, (this.df.get(term) ?? 0) + 1);
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
    if (n === 0 || topK <= 0) return [];
    const terms = [...new Set(this.analyze(query))];
    if (terms.length === 0) return [];
    const { k1, b } = this.config;
    const avgLength = this.totalLength / n || 1;
    const scores = new Map<number, number>();
    for (const term of terms) {
      // flexsearch 0.8 was seen returning undefined for some terms after removals (conv-26 turns
      // added and removed in batches); treat that as no candidates rather than crash the query.
      const candidates = (this.fx.search(term, { limit: n }) as number[] | undefined) ?? [];
      if (candidates.length === 0) continue;
      // With prefix matching a term stands for every word it starts, so its df is the number of
      // documents flexsearch found; otherwise it is the exact count kept here.
      const df = this.config.prefix ? candidates.length : (this.df.get(term) ?? candidates.length);
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (const seq of candidates) {
        const doc = this.docs.get(seq);
        if (!doc) continue;
        const tf = this.config.prefix ? prefixFrequency(doc.tf, term) : (doc.tf.get(term) ?? 0);
        if (tf === 0) continue;
        const norm = k1 * (1 - b + (b * doc.length) / avgLength);
        scores.set(seq, (scores.get(seq) ?? 0) + (idf * tf * (k1 + 1)) / (tf + norm));
      }
    }
    const hits: TextHit[] = [];
    for (const [seq, score] of scores) hits.push({ seq, score });
    hits.sort((x, y) => y.score - x.score || x.seq - y.seq);
    return hits.length > topK ? hits.slice(0, topK) : hits;
  }
}

function prefixFrequency(tf: Map<string, number>, prefix: string): number {
  let total = 0;
  for (const [term, count] of tf) if (term.startsWith(prefix)) total += count;
  return total;
}
