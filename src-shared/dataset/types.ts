import type { ErrorCode, ErrorPath } from '../errors';
import type { CategoryId } from '../benchmarks/types';

/**
 * The normalised dataset model every process shares. Loaders turn a file format (LoCoMo first)
 * into these shapes; nothing downstream looks at the raw JSON again.
 */

export interface Turn {
  /** `D<session>:<n>` in LoCoMo; unique within a sample. */
  diaId: string;
  speaker: string;
  /** What memory systems see: the image caption inlined as `[Image: <caption>] <text>`. */
  text: string;
  /** The turn's text exactly as in the file. */
  rawText: string;
  imageUrls?: string[];
  /** The search query the dataset authors used to find the image. */
  imageQuery?: string;
  blipCaption?: string;
  /** The session's number (`session_<n>`), not its position. */
  sessionIndex: number;
  /** 0-based position within the session. */
  turnIndex: number;
}

export interface Session {
  /** The number from the `session_<n>` key; sessions are ordered by it numerically. */
  index: number;
  /** As written in the file, e.g. `1:56 pm on 8 May, 2023`; null when the file has none. */
  dateTimeText: string | null;
  /**
   * Wall-clock time as a zone-less ISO string (`2023-05-08T13:56:00`): the source has no zone,
   * so inventing one would be a lie. Null when the text could not be parsed.
   */
  dateTime: string | null;
  turns: Turn[];
  /** The dataset's own id for the session (LongMemEval `haystack_session_ids`); absent in LoCoMo. */
  sessionId?: string;
}

export type EvidenceProblemKind =
  /** Several ids in one entry (`D8:6; D9:17`, `D9:1 D4:4`); each resolved part is reported. */
  | 'split'
  /** `D30:05` -> `D30:5`. */
  | 'zero-padded'
  /** `D:11:26` -> `D11:26`. */
  | 'misplaced-colon'
  /** Listed twice for one question; the repeat is dropped. */
  | 'duplicate'
  /** Shaped like an id but names no turn of the sample. */
  | 'unresolved'
  /** Not shaped like an id at all (`D`). */
  | 'malformed';

export interface EvidenceProblem {
  /** The evidence entry exactly as in the file. */
  raw: string;
  problem: EvidenceProblemKind;
  /** The part of a split entry this record is about. */
  part?: string;
  /** The turn id the entry (or part) was repaired to; absent when nothing resolved. */
  repairedTo?: string;
}

export interface QA {
  /** 0-based position within the sample's qa list; the stable question key with the sample id. */
  index: number;
  question: string;
  /** Numbers in the file (e.g. 2022) become strings: answers are compared as text. */
  answer: string | null;
  /** Category 5 only: the tempting wrong answer. */
  adversarialAnswer: string | null;
  category: CategoryId;
  evidenceRaw: string[];
  /** Normalised ids that resolve to turns of this sample, deduplicated, in file order. */
  evidence: string[];
  evidenceProblems: EvidenceProblem[];
  /**
   * When the question is asked (LongMemEval `question_date`, zone-less ISO): the reference time
   * for "last week", handed to the memory service. Absent: the last inserted session's time.
   */
  questionDate?: string | null;
  /** The date as the file writes it (`2023/05/30 (Tue) 23:40`). */
  questionDateText?: string;
  /** The dataset's own question id (LongMemEval `question_id`); absent in LoCoMo. */
  questionId?: string;
  /** Sessions that hold the evidence, as `Session.index` numbers (LongMemEval `answer_session_ids`). */
  evidenceSessions?: number[];
  /**
   * The turns the benchmark's reference retrieval ranks, in haystack order (LongMemEval: the user
   * turns, `process_item_flat_index`); absent where its metrics read no corpus.
   */
  retrievalCorpus?: string[];
  /** BEAM: the ability the question probes (its `probing_questions.json` key; category = its number). */
  ability?: string;
  /** BEAM: the rubric items its answer is judged against, one judge call each. */
  rubric?: string[];
}

/** Side material the dataset ships (summaries, observations); kept as-is, loosely typed. */
export interface SampleAux {
  eventSummary: unknown;
  observation: unknown;
  sessionSummary: unknown;
}

export interface Sample {
  sampleId: string;
  speakers: [string, string];
  /** Numeric session order (session_10 after session_9). */
  sessions: Session[];
  qa: QA[];
  aux: SampleAux;
  /**
   * `haystack`: every question is asked after the whole haystack (LongMemEval), however early
   * its evidence came; absent: as soon as its evidence is in (LoCoMo, DESIGN §3).
   */
  askAfter?: 'haystack';
  /** What stats report the sample under beside its own line (BEAM: the chat's size, `100K`). */
  group?: string;
}

/**
 * Something wrong with the input. `error` problems made the loader skip the sample (or, with
 * `strict`, throw); `warning` problems were tolerated.
 */
export interface DatasetProblem {
  severity: 'error' | 'warning';
  code: ErrorCode;
  /** Complete sentence naming the file, the sample and the JSON path. */
  message: string;
  /** JSON path from the file's root. */
  path: ErrorPath;
  sampleIndex: number | null;
  sampleId: string | null;
}

export interface DatasetInfo {
  /** The loader that read it, e.g. `locomo`. */
  format: string;
  /** The file path, or a label for in-memory input. */
  source: string;
  bytes: number | null;
  sha256: string | null;
}

export interface DatasetLoadResult {
  info: DatasetInfo;
  samples: Sample[];
  problems: DatasetProblem[];
}
