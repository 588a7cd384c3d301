import { KthBest, selectTop } from './top-k';

/** A query term the index knows, with its idf. */
export interface WeightedTerm {
  term: string;
  idf: number;
}

export interface ScoredDoc {
  seq: number;
  score: number;
}

/** BM25's length normalisation and saturation. */
export interface Bm25Params {
  k1: number;
  b: number;
}

/** One term's documents: (slot, tf) pairs side by side in one growable array. */
interface TermPostings {
  pairs: Int32Array;
  size: number;
}

/**
 * A term's part of a document's BM25 score; `norm` is k1 * (1 - b + b * length / avgLength).
 * Always > 0 (idf is).
 */
export function bm25Part(idf: number, tf: number, norm: number, k1: number): number {
  return (idf * tf * (k1 + 1)) / (tf + norm);
}

/** k1 * (1 - b + b * length / avgLength): one expression wherever a document is scored. */
export function bm25Norm({ k1, b }: Bm25Params, length: number, avgLength: number): number {
  return k1 * (1 - b + (b * length) / avgLength);
}

const byScoreThenSeq = (x: ScoredDoc, y: ScoredDoc) => y.score - x.score || x.seq - y.seq;

/**
 * The exact-term side of the text index: each term's documents with the term's count in them, in
 * flat typed arrays, and BM25 accumulated term by term into one array of scores.
 *
 * Scoring each candidate document by looking its terms up in its own map cost a hash lookup in a
 * different large map per term and document: on a conversation of 19,000 long turns a question's
 * terms hold thousands of documents, and that was most of a query's time (issue 36). Here a query
 * reads each of its terms' postings once, in order, adding into a dense array. Terms are added in
 * query order, so each document's score is the same sum, to the last bit, as scoring it term by
 * term in query order. Documents live in dense slots (reused after removal) so the arrays stay
 * as long as the live documents, whatever their seq numbers.
 */
export class ExactPostings {
  private readonly terms = new Map<string, TermPostings>();
  private readonly slotOf = new Map<number, number>();
  private seqOf = new Int32Array(64);
  private lengthOf = new Int32Array(64);
  private scores = new Float64Array(64);
  /** Scratch of one search: the slots it scored. */
  private touched = new Int32Array(64);
  private readonly freeSlots: number[] = [];
  private slots = 0;

  /** Files a document (its length in terms, tf by term); `remove` it first to replace it. */
  add(seq: number, length: number, tf: ReadonlyMap<string, number>): void {
    if (this.slotOf.has(seq)) throw new Error(`text postings: document ${seq} is already filed`);
    const slot = this.takeSlot();
    this.slotOf.set(seq, slot);
    this.seqOf[slot] = seq;
    this.lengthOf[slot] = length;
    for (const [term, count] of tf) {
      let postings = this.terms.get(term);
      if (postings === undefined) {
        postings = { pairs: new Int32Array(8), size: 0 };
        this.terms.set(term, postings);
      }
      if (2 * postings.size + 2 > postings.pairs.length) {
        const grown = new Int32Array(postings.pairs.length * 2);
        grown.set(postings.pairs);
        postings.pairs = grown;
      }
      postings.pairs[2 * postings.size] = slot;
      postings.pairs[2 * postings.size + 1] = count;
      postings.size++;
    }
  }

  /** Unfiles a document; `terms` are the distinct terms it was filed with. */
  remove(seq: number, terms: Iterable<string>): void {
    const slot = this.slotOf.get(seq);
    if (slot === undefined) return;
    for (const term of terms) {
      const postings = this.terms.get(term);
      if (postings === undefined) continue;
      const { pairs } = postings;
      for (let i = 0; i < postings.size; i++) {
        if (pairs[2 * i] !== slot) continue;
        // Order within a term does not matter: move the last pair into the hole.
        const last = postings.size - 1;
        pairs[2 * i] = pairs[2 * last] as number;
        pairs[2 * i + 1] = pairs[2 * last + 1] as number;
        postings.size = last;
        break;
      }
      if (postings.size === 0) this.terms.delete(term);
    }
    this.slotOf.delete(seq);
    this.freeSlots.push(slot);
  }

  /**
   * BM25 of every document holding a known query term (terms in query order), the best `topK` by
   * score then seq, and how many documents were scored.
   */
  search(
    terms: readonly WeightedTerm[],
    params: Bm25Params,
    avgLength: number,
    topK: number,
  ): { hits: ScoredDoc[]; scored: number } {
    const { scores, lengthOf, touched } = this;
    const { k1, b } = params;
    let count = 0;
    for (const { term, idf } of terms) {
      const postings = this.terms.get(term);
      if (postings === undefined) continue;
      const { pairs, size } = postings;
      for (let i = 0; i < 2 * size; i += 2) {
        const slot = pairs[i] as number;
        const tf = pairs[i + 1] as number;
        // bm25Part(idf, tf, bm25Norm(params, length, avgLength), k1), written out: this loop is
        // most of a query's work, and the operations (so the result's bits) are the same.
        const part =
          (idf * tf * (k1 + 1)) /
          (tf + k1 * (1 - b + (b * (lengthOf[slot] as number)) / avgLength));
        // A part is always > 0, so 0 marks a document not yet scored by this query.
        if (scores[slot] === 0) touched[count++] = slot;
        scores[slot] = (scores[slot] as number) + part;
      }
    }
    // Only the documents at or above the k-th best score can be among the top k.
    const best = new KthBest(topK);
    for (let i = 0; i < count; i++) best.add(scores[touched[i] as number] as number);
    const candidates: ScoredDoc[] = [];
    for (let i = 0; i < count; i++) {
      const slot = touched[i] as number;
      const score = scores[slot] as number;
      if (!best.full || score >= best.kth) {
        candidates.push({ seq: this.seqOf[slot] as number, score });
      }
      scores[slot] = 0;
    }
    return { hits: selectTop(candidates, topK, byScoreThenSeq), scored: count };
  }

  private takeSlot(): number {
    const free = this.freeSlots.pop();
    if (free !== undefined) return free;
    const slot = this.slots++;
    if (slot >= this.seqOf.length) {
      const size = this.seqOf.length * 2;
      this.seqOf = grow(this.seqOf, new Int32Array(size));
      this.lengthOf = grow(this.lengthOf, new Int32Array(size));
      this.scores = grow(this.scores, new Float64Array(size));
      this.touched = new Int32Array(size);
    }
    return slot;
  }
}

function grow<T extends Int32Array | Float64Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
