import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryService } from '../registry';
import { filled, ids, sample, session, tempDirs } from './fixtures';
import {
  LEARNS_FROM_QUERIES_NOTE,
  LONG_TERM_OFF_NOTE,
  segmentHeat,
  type MemoryosMemory,
} from './memoryos';
import './index';

const dirs = tempDirs('memoryos');
afterAll(() => dirs.cleanup());
afterEach(() => vi.useRealTimers());

// Three topics: pottery (D1:1-4), stocks (D1:5-8), then hiking two months later (D2:1-4).
const SAMPLE = sample([
  session(1, '2023-01-01T10:00:00', [
    ['Ann', 'I finished a blue pottery bowl in my ceramics class.'],
    ['Bob', 'Your pottery is lovely, is the clay hard to shape on the wheel?'],
    ['Ann', 'The clay is soft, the glaze on the ceramic bowl took ages.'],
    ['Bob', 'I want to try pottery and glaze a clay mug.'],
    ['Ann', 'I sold my shares when the stock market crashed.'],
    ['Bob', 'Stock prices and investing in shares scare me.'],
    ['Ann', 'My broker says the market will recover and shares will rise.'],
    ['Bob', 'I should invest in stocks with a broker too.'],
  ]),
  session(2, '2023-03-01T10:00:00', [
    ['Ann', 'We went hiking in the mountains and camped by a lake.'],
    ['Bob', 'Hiking trails in the mountains are the best.'],
    ['Ann', 'The mountain lake was freezing.'],
    ['Bob', 'Next time I will bring my tent.'],
  ]),
]);

/** Short-term holds 2 pages, so 10 of the 12 pages end up in mid-term. */
const CONFIG = { shortTermCapacity: 2, segmentThreshold: 0.3 };

async function memoryos(config: object = CONFIG): Promise<MemoryosMemory> {
  return (await filled('memoryos', config, SAMPLE, dirs.make())) as MemoryosMemory;
}

