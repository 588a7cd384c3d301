import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryService } from '../registry';
import { EIGHT_TOPICS, filled, ids, tempDirs } from './fixtures';
import { resolveTiers, tiersPresetConfigSchema } from './tiers';
import './index';

const dirs = tempDirs('tiers');
afterAll(() => dirs.cleanup());

describe('memory preset tiers', () => {
  it('two-tier: working overflow migrates to long-term', async () => {
    const m = await filled('tiers', { workingCapacity: 3 }, EIGHT_TOPICS, dirs.make());
    expect(m.stats()).toMatchObject({
      'tier.working': 3,
      'tier.long-term': 5,
      'migrated.working->long-term': 5,
      forgotten: 0,
    });
    await m.close();
  });

  it('merges retrieval across tiers', async () => {
    const m = await filled('tiers', { workingCapacity: 3 }, EIGHT_TOPICS, dirs.make());
    // D1:1 migrated to long-term; D2:8 is still in working. Each is the only turn on its topic.
    expect((await ids(m, 'What did Ann make in her pottery class?', 1))[0]).toBe('D1:1');
    expect((await ids(m, 'What did Bob repair in the garage?', 1))[0]).toBe('D2:4');
    const both = await ids(m, 'pottery bowl bicycle garage', 2);
    expect([...both].sort()).toEqual(['D1:1', 'D2:4']);
    await m.close();
  });

  it('a chain migrates tier by tier and forgets past a bounded last tier', async () => {
    const tiers = [
      { name: 'working', capacity: 2 },
      { name: 'episodic', capacity: 2 },
      { name: 'archive', capacity: 2 },
    ];
    const m = await filled('tiers', { tiers }, EIGHT_TOPICS, dirs.make());
    expect(m.stats()).toMatchObject({
      'tier.working': 2,
      'tier.episodic': 2,
      'tier.archive': 2,
      'migrated.working->episodic': 6,
      'migrated.episodic->archive': 4,
      forgotten: 2,
    });
    // D1:1 and D1:2 fell off the end of the chain.
    expect(await ids(m, 'What did Ann make in her pottery class?', 8)).not.toContain('D1:1');
    expect((await ids(m, 'What does Ann think about the stock market?', 1))[0]).toBe('D2:2');
    await m.close();
  });

  it('functional: working overflow goes to the store of the turn speaker', async () => {
    const m = await filled(
      'tiers',
      { tiers: 'functional', workingCapacity: 2 },
      EIGHT_TOPICS,
      dirs.make(),
    );
    expect(m.stats()).toMatchObject({
      'tier.working': 2,
      'tier.speaker-1': 3,
      'tier.speaker-2': 3,
      'migrated.working->speaker-1': 3,
      'migrated.working->speaker-2': 3,
    });
    expect(
      resolveTiers(tiersPresetConfigSchema.parse({ tiers: 'functional' }), ['Ann', 'Bob']),
    ).toMatchObject([
      { name: 'working', speaker: null },
      { name: 'speaker-1', speaker: 'Ann' },
      { name: 'speaker-2', speaker: 'Bob' },
    ]);
    await m.close();
  });

  it('notes that summarisation is off without an LLM', async () => {
    const m = await createMemoryService(
      'tiers',
      { tiers: 'three-tier' },
      { sample: EIGHT_TOPICS, dir: dirs.make() },
    );
    expect(m.notes().join('\n')).toContain('summarisation on migration off: no LLM configured');
    expect(m.notes()[0]).toContain('working(20) -> episodic(200) -> archive(unbounded)');
    await m.close();
  });

  it('gives the same answers for the same input (determinism)', async () => {
    const a = await filled(
      'tiers',
      { tiers: 'three-tier', workingCapacity: 2, episodicCapacity: 3 },
      EIGHT_TOPICS,
      dirs.make(),
    );
    const b = await filled(
      'tiers',
      { tiers: 'three-tier', workingCapacity: 2, episodicCapacity: 3 },
      EIGHT_TOPICS,
      dirs.make(),
    );
    for (const q of ['pottery', 'Who is getting married?', 'hiking mountains']) {
      expect(await a.retrieve(q, 4)).toEqual(await b.retrieve(q, 4));
    }
    expect(a.stats()).toEqual(b.stats());
    await a.close();
    await b.close();
  });

  it('rejects a bad config naming the field', async () => {
    const ctx = () => ({ sample: EIGHT_TOPICS, dir: dirs.make() });
    await expect(
      createMemoryService(
        'tiers',
        {
          tiers: [
            { name: 'a', capacity: null },
            { name: 'b', capacity: 2 },
          ],
        },
        ctx(),
      ),
    ).rejects.toThrow(
      'memory preset "tiers" config: tiers[0].capacity: only the last tier may be unbounded',
    );
    await expect(
      createMemoryService(
        'tiers',
        {
          tiers: [
            { name: 'a', capacity: 1 },
            { name: 'a', capacity: 2 },
          ],
        },
        ctx(),
      ),
    ).rejects.toThrow('tiers[1].name: duplicate tier name "a"');
    await expect(createMemoryService('tiers', { workingCapacity: -1 }, ctx())).rejects.toThrow(
      /config: workingCapacity:/,
    );
  });
});
