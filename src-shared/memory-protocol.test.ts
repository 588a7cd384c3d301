import { describe, expect, it } from 'vitest';
import { WirePacketSchema } from './memory-protocol';

describe('memory protocol date-times', () => {
  const packet = (date_time: string) => ({
    session_index: 1,
    date_time,
    date_time_text: '10:00 am on 14 March, 2019',
    packet_idx: 0,
    total_packets: 1,
    turns: [{ dia_id: 'D1:1', speaker: 'Alice', text: 'hi' }],
  });

  it('accepts a zone-less date-time', () => {
    expect(WirePacketSchema.safeParse(packet('2019-03-14T10:00:00')).success).toBe(true);
  });

  it('refuses a date-time with Z, saying the rule is zone-less (not "not ISO")', () => {
    const parsed = WirePacketSchema.safeParse(packet('2019-03-14T10:00:00Z'));
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['date_time']);
    expect(parsed.error?.issues[0]?.message).toContain('zone-less ISO date-time');
    expect(parsed.error?.issues[0]?.message).toContain('no Z or UTC offset');
  });
});
