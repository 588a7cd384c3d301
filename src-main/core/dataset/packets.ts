import type { Packet } from '../../../src-shared/dataset/packets';
import type { Sample } from '../../../src-shared/dataset/types';

/** Turns per packet: the seeds feed a memory system two turns at a time (DESIGN §3). */
export const TURNS_PER_PACKET = 2;

/**
 * A sample as the pipeline feeds it: pairs of consecutive turns, never spanning two sessions
 * (a session boundary is a time gap the memory system should see), sessions in numeric order.
 * Pure and cheap; the bounded streaming queue lives in the pipeline, not here.
 */
export function packetsOf(sample: Sample): Packet[] {
  const chunks = sample.sessions.flatMap((session) => {
    const out: Array<{ sessionIndex: number; turns: Sample['sessions'][number]['turns'] }> = [];
    for (let i = 0; i < session.turns.length; i += TURNS_PER_PACKET) {
      out.push({
        sessionIndex: session.index,
        turns: session.turns.slice(i, i + TURNS_PER_PACKET),
      });
    }
    return out;
  });
  return chunks.map(({ sessionIndex, turns }, packetIdx): Packet => ({
    task_id: sample.sampleId,
    session_id: sessionIndex,
    // Sessions are validated non-empty, so every chunk has a first turn.
    dialog_id: turns[0]?.diaId ?? '',
    dialogs: turns,
    dialog_len: turns.length,
    packet_idx: packetIdx,
    total_packets: chunks.length,
  }));
}

/** Packet count without building packets: sum over sessions of ceil(turns / 2). */
export function packetCount(sample: Sample): number {
  return sample.sessions.reduce(
    (sum, session) => sum + Math.ceil(session.turns.length / TURNS_PER_PACKET),
    0,
  );
}
