import { afterAll, describe, expect, it } from 'vitest';
import type { Sample } from '../../../../src-shared/dataset';
import { PARIS_SESSION, sample, session, tempDirs } from '../presets/fixtures';
import { packetsOf } from '../../dataset/packets';
import { createMemoryService } from '../registry';
import type { MemoryService } from '../types';
import { TurnOrder, asksWhen, mentionsTime } from './rerank';
import { dateWords } from './service';
import '../presets';

/**
 * The context a turn preset can give BM25 (the turns before a turn, its session's month) and the
 * session-level score, on a curated conversation with real SQLite. What is indexed must never
 * become what the answerer reads: hits carry the turn alone.
 */
const dirs = tempDirs('context');
afterAll(() => dirs.cleanup());
const freshDir = (): string => dirs.make();

const SAMPLE: Sample = sample([
  PARIS_SESSION,
  session(2, '2023-06-01T09:00:00', [
    ['Ann', 'I love hiking in the mountains on weekends.'],
    ['Bob', 'Hiking sounds great.'],
  ]),
]);

/** BM25 alone: no neighbour scores, no speaker boost, so only the indexed text decides. */
const BM25_ONLY = { previousTurnScore: 0, nextTurnScore: 0, speakerBoost: 0 };

async function filled(config: Record<string, unknown>, packets = packetsOf(SAMPLE)) {
  const dir = freshDir();
  const service = await createMemoryService(
    'text',
    { ...BM25_ONLY, ...config },
    {
      sample: SAMPLE,
      dir,
    },
  );
  for (const packet of packets) await service.insert(packet);
  return { service, dir };
}

async function hits(service: MemoryService, question: string) {
  return (await service.retrieve(question, 10)).map((h) => [h.diaId, h.text] as const);
}

describe('text window: the turns before a turn in its BM25 document', () => {
  it('finds the answer by the question it replies to, and returns the answer alone', async () => {
    const { service: plain } = await filled({});
    // D1:5 shares no word with "pottery"; only the turn before it (Bob's question) does.
    expect((await hits(plain, 'pottery')).map(([id]) => id)).toEqual(['D1:4']);
    await plain.close();

    const { service } = await filled({ textWindow: 1 });
    expect(await hits(service, 'pottery')).toEqual([
      ['D1:4', 'Bob: Did you ever go back to the pottery class?'],
      // Longer document (two turns) than D1:4, so BM25 puts it second.
      ['D1:5', 'Ann: Yes! Last Saturday, and I finally finished a blue bowl.'],
    ]);
    // The window holds one turn (D1:4 is not in D1:6's document) and never crosses a session
    // (D2:1 follows the puppy turn in insertion order but not in its session).
    expect((await hits(service, 'puppy')).map(([id]) => id)).toEqual(['D1:6']);
    expect((await hits(service, 'pottery')).map(([id]) => id)).not.toContain('D1:6');
    await service.close();
  });

  it('a reopened service carries the window on from the stored turns', async () => {
    const packets = packetsOf(SAMPLE);
    // Two packets hold D1:1..D1:4: the window must still hold D1:4 when D1:5 arrives.
    const { service: first, dir } = await filled({ textWindow: 1 }, packets.slice(0, 2));
    await first.close();
    const reopened = await createMemoryService(
      'text',
      { ...BM25_ONLY, textWindow: 1 },
      { sample: SAMPLE, dir },
    );
    for (const packet of packets.slice(2)) await reopened.insert(packet);
    expect((await hits(reopened, 'pottery')).map(([id]) => id)).toEqual(['D1:4', 'D1:5']);
    await reopened.close();
  });
});

describe('date words: the session month in the BM25 document', () => {
  it('matches a month named in the question, without changing the stored turn', async () => {
    const { service: plain } = await filled({});
    expect(await hits(plain, 'June')).toEqual([]);
    await plain.close();

    const { service } = await filled({ dateWords: true });
    expect(await hits(service, 'June')).toEqual([
      ['D2:2', 'Bob: Hiking sounds great.'],
      ['D2:1', 'Ann: I love hiking in the mountains on weekends.'],
    ]);
    await service.close();
  });

  it('names the month and year of an ISO date-time, and nothing without one', () => {
    expect(dateWords('2023-05-08T13:56:00')).toBe('May 2023');
    expect(dateWords(null)).toBe('');
  });
});

