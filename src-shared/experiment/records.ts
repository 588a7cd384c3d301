import { z } from 'zod';
import type { CategoryId } from '../benchmarks/types';
import type { Scores } from '../metrics';

/** What a run records: each question's answer at each test, with what it retrieved and cost. */

/** What an errored answer shows in tables and exports. */
export const ERROR_PREDICTION = '[ERROR]';

export interface RetrievedRef {
  id: string;
  diaId: string | null;
  score: number;
  /**
   * LoCoMo-convention context ids of a memory that is not one turn: an observation's source turns
   * as the dataset writes them, `S<n>` for a session summary (see `retrievedContext`).
   */
  context?: string[];
  /**
   * Every turn the memory cites, when it cites more than one (an external service's chunk or
   * summary); `diaId` is the first. Each counts for evidence recall (`retrievedTurnIds`).
   */
  diaIds?: string[];
  /**
   * What a memory that cites no turn says (a memory LLM's fact, such as Mem0's), stored because
   * the dataset cannot give it back; a turn's text is the dataset's, so it is not stored.
   */
  text?: string;
}

/** The turns a retrieved memory cites: its `diaIds` when it has several, else its `diaId`. */
export function citedTurnIds(ref: Pick<RetrievedRef, 'diaId' | 'diaIds'>): readonly string[] {
  return ref.diaIds ?? (ref.diaId !== null ? [ref.diaId] : []);
}

/**
 * The turn ids cited by the first k memories, best first (what evidence recall@k is measured on):
 * every id of a memory that cites several turns counts.
 */
export function retrievedTurnIds(
  refs: ReadonlyArray<Pick<RetrievedRef, 'diaId' | 'diaIds'>>,
  topK: number,
): string[] {
  return refs.slice(0, topK).flatMap((r) => citedTurnIds(r));
}

/**
 * The retrieved context in LoCoMo's id form, as `get_rag_context` lists it for its top k: each
 * memory's context ids (a turn: its dia_id). Undefined when no memory carries context ids, so
 * LoCoMo-convention recall reads the retrieved turns as before.
 */
export function retrievedContext(
  refs: ReadonlyArray<Pick<RetrievedRef, 'diaId' | 'context'>>,
  topK: number,
): string[] | undefined {
  const top = refs.slice(0, topK);
  if (!top.some((r) => r.context !== undefined)) return undefined;
  return top.flatMap((r) => r.context ?? (r.diaId !== null ? [r.diaId] : []));
}

/**
 * The memory's ranking a question's depth-reading metrics (`reachesDepth`: LongMemEval's, whose
 * reference ranks every user turn) were scored on, read past the run's top-k.
 */
export interface ScoringRanking {
  /** Turn ids the ranking cites, best first, as deep as the run read it. */
  turns: string[];
  /**
   * False: the memory returned fewer items than asked (a top_k cap, a service that returns
   * fewer, a memory that answers itself) before the depth was reached, so those metrics' values
   * are lower bounds.
   */
  reached: boolean;
}

/** What crosses a boundary as a `ScoringRanking` (the worker's reports, the runs DB's column). */
export const ScoringRankingSchema = z
  .object({ turns: z.array(z.string()), reached: z.boolean() })
  .strict() satisfies z.ZodType<ScoringRanking>;

/** The LLM judge's verdict on one answer over its repeats. */
export interface JudgeScore {
  /** Share of repeats labelled CORRECT; null when the judge failed. */
  mean: number | null;
  /** Sample standard deviation over the repeats (0 for one repeat); null when the judge failed. */
  std: number | null;
  /** 1 = CORRECT, 0 = WRONG, one per repeat in repeat order; empty when the judge failed. */
  labels: number[];
  /** Why there is no verdict (malformed judge output, HTTP failure); null when there is one. */
  error: string | null;
  /**
   * The judge protocol that gave it (`mem0`, `strict`, …). Set by the judge, not kept per row by
   * the runs DB: a run's protocol is its manifest's `judge.prompt.style`.
   */
  protocol?: string;
  /**
   * Repeats whose reply stayed unparseable after the bounded retries. Under `mem0` each counts
   * as a WRONG label (Mem0's denominator); under other protocols the answer gets `error` instead.
   * Not kept per row: the run's count is its manifest's `judge.unparseable`.
   */
  unparseable?: number;
}

/** Tokens one model call used, as the server reported them. */
export interface TokenCounts {
  promptTokens: number;
  completionTokens: number;
}

/** One question asked at one test. */
export interface AnswerRecord {
  sampleId: string;
  testIndex: number;
  questionIndex: number;
  category: CategoryId;
  question: string;
  /** The dataset's answer; null for category-5 questions that only carry an adversarial answer. */
  gold: string | null;
  /** ERROR_PREDICTION when `error` is set. */
  prediction: string;
  retrieved: RetrievedRef[];
  /**
   * Every registered metric's value (src-shared/metrics), null where the metric does not score
   * the question (Mem0 metrics on adversarial questions, recall without evidence, no verdict yet).
   * An errored answer scores 0 on answer metrics. `scores.judge` is `judge.mean`.
   */
  scores: Scores;
  /** The LLM judge's verdict detail (labels per repeat, std, error); null when no judge ran. */
  judge: JudgeScore | null;
  /** The answerer's token usage for this call; null when it reports none (extractive, errors). */
  usage: TokenCounts | null;
  /**
   * Tokens of the retrieved context handed to the answerer (Mem0 Table 2's memory tokens per
   * question); null when unknown (runs from before it was stored, answers that failed first).
   */
  memoryTokens?: number | null;
  /**
   * The ranking the metrics that read past the top-k were scored on; null or absent where no
   * such metric scores the question, or the answer was stored before it was recorded.
   */
  scoringRanking?: ScoringRanking | null;
  retrieveMs: number;
  answerMs: number;
  /** Why the question has no real answer (timeout, thrown error); null when it has one. */
  error: string | null;
}

/** One committed test round (all its answers are committed with it, atomically). */
export interface TestRecord {
  sampleId: string;
  testIndex: number;
  packetIdx: number;
  dialogsInserted: number;
  visibleCount: number;
  questionIndices: number[];
  answers: AnswerRecord[];
}
