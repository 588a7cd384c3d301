import type { Packet, Sample, Turn } from '../../../../src-shared/dataset';
import type { ItemInput } from '../../collection';

/**
 * Turn documents: one memory item per dataset turn. The item's id is the turn's `dia_id` (unique
 * within a sample, and each sample has its own collection), its text is what the answerer reads,
 * `<speaker>: <text>` with the image caption already inlined by the loader.
 */

export interface TurnMetadata {
  diaId: string;
  sessionIndex: number;
  turnIndex: number;
  speaker: string;
  /** The session's zone-less ISO date-time; null when the file's date did not parse. */
  sessionDateTime: string | null;
  [key: string]: unknown;
}

export function turnText(turn: Pick<Turn, 'speaker' | 'text'>): string {
  return `${turn.speaker}: ${turn.text}`;
}

/** Session index -> parsed date-time, for the metadata of every turn of a sample. */
export function sessionDates(sample: Sample): Map<number, string | null> {
  return new Map(sample.sessions.map((s) => [s.index, s.dateTime]));
}

export function turnMetadata(turn: Turn, sessionDateTime: string | null): TurnMetadata {
  return {
    diaId: turn.diaId,
    sessionIndex: turn.sessionIndex,
    turnIndex: turn.turnIndex,
    speaker: turn.speaker,
    sessionDateTime,
  };
}

/** The collection items for a packet's turns (no vectors: the caller adds those it computes). */
export function packetItems(packet: Packet, dates: Map<number, string | null>): ItemInput[] {
  return packet.dialogs.map((turn) => ({
    id: turn.diaId,
    text: turnText(turn),
    metadata: turnMetadata(turn, dates.get(turn.sessionIndex) ?? null),
  }));
}

/** Reads turn metadata back from a stored item, tolerating items written by something else. */
export function asTurnMetadata(metadata: Record<string, unknown>, id: string): TurnMetadata {
  const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  const num = (v: unknown): number => (typeof v === 'number' ? v : -1);
  return {
    diaId: str(metadata['diaId']) ?? id,
    sessionIndex: num(metadata['sessionIndex']),
    turnIndex: num(metadata['turnIndex']),
    speaker: str(metadata['speaker']) ?? '',
    sessionDateTime: str(metadata['sessionDateTime']),
  };
}
