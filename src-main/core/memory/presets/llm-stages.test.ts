import { afterAll, describe, expect, it } from 'vitest';
import type { ChatCompletion, ChatMessage } from '../../answer/llm-client';
import { packetsOf } from '../../dataset/packets';
import { createMemoryService } from '../registry';
import type { MemoryLlm } from '../types';
import { EIGHT_TOPICS, filled, tempDirs } from './fixtures';
import { noteLines } from './llm-notes';
import './index';

const dirs = tempDirs('llm-stages');
afterAll(() => dirs.cleanup());

/**
 * A deterministic memory LLM: call n answers `replies[n-1]` (or a line naming the call), records
 * what it was sent, and throws on the calls listed in `failOn`.
 */
class FakeMemoryLlm implements MemoryLlm {
  readonly model = 'fake-memory';
  readonly sent: ChatMessage[][] = [];
  readonly seeds: Array<number | undefined> = [];

  constructor(
    private readonly replies: string[] = [],
    private readonly failOn: ReadonlySet<number> = new Set(),
  ) {}

  async complete(
    messages: readonly ChatMessage[],
    options: { seed?: number } = {},
  ): Promise<ChatCompletion> {
    this.sent.push([...messages]);
    this.seeds.push(options.seed);
    const n = this.sent.length;
    if (this.failOn.has(n)) throw new Error(`fake memory LLM: HTTP 500 on call ${n}`);
    return {
      content: this.replies[n - 1] ?? `- note of call ${n}`,
      model: this.model,
      usage: { promptTokens: 10, completionTokens: 4 },
      latencyMs: 1,
      attempts: 1,
    };
  }

  /** The user message of call n: the turns it was given, one per line. */
  turnsOf(n: number): string[] {
    return (this.sent[n - 1]?.[1]?.content ?? '').split('\n');
  }
}

describe('noteLines', () => {
  it('takes one note per line, without list markers, numbering or "none"', () => {
    expect(noteLines('- Ann likes pottery\n2) Bob has a puppy\n\n• x\nnone\n')).toEqual([
      'Ann likes pottery',
      'Bob has a puppy',
      'x',
    ]);
  });
});

/** An LLM that answers only when aborted, with the abort's reason, like LlmClient does. */
class HangingMemoryLlm implements MemoryLlm {
  readonly model = 'hanging-memory';
  calls = 0;

  complete(_messages: readonly ChatMessage[], options: { signal?: AbortSignal } = {}) {
    this.calls++;
    return new Promise<ChatCompletion>((_, reject) => {
      const signal = options.signal;
      if (signal?.aborted) reject(new Error('aborted before the call'));
      signal?.addEventListener('abort', () => reject(new Error('memory LLM call aborted')));
    });
  }
}