describe('memory preset memoryos', () => {
  it('moves pages the short-term fifo evicts into mid-term segments', async () => {
    const m = await memoryos();
    expect(m.stats()).toMatchObject({
      'shortTerm.pages': 2,
      promoted: 10,
      'midTerm.pages': 10,
      'evicted.segments': 0,
    });
    await m.close();
  });

  it('groups similar pages into one segment', async () => {
    const m = await memoryos();
    const segments = m.midTerm();
    const of = (page: string) => segments.find((s) => s.pages.includes(page))?.pages;
    // The four stock-market turns are each other's nearest pages and nothing else is close.
    expect(of('D1:5')).toEqual(['D1:5', 'D1:6', 'D1:7', 'D1:8']);
    // The pottery replies share a segment without any stock page. (D1:1 was promoted when only
    // D1:1 and D1:2 had been seen; centred on their mean they point in opposite directions.)
    expect(of('D1:3')).toEqual(['D1:2', 'D1:3', 'D1:4']);
    expect(of('D2:1')).toEqual(['D2:1', 'D2:2']);
    await m.close();
  });

  it('returns a page from mid-term after it left short-term', async () => {
    const m = await memoryos();
    // D1:1 left short-term long ago; it is the only turn naming a pottery class.
    const hits = await m.retrieve('What did Ann make in her pottery class?', 3);
    expect(hits[0]).toMatchObject({
      diaId: 'D1:1',
      speaker: 'Ann',
      sessionDateTime: '2023-01-01T10:00:00',
    });
    // Asking changes nothing by default (issue 12 item 5).
    expect(m.stats()['visits']).toBe(0);
    await m.close();
  });

  it('retrieves without side effects: asking again gives the same hits and the same heat', async () => {
    // Heat decides which segments are read (heatWeight 50): if asking raised it, the second
    // round of the same questions would rank other pages first.
    const config = { ...CONFIG, heatWeight: 50, topSegments: 1 };
    const m = await memoryos(config);
    const questions = ['pottery bowl and clay', 'stock market shares', 'mountain lake camping'];
    const before = m.midTerm();
    const first = [];
    for (const q of questions) first.push(await m.retrieve(q, 3));
    const second = [];
    for (const q of questions) second.push(await m.retrieve(q, 3));
    expect(second).toEqual(first);
    expect(m.midTerm()).toEqual(before);
    expect(m.notes().some((n) => n.includes('learns from queries'))).toBe(false);
    await m.close();
  });

  it('learns from queries when asked to, and says so in its notes', async () => {
    const m = await memoryos({ ...CONFIG, learnsFromQueries: true });
    const before = m.midTerm();
    await m.retrieve('What did Ann make in her pottery class?', 3);
    // Using a segment is a visit (MemoryOS's heat).
    expect(m.stats()['visits']).toBeGreaterThan(0);
    expect(m.midTerm()).not.toEqual(before);
    expect(m.notes()).toContain(LEARNS_FROM_QUERIES_NOTE);
    await m.close();
  });

  it('measures heat recency in conversation time, not wall-clock time', async () => {
    // Heat from recency only: a segment is as hot as the last conversation time it was touched.
    // Inserting session 2's first packet pushed D1:7 and D1:8 into the stock segment, and the
    // next one D2:1 and D2:2 into a new segment: both were touched in session 2. The pottery
    // segments were last touched in session 1, two months (1,416 h) earlier.
    const recencyOnly = { ...CONFIG, alpha: 0, beta: 0, gamma: 1 };
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2001-01-01T00:00:00Z') });
    const early = await memoryos(recencyOnly);
    vi.setSystemTime(new Date('2031-06-15T12:34:56Z'));
    const late = await memoryos(recencyOnly);
    const byHeat = early.midTerm();
    expect(byHeat.map((s) => s.pages[0])).toEqual(['D1:5', 'D2:1', 'D1:1', 'D1:2']);
    expect(byHeat[0]?.heat).toBeCloseTo(1, 10);
    expect(byHeat[1]?.heat).toBeCloseTo(1, 10);
    // At tau 168 h: exp(-1416/168), about 0.0002.
    expect(byHeat[2]?.heat).toBeCloseTo(Math.exp(-1416 / 168), 6);
    // Ten wall-clock years apart, the same state and the same answers.
    expect(late.midTerm()).toEqual(early.midTerm());
    const q = 'Where did they go hiking?';
    expect(await late.retrieve(q, 4)).toEqual(await early.retrieve(q, 4));
    expect(late.midTerm()).toEqual(early.midTerm());
    await early.close();
    await late.close();
  });

  it('computes heat as alpha*visits + beta*pages + gamma*recency', () => {
    const p = { alpha: 2, beta: 0.5, gamma: 3, recencyTauHours: 10 };
    const s = { visits: 1, pages: ['a', 'b'], lastTouched: { hours: 100, packet: 3 } };
    expect(segmentHeat(s, { hours: 110, packet: 9 }, p)).toBeCloseTo(2 + 1 + 3 * Math.exp(-1), 10);
  });

  it('evicts the coldest segment beyond the mid-term capacity', async () => {
    const m = await memoryos({ ...CONFIG, midTermCapacity: 2 });
    const stats = m.stats();
    expect(stats['midTerm.segments']).toBe(2);
    expect(stats['evicted.segments']).toBeGreaterThan(0);
    expect(stats['evicted.pages']).toBe(10 - (stats['midTerm.pages'] ?? 0));
    // Whatever was evicted can no longer be retrieved.
    const kept = new Set(
      m
        .midTerm()
        .flatMap((s) => s.pages)
        .concat(['D2:3', 'D2:4']),
    );
    for (const id of await ids(m, 'pottery clay shares stocks broker hiking lake', 12)) {
      expect(kept.has(id)).toBe(true);
    }
    await m.close();
  });

  it('says in notes() that the long-term persona stage is off', async () => {
    const m = await memoryos();
    expect(m.notes()).toContain(LONG_TERM_OFF_NOTE);
    expect(LONG_TERM_OFF_NOTE).toContain('long-term persona stage off: no LLM configured');
    await m.close();
  });

  it('gives the same answers for the same input (determinism)', async () => {
    const a = await memoryos();
    const b = await memoryos();
    for (const q of ['pottery bowl', 'When did Ann sell her shares?', 'Where did they camp?']) {
      expect(await a.retrieve(q, 5)).toEqual(await b.retrieve(q, 5));
    }
    expect(a.midTerm()).toEqual(b.midTerm());
    expect(a.stats()).toEqual(b.stats());
    await a.close();
    await b.close();
  });

  it('rejects a bad config naming the field', async () => {
    await expect(
      createMemoryService(
        'memoryos',
        { segmentThreshold: 2 },
        { sample: SAMPLE, dir: dirs.make() },
      ),
    ).rejects.toThrow(/memory preset "memoryos" config: segmentThreshold:/);
  });
});
