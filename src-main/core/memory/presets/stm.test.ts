import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryService } from '../registry';
import { filled, ids, sample, session, tempDirs } from './fixtures';
import './index';

const dirs = tempDirs('stm');
afterAll(() => dirs.cleanup());

// Six turns; with a window of 4, D1:1 and D1:2 leave it.
const SAMPLE = sample([
  session(1, '2023-05-08T13:56:00', [
    ['Ann', 'I finished a blue pottery bowl in my ceramics class.'],
    ['Bob', 'Nice, I adopted a puppy from the shelter.'],
    ['Ann', 'My manager gave me a promotion at work.'],
    ['Bob', 'I went hiking in the mountains last weekend.'],
  ]),
  session(2, '2023-06-01T09:00:00', [
    ['Ann', 'I started reading a novel about dragons.'],
    ['Bob', 'The stock market report was boring.'],
  ]),
]);

describe('memory preset stm', () => {
  it('keeps the last N turns; evicted turns are out of retrieval', async () => {
    const stm = await filled('stm', { capacity: 4 }, SAMPLE, dirs.make());
    expect(stm.stats()).toMatchObject({ window: 4, evicted: 2, items: 6 });
    // Asking for more than the window returns the whole window and nothing else.
    const all = await ids(stm, 'anything at all', 10);
    expect([...all].sort()).toEqual(['D1:3', 'D1:4', 'D2:1', 'D2:2']);
    // D1:1 is the only turn about pottery, but it has left the window.
    expect(await ids(stm, 'What did Ann make in her pottery class?', 10)).not.toContain('D1:1');
    await stm.close();
  });

  it('ranks the window by similarity, then the rest most recent first', async () => {
    const stm = await filled('stm', { capacity: 4 }, SAMPLE, dirs.make());
    // Only D1:4 mentions hiking and mountains.
    expect((await ids(stm, 'Where did Bob go hiking?', 1))[0]).toBe('D1:4');
    // With no text weight and no vector weight there is no similarity: newest first.
    const plain = await filled(
      'stm',
      { capacity: 4, textWeight: 0, vectorWeight: 0 },
      SAMPLE,
      dirs.make(),
    );
    expect(await ids(plain, 'Where did Bob go hiking?', 4)).toEqual([
      'D2:2',
      'D2:1',
      'D1:4',
      'D1:3',
    ]);
    await stm.close();
    await plain.close();
  });

  it('gives the same answers for the same input (determinism)', async () => {
    const a = await filled('stm', { capacity: 3 }, SAMPLE, dirs.make());
    const b = await filled('stm', { capacity: 3 }, SAMPLE, dirs.make());
    for (const q of ['Where did Bob go hiking?', 'What is Ann reading?', 'stock market']) {
      expect(await a.retrieve(q, 3)).toEqual(await b.retrieve(q, 3));
    }
    await a.close();
    await b.close();
  });

  it('rejects a bad config naming the field', async () => {
    await expect(
      createMemoryService('stm', { capacity: 0 }, { sample: SAMPLE, dir: dirs.make() }),
    ).rejects.toThrow(/memory preset "stm" config: capacity:/);
    await expect(
      createMemoryService('stm', { windowSize: 5 }, { sample: SAMPLE, dir: dirs.make() }),
    ).rejects.toThrow(/memory preset "stm" config/);
  });
});