describe('tiers summaries with a memory LLM', () => {
  it('stops a hung LLM call at the insert deadline: the insert ends, the failure is counted', async () => {
    const llm = new HangingMemoryLlm();
    const m = await createMemoryService(
      'tiers',
      { workingCapacity: 3, summaryBatch: 2 },
      { sample: EIGHT_TOPICS, dir: dirs.make(), llm },
    );
    // Without the signal reaching the call, an insert that summarises would never settle.
    for (const packet of packetsOf(EIGHT_TOPICS)) await m.insert(packet, AbortSignal.timeout(50));
    expect(llm.calls).toBe(2);
    expect(m.stats()).toMatchObject({ 'llm.calls': 0, 'llm.failures': 2, 'tier.long-term': 5 });
    expect(m.notes().join('\n')).toContain('first: memory LLM call aborted');
    await m.close();
  });

  const config = { workingCapacity: 3, summaryBatch: 2, summaryTopK: 1 };

  it('summarises every batch of turns leaving the working tier, with their session dates', async () => {
    const llm = new FakeMemoryLlm(['Ann glazed a zebra vase.', 'Bob walked a giraffe.']);
    const m = await filled('tiers', config, EIGHT_TOPICS, dirs.make(), { llm, seed: 7 });
    // 5 of 8 turns leave a working tier of 3: two batches of 2, one turn still waiting.
    expect(llm.sent).toHaveLength(2);
    expect(llm.turnsOf(1)).toEqual([
      '[2023-05-08T13:56:00] Ann: I finished a blue pottery bowl in my ceramics class.',
      '[2023-05-08T13:56:00] Bob: I adopted a puppy from the shelter.',
    ]);
    expect(llm.sent[0]?.[0]?.content).toContain('Ann and Bob');
    expect(llm.seeds).toEqual([7, 7]);
    expect(m.stats()).toMatchObject({
      'llm.calls': 2,
      'llm.failures': 0,
      'llm.promptTokens': 20,
      'llm.completionTokens': 8,
      'summary.notes': 2,
      // The verbatim turns migrate as before.
      'tier.working': 3,
      'tier.long-term': 5,
    });
    expect(m.notes().join('\n')).toContain('tiers: summaries on (fake-memory)');
    await m.close();
  });

  it('retrieves the best summary in place of the last turn, dated and with no dia_id', async () => {
    const llm = new FakeMemoryLlm(['Ann glazed a zebra vase.', 'Bob walked a giraffe.']);
    const m = await filled('tiers', config, EIGHT_TOPICS, dirs.make(), { llm });
    const hits = await m.retrieve('What did Bob do with the giraffe?', 3);
    expect(hits).toHaveLength(3);
    const last = hits[2];
    // The giraffe summary was written from D1:3 and D1:4 (session 1).
    expect(last).toMatchObject({
      text: 'Summary: Bob walked a giraffe.',
      diaId: null,
      sessionDateTime: '2023-05-08T13:56:00',
    });
    expect(hits.slice(0, 2).every((h) => h.diaId !== null)).toBe(true);
    await m.close();
  });

  it('keeps going when a call fails: turns kept, the failure counted and named', async () => {
    const llm = new FakeMemoryLlm([], new Set([1]));
    const m = await filled('tiers', config, EIGHT_TOPICS, dirs.make(), { llm });
    expect(m.stats()).toMatchObject({
      'llm.calls': 1,
      'llm.failures': 1,
      'summary.notes': 1,
      'tier.long-term': 5,
    });
    expect(m.notes().join('\n')).toContain(
      'tiers: 1 of 2 memory LLM calls failed (their turns were kept without notes); first: fake memory LLM: HTTP 500 on call 1',
    );
    await m.close();
  });

  it('without a memory LLM the stage is off and says so', async () => {
    const m = await filled('tiers', config, EIGHT_TOPICS, dirs.make());
    expect(m.notes().join('\n')).toContain('tiers: summarisation on migration off: no LLM');
    expect(m.stats()['llm.calls']).toBeUndefined();
    expect((await m.retrieve('giraffe', 3)).every((h) => h.diaId !== null)).toBe(true);
    await m.close();
  });
});

describe('memoryos long-term facts with a memory LLM', () => {
  it('reads a hot segment once it has enough unread pages, and only the unread ones', async () => {
    const llm = new FakeMemoryLlm();
    const m = await filled(
      'memoryos',
      // Every page that leaves short-term is hot at once (threshold 0); reads come in pairs.
      { shortTermCapacity: 2, longTermHeatThreshold: 0, longTermMinPages: 2, segmentThreshold: -1 },
      EIGHT_TOPICS,
      dirs.make(),
      { llm },
    );
    // segmentThreshold -1: every page joins the first segment; 6 pages leave short-term.
    expect(llm.sent).toHaveLength(3);
    const read = [1, 2, 3].flatMap((n) => llm.turnsOf(n).map((l) => l.replace(/^\[[^\]]+\] /, '')));
    expect(read).toHaveLength(6);
    expect(new Set(read).size).toBe(6);
    expect(m.stats()).toMatchObject({ 'llm.calls': 3, 'long-term.notes': 3 });
    expect(m.notes().join('\n')).toContain('memoryos: long-term facts on (fake-memory)');
    await m.close();
  });

  it('reads an evicted segment before forgetting it, and retrieves its facts', async () => {
    const llm = new FakeMemoryLlm(['Ann owns a blue pottery bowl from her ceramics class.']);
    const m = await filled(
      'memoryos',
      // Never hot; one segment at most: each new segment evicts the older one, which is read first.
      {
        shortTermCapacity: 2,
        longTermHeatThreshold: 1_000_000,
        midTermCapacity: 1,
        segmentThreshold: 1,
        longTermTopK: 1,
      },
      EIGHT_TOPICS,
      dirs.make(),
      { llm },
    );
    expect(m.stats()['evicted.segments']).toBeGreaterThan(0);
    expect(llm.sent.length).toBe(m.stats()['evicted.segments']);
    expect(llm.turnsOf(1)).toEqual([
      '[2023-05-08T13:56:00] Ann: I finished a blue pottery bowl in my ceramics class.',
    ]);
    const hits = await m.retrieve('What did Ann make in her ceramics class?', 3);
    expect(hits).toHaveLength(3);
    expect(hits[2]).toMatchObject({
      text: 'Fact: Ann owns a blue pottery bowl from her ceramics class.',
      diaId: null,
    });
    await m.close();
  });

  it('without a memory LLM the long-term stage is off and says so', async () => {
    const m = await filled('memoryos', { shortTermCapacity: 2 }, EIGHT_TOPICS, dirs.make());
    expect(m.notes().join('\n')).toContain('memoryos: long-term persona stage off: no LLM');
    await m.close();
  });
});
