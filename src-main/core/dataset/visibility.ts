import type { Packet, TestPlanOptions } from '../../../src-shared/dataset/packets';
import type { Sample } from '../../../src-shared/dataset/types';

/**
 * A question becomes visible once every turn of its normalised evidence has been inserted: asking
 * it earlier would test the memory system on something it has not been told yet.
 *
 * Returns, per qa index, the packet that completes its evidence; null for questions without
 * usable evidence (excluded by default), or the last packet when `includeNoEvidence` is set;
 * null for questions of a category `questionCategories` leaves out.
 */
export function questionVisibility(
  sample: Sample,
  packets: readonly Packet[],
  options: TestPlanOptions = {},
): Array<number | null> {
  const packetOfTurn = new Map<string, number>();
  for (const packet of packets) {
    for (const turn of packet.dialogs) packetOfTurn.set(turn.diaId, packet.packet_idx);
  }
  const lastPacket = packets.length > 0 ? packets.length - 1 : null;
  const asked = options.questionCategories;
  return sample.qa.map((qa) => {
    if (asked && !asked.includes(qa.category)) return null;
    let at = -1;
    for (const id of qa.evidence) {
      const p = packetOfTurn.get(id);
      // Normalised evidence only holds ids of this sample's turns, so p is always found.
      if (p !== undefined && p > at) at = p;
    }
    if (at >= 0) return at;
    return options.includeNoEvidence === true ? lastPacket : null;
  });
}
