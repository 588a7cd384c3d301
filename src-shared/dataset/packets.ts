import type { Turn } from './types';

/**
 * What the pipeline feeds a memory system: two consecutive turns of one session (the last packet
 * of a session may hold one). Field names follow the seed implementations' contract (DESIGN §3).
 */
export interface Packet {
  /** The sample id. */
  task_id: string;
  /** The session's number (`session_<n>`). */
  session_id: number;
  /** The dia_id of the first turn in the packet. */
  dialog_id: string;
  dialogs: Turn[];
  dialog_len: number;
  /** 0-based over the whole sample. */
  packet_idx: number;
  total_packets: number;
}

export interface TestPlanOptions {
  /**
   * Questions with no usable evidence are excluded by default; when true they count and become
   * visible at the last packet.
   */
  includeNoEvidence?: boolean;
  /** `stream` (default): question-driven tests as the conversation grows; `ingest-all`: one test. */
  mode?: ProtocolMode;
  /**
   * Haystack benchmarks (LongMemEval): also ask each question after every n-th of its haystack,
   * not only at the end (1 or absent: at the end only).
   */
  haystackCurvePoints?: number;
  /** Only questions of these stored categories are asked; absent: all. */
  questionCategories?: readonly number[];
}

/**
 * How questions meet the conversation. `stream`: a test whenever another tenth of the questions
 * has become visible, and always one after the last packet (the headline); `ingest-all`: every
 * packet first, then every question once, as the papers evaluate.
 */
export const PROTOCOL_MODES = ['stream', 'ingest-all'] as const;
export type ProtocolMode = (typeof PROTOCOL_MODES)[number];
/** A config without `mode` streams. */
export const DEFAULT_PROTOCOL_MODE: ProtocolMode = 'stream';

export interface PlannedTest {
  /** 0-based. */
  testIndex: number;
  /** The packet after whose insertion the test runs. */
  packetIdx: number;
  /** Turns inserted so far, this packet included. */
  dialogsInserted: number;
  visibleCount: number;
  /** The first `visibleCount` entries of `questionOrder`: qa indices, re-asked every test. */
  questionIndices: number[];
}

export interface TestPlan {
  /** max(1, floor(totalQuestions / 10)). */
  threshold: number;
  /** Questions that take part (those with usable evidence, plus the rest if included). */
  totalQuestions: number;
  /** Participating qa indices sorted by the packet they become visible at, ties by qa index. */
  questionOrder: number[];
  /** Indexed by qa index: the packet completing the question's evidence; null when excluded. */
  visibleAtPacket: Array<number | null>;
  tests: PlannedTest[];
  /** The last packet, where the run completes (with or without a test); null for no packets. */
  completionPacketIdx: number | null;
}
