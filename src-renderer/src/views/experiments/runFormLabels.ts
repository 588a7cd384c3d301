import type { ProtocolMode } from '@shared/dataset/packets';
import type { AnswerProtocolName, ResponseCacheMode } from '@shared/experiment';

/** What the run form's selects call each choice. */

export const ANSWER_PROTOCOL_LABELS: Record<AnswerProtocolName, string> = {
  'workbench-locomo': 'Workbench, LoCoMo-style (retrieved memories)',
  'workbench-mem0': 'Workbench, Mem0-style (retrieved memories)',
  'locomo-full-context': 'LoCoMo full context (paper, byte-exact)',
  'locomo-rag': 'LoCoMo RAG (paper, byte-exact; locomo-rag-* presets)',
  mem0: 'Mem0 (paper, byte-exact)',
  'mem0-rag': "Mem0's RAG baseline (paper, byte-exact; mem0-rag-chunks preset)",
  'mem0-full-context': "Mem0's full-context baseline (paper, byte-exact)",
  longmemeval: 'LongMemEval reader, chain-of-note (paper, byte-exact)',
  'longmemeval-direct': 'LongMemEval reader, direct (paper, byte-exact)',
  'longmemeval-con-separate':
    'LongMemEval reading notes per retrieved round, then chain-of-note (paper, byte-exact)',
  'longmemeval-full-context': 'LongMemEval full history, chain-of-note (paper, byte-exact)',
  beam: 'BEAM RAG reader over retrieved messages (paper, byte-exact prompt)',
};

/** Short: the select sits in half a row; the manifest says what each did. */
export const RESPONSE_CACHE_LABELS: Record<ResponseCacheMode, string> = {
  on: 'On (repeats free)',
  off: 'Off (always ask)',
  only: 'Replay only',
};

/** `cli experiment --mode`: when the questions are asked. */
export const PROTOCOL_MODE_LABELS: Record<ProtocolMode, string> = {
  stream: 'Stream: ask as questions become visible, again at every test',
  'ingest-all': "Ingest all, ask once (the papers' protocol)",
};
