/**
 * BM25 over a conversation's turns: the same algorithm, tokenizer and tie-break as the Python
 * reference service (examples/memory-service-python/memory_service.py), so the two rank alike.
 */

export const K1 = 1.2;
export const B = 0.75;

/** Words too common to say anything about which turn answers a question. */
const STOPWORDS = new Set(
  (
    'a an the and or but of to in on at for with by from is are was were be been being do does ' +
    'did have has had i you he she it we they me him her us them my your his its our their this ' +
    'that these those what when where who whom which why how there here as so if than then not ' +
    'no yes can could would should will shall may might must just about into over also too very'
  ).split(' '),
);

export function tokens(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((t) => !STOPWORDS.has(t));
}

export interface TurnIn {
  dia_id: string;
  speaker: string;
  text: string;
}

// A type, not an interface: it must fit the protocol's open (index-signature) item type.
export type Bm25Item = {
  text: string;
  score: number;
  dia_ids: string[];
  speaker: string;
  date_time: string | null;
};

interface StoredTurn extends TurnIn {
  date_time: string | null;
  tf: Map<string, number>;
  length: number;
}

export class Bm25Memory {
  private readonly turns: StoredTurn[] = [];
  private readonly df = new Map<string, number>();
  private totalLength = 0;

  /** `dateTime` is the session's own date-time (the conversation's clock, never the wall clock). */
  insert(turns: readonly TurnIn[], dateTime: string | null): void {
    for (const turn of turns) {
      const toks = tokens(`${turn.speaker} ${turn.text}`);
      const tf = new Map<string, number>();
      for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const t of tf.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
      this.totalLength += toks.length;
      this.turns.push({ ...turn, date_time: dateTime, tf, length: toks.length });
    }
  }

  get size(): number {
    return this.turns.length;
  }

  retrieve(question: string, topK: number): Bm25Item[] {
    const n = this.turns.length;
    if (n === 0) return [];
    const avg = this.totalLength > 0 ? this.totalLength / n : 1;
    const query = [...new Set(tokens(question))];
    const scored: Array<{ score: number; position: number; turn: StoredTurn }> = [];
    this.turns.forEach((turn, position) => {
      let score = 0;
      for (const t of query) {
        const f = turn.tf.get(t) ?? 0;
        if (f === 0) continue;
        const df = this.df.get(t) as number;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (idf * (f * (K1 + 1))) / (f + K1 * (1 - B + (B * turn.length) / avg));
      }
      if (score > 0) scored.push({ score, position, turn });
    });
    scored.sort((a, b) => b.score - a.score || a.position - b.position);
    return scored.slice(0, topK).map(({ score, turn }) => ({
      text: `${turn.speaker}: ${turn.text}`,
      score,
      dia_ids: [turn.dia_id],
      speaker: turn.speaker,
      date_time: turn.date_time,
    }));
  }
}
