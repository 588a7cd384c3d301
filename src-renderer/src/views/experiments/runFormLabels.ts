import type { ProtocolMode } from '@shared/dataset/packets';
import {
  ANSWER_PROTOCOL_FACES,
  ANSWER_PROTOCOLS,
  type AnswerProtocolName,
  type ResponseCacheMode,
} from '@shared/experiment';

/** What the run form's selects call each choice. */

/** Each answer protocol's label, from its entry (`ANSWER_PROTOCOL_FACES`). */
export const ANSWER_PROTOCOL_LABELS: Record<AnswerProtocolName, string> = Object.fromEntries(
  ANSWER_PROTOCOLS.map((name) => [name, ANSWER_PROTOCOL_FACES[name].label]),
) as Record<AnswerProtocolName, string>;

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
