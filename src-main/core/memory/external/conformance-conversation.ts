import type { WirePacket } from '../../../../src-shared/memory-protocol';

/**
 * The small synthetic conversation `memory-check` feeds a service: two facts, one per speaker, a
 * dozen turns that all match one question (more than top_k, and tied for a sparse retriever), and
 * a second session inserted last for the indexing-lag probe.
 */

export const SPEAKERS: [string, string] = ['Alice', 'Bob'];
/** Deliberately long ago: a service that stamps memories with the wall clock shows it. */
export const SESSION_1 = { at: '2019-03-14T10:00:00', text: '10:00 am on 14 March, 2019' };
export const SESSION_2 = { at: '2019-04-02T18:30:00', text: '6:30 pm on 2 April, 2019' };
/** More turns than the top_k asked for mention the weather. */
export const WEATHER_TURNS = 12;
export const SMALL_TOP_K = 3;

export function syntheticPackets(): WirePacket[] {
  const turns: Array<{ speaker: string; text: string }> = [
    { speaker: 'Alice', text: 'I adopted a parrot named Zephyrine last week.' },
    { speaker: 'Bob', text: 'My sister Marguerite plays the violin in an orchestra in Vienna.' },
  ];
  for (let i = 0; i < WEATHER_TURNS; i++) {
    turns.push({
      speaker: SPEAKERS[i % 2] as string,
      text: `The weather was rainy again on day ${i + 1}, weather like that keeps us indoors.`,
    });
  }
  const packets: WirePacket[] = [];
  for (let i = 0; i < turns.length; i += 2) {
    packets.push({
      session_index: 1,
      date_time: SESSION_1.at,
      date_time_text: SESSION_1.text,
      packet_idx: packets.length,
      total_packets: turns.length / 2 + 1,
      turns: turns.slice(i, i + 2).map((t, j) => ({ ...t, dia_id: `D1:${i + j + 1}` })),
    });
  }
  return packets;
}

/** Session 2: inserted last, for the indexing-lag probe. */
export function lagPacket(index: number, total: number): WirePacket {
  return {
    session_index: 2,
    date_time: SESSION_2.at,
    date_time_text: SESSION_2.text,
    packet_idx: index,
    total_packets: total,
    turns: [
      { dia_id: 'D2:1', speaker: 'Bob', text: 'The password for the boathouse is quixotrombone.' },
    ],
  };
}