describe('session score', () => {
  it("lifts a weak turn in the best hit's session over a stronger turn elsewhere", () => {
    const order = new TurnOrder();
    order.place('hit', 1, 'Ann');
    order.place('sameSession', 1, 'Bob');
    order.place('elsewhere', 2, 'Bob');
    const scored = [
      ['hit', 1],
      ['sameSession', 0.1],
      ['elsewhere', 0.2],
    ] as const;
    const weights = { previousTurnScore: 0, nextTurnScore: 0, speakerBoost: 0 };
    expect(order.rerank(scored, [], weights).map((t) => t.id)).toEqual([
      'hit',
      'elsewhere',
      'sameSession',
    ]);
    // sameSession: 0.1 + 0.5 x 1 = 0.6; elsewhere: 0.2 + 0.5 x 0.2 = 0.3.
    const ranked = order.rerank(scored, [], { ...weights, sessionScore: 0.5 });
    expect(ranked.map((t) => [t.id, t.score])).toEqual([
      ['hit', 1.5],
      ['sameSession', 0.6],
      ['elsewhere', expect.closeTo(0.3, 10)],
    ]);
  });
});

describe('time boost', () => {
  it('lifts turns that mention a time, for questions that ask when only', () => {
    const order = new TurnOrder();
    order.place('plain', 1, 'Ann', mentionsTime('I finished a blue bowl.'));
    order.place('timed', 1, 'Ann', mentionsTime('Last Saturday I finished a bowl.'));
    const scored = [
      ['plain', 1],
      ['timed', 0.8],
    ] as const;
    const weights = { previousTurnScore: 0, nextTurnScore: 0, speakerBoost: 0, timeBoost: 1 };
    const ids = (aboutTime: boolean) =>
      order.rerank(scored, [], weights, aboutTime).map((t) => t.id);
    // timed: 0.8 x 2 = 1.6 > 1 when the question asks when; otherwise scores stand.
    expect(ids(true)).toEqual(['timed', 'plain']);
    expect(ids(false)).toEqual(['plain', 'timed']);
    expect(asksWhen('When did Ann finish the bowl?')).toBe(true);
    expect(asksWhen('What did Ann make?')).toBe(false);
    expect(mentionsTime('We met in 2022.')).toBe(true);
  });
});

describe('hybrid-context preset', () => {
  it('is hybrid with the measured context settings on, and says so in its notes', async () => {
    const service = await createMemoryService(
      'hybrid-context',
      {},
      {
        sample: SAMPLE,
        dir: freshDir(),
      },
    );
    for (const packet of packetsOf(SAMPLE)) await service.insert(packet);
    expect(service.preset).toBe('hybrid-context');
    const found = await service.retrieve('When did Ann go to the pottery class?', 2);
    // The answer (Ann's turn) holds "pottery" through its window, Ann is named and it mentions a
    // time ("Last Saturday") in a "when" question, so it comes first; plain hybrid ranks Bob's
    // question first.
    expect(found[0]?.diaId).toBe('D1:5');
    expect(found[0]?.text).toBe('Ann: Yes! Last Saturday, and I finally finished a blue bowl.');
    expect(service.notes().join(' ')).toContain('BM25 window 1 turn');
    expect(service.notes().join(' ')).toContain('time boost 1');
    await service.close();
  });
});

describe('neighbour re-ranking', () => {
  it('pulls in same-session neighbours, forgets the last call and cuts to the limit', () => {
    const order = new TurnOrder();
    order.place('a1', 1, 'Ann');
    order.place('b1', 1, 'Bob');
    order.place('a2', 1, 'Ann');
    order.place('b2', 2, 'Bob');
    expect([order.neighbour('a2', -1), order.neighbour('a2', 1)]).toEqual(['b1', null]);
    const weights = { previousTurnScore: 0.5, nextTurnScore: 0.25, speakerBoost: 1 };
    // b1: 1 + 0.25 x 0 (a2 unscored) + 0.5 x 0 (a1 unscored); a2 and a1 come in as neighbours
    // (a2: 0.5 x 1; a1: 0.25 x 1); b2 is another session's turn, never a neighbour of b1.
    expect(order.rerank([['b1', 1]], [], weights).map((t) => [t.id, t.score, t.base])).toEqual([
      ['b1', 1, 1],
      ['a2', 0.5, null],
      ['a1', 0.25, null],
    ]);
    // A second call must not see the first one's scores: b1 is now only a neighbour of a2.
    const again = order.rerank([['a2', 2]], ['Bob'], weights);
    expect(again.map((t) => [t.id, t.score, t.boosted])).toEqual([
      ['a2', 2, false],
      // (0 + 0.25 x 2) x (1 + 1): Bob is named.
      ['b1', 1, true],
    ]);
    expect(order.rerank([['a2', 2]], ['Bob'], weights, false, 1)).toEqual([again[0]]);
  });
});
