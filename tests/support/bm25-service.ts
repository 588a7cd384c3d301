import { Bm25Memory, type Bm25Item, type TurnIn } from '../../examples/memory-service-ts/bm25';
import { FAKE_HELLO, startFakeService } from './memory-services';

/**
 * A BM25 service (the TypeScript reference's ranker) that a test bends into one fault at a time,
 * for `memory-check`: each option is one way a real service goes wrong.
 */
export interface Bm25Faults {
  /** Rewrites the ranked items before they go out (reorder, break the schema). */
  order?: (items: Bm25Item[]) => unknown[];
  /** Indexes each packet this long after acknowledging it. */
  indexAfterMs?: number;
  /** Returns this many items more than top_k asked for. */
  overflowBy?: number;
  /** Orders equal scores at random, as a ranker that breaks ties by a hash set or a sample does. */
  shuffleTies?: boolean;
  /** The code a session that was never opened gets (default UNKNOWN_SESSION). */
  unknownSessionCode?: string;
  /** Every retrieve on the real session fails with this coded error. */
  retrieveErrorCode?: string;
}

type Wire = { turns: TurnIn[]; date_time: string | null };

export function bm25Service(faults: Bm25Faults) {
  const memory = new Bm25Memory();
  return startFakeService((method, params) => {
    if (method === 'hello') return { ...FAKE_HELLO, capabilities: { ...FAKE_HELLO.capabilities } };
    if (method === 'open') return { session: 's1' };
    if (method === 'insert') {
      const packet = params['packet'] as Wire;
      if (faults.indexAfterMs === undefined) memory.insert(packet.turns, packet.date_time);
      else setTimeout(() => memory.insert(packet.turns, packet.date_time), faults.indexAfterMs);
      return {};
    }
    if (method === 'retrieve') {
      if (params['session'] !== 's1')
        return {
          error: {
            code: faults.unknownSessionCode ?? 'UNKNOWN_SESSION',
            message: 'no such session',
          },
        };
      if (faults.retrieveErrorCode !== undefined)
        return { error: { code: faults.retrieveErrorCode, message: 'index unavailable' } };
      const topK = params['top_k'] as number;
      let items = memory.retrieve(params['question'] as string, 1000);
      if (faults.shuffleTies === true)
        items = items
          .map((item) => ({ item, draw: Math.random() }))
          .sort((a, b) => b.item.score - a.item.score || a.draw - b.draw)
          .map(({ item }) => item);
      items = items.slice(0, topK + (faults.overflowBy ?? 0));
      return { items: faults.order ? faults.order(items) : items };
    }
    return {};
  });
}
