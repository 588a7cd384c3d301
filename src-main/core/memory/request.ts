import type { CategoryId } from '../../../src-shared/dataset';

/**
 * What a memory service hands the answerer: its hits and the question they were retrieved for.
 * Declared here, below answer/, so memory never imports the layer above it (answer/types.ts
 * re-exports these).
 */

/** One retrieved memory as the answerer sees it. */
export interface MemoryHit {
  id: string;
  /** The dataset turn it came from, when it is a turn (evidence recall is counted on these). */
  diaId: string | null;
  /** Every turn it cites when it cites several (a service's chunk or summary); `diaId` is the first. */
  diaIds?: readonly string[];
  /** What the memory says, `Speaker: text` for turns. */
  text: string;
  speaker: string | null;
  score: number;
  /** The session's zone-less ISO date-time, so relative dates can be resolved. */
  sessionDateTime: string | null;
  /** What the memory stands for in the dataset, for memories that are not one turn (RAG databases). */
  source?: MemorySource;
}

/**
 * A memory in RAG terms (LoCoMo task_eval/evaluate_gpts.py `prepare_for_rag`, Mem0 rag.py): a turn of the
 * dialog database, an observation (credited to the turns it cites), a session summary (`S<n>`), a
 * chunk of the chat history (credited to the turns it overlaps).
 */
export interface MemorySource {
  kind: 'turn' | 'observation' | 'summary' | 'chunk';
  /**
   * The retrieved context's ids as LoCoMo's `get_rag_context` lists them: the turn's dia_id, an
   * observation's dia_ids as the dataset writes them (a `,`-joined string split), `S<n>`.
   */
  contextIds: readonly string[];
  /** The session's date as the dataset writes it (`1:56 pm on 8 May, 2023`). */
  dateTimeText: string;
}

/** A session of the conversation as far as it has been inserted (full-context protocols). */
export interface ConversationSession {
  /** The session's date as the dataset writes it (`1:56 pm on 8 May, 2023`). */
  dateTimeText: string;
  turns: ReadonlyArray<{ speaker: string; text: string; blipCaption?: string }>;
}

export interface AnswerRequest {
  sampleId: string;
  questionIndex: number;
  question: string;
  category: CategoryId;
  speakers: readonly [string, string];
  memories: readonly MemoryHit[];
  /** The run's seed: anything random (option order) derives from it. */
  seed: number;
  /**
   * Category 5: the dataset's tempting wrong answer, the second option of the official two-option
   * question. Absent or null for other categories.
   */
  adversarialAnswer?: string | null;
  /** The conversation inserted so far, oldest session first; only for answerers that ask. */
  conversation?: readonly ConversationSession[];
  /**
   * The category is adversarial by the dataset's benchmark profile (official answering turns it
   * into a two-option question); absent: the request's benchmark profile decides.
   */
  adversarial?: boolean;
  /** When the question is asked, where the dataset says (LongMemEval `question_date`, ISO). */
  questionDate?: string | null;
  /** The same date as the dataset writes it (`2023/05/30 (Tue) 23:40`), for the reader. */
  questionDateText?: string;
  /**
   * The dataset's benchmark profile id: it decides the question's hints (LoCoMo's date hint,
   * LongMemEval's current date, which category is adversarial).
   */
  benchmark: string;
}
