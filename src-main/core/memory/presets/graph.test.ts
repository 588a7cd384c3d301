import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryService } from '../registry';
import { filled, ids, sample, session, tempDirs } from './fixtures';
import './index';

const dirs = tempDirs('graph');
afterAll(() => dirs.cleanup());

// D1:4 answers D1:3 ("Lisbon") but shares no word with a question about the ceramics workshop;
// three other turns mention a workshop, so text and vector search rank them above it.
const SAMPLE = sample([
  session(1, '2023-05-08T13:56:00', [
    ['Ann', 'The coding workshop at the office was boring.'],
    ['Bob', 'I fixed the leaky kitchen sink today.'],
    ['Ann', 'Where was the ceramics workshop you went to?'],
    ['Bob', 'Lisbon, right by the river.'],
    ['Ann', 'The writing workshop taught me a lot.'],
    ['Bob', 'My cat knocked over a plant.'],
  ]),
  session(2, '2023-06-01T09:00:00', [
    ['Ann', 'I started a new workshop on painting.'],
    ['Bob', 'Painting sounds relaxing.'],
  ]),
]);

const QUESTION = 'Where was the ceramics workshop?';

describe('memory preset graph', () => {
  it('links each turn to the previous turn of its session and to similar earlier turns', async () => {
    const g = await filled('graph', {}, SAMPLE, dirs.make());
    // 5 sequence edges in session 1, 1 in session 2; no edge crosses sessions.
    expect(g.stats()).toMatchObject({ items: 8, nodes: 8, 'edges.sequence': 6 });
    expect(g.stats()['edges.similarity']).toBeGreaterThan(0);
    const none = await filled('graph', { neighbours: 0, sequenceWeight: 0 }, SAMPLE, dirs.make());
    expect(none.stats()).toMatchObject({ 'edges.sequence': 0, 'edges.similarity': 0 });
    await g.close();
    await none.close();
  });

  it('finds the neighbour turn that lexical and vector search alone miss', async () => {
    const config = { sequenceWeight: 0.9, decay: 1 };
    const direct = await filled('graph', { ...config, depth: 0 }, SAMPLE, dirs.make());
    const expanded = await filled('graph', { ...config, depth: 1 }, SAMPLE, dirs.make());
    // Without expansion the top 3 are workshop turns; the answer is not among them.
    const plain = await ids(direct, QUESTION, 3);
    expect(plain[0]).toBe('D1:3');
    expect(plain).not.toContain('D1:4');
    // D1:3 is the best seed; D1:4 is one hop away (weight 0.9) and inherits 0.9 of its score.
    // (So does D1:2, the turn before D1:3: the links are undirected.)
    const spread = await ids(expanded, QUESTION, 3);
    expect(spread[0]).toBe('D1:3');
    expect(spread).toContain('D1:4');
    await direct.close();
    await expanded.close();
  });

  it('gives the same answers for the same input (determinism)', async () => {
    const a = await filled('graph', { depth: 2 }, SAMPLE, dirs.make());
    const b = await filled('graph', { depth: 2 }, SAMPLE, dirs.make());
    for (const q of [QUESTION, 'What did Bob fix?', 'painting']) {
      expect(await a.retrieve(q, 5)).toEqual(await b.retrieve(q, 5));
    }
    expect(a.stats()).toEqual(b.stats());
    await a.close();
    await b.close();
  });

  it('rejects a bad config naming the field', async () => {
    await expect(
      createMemoryService('graph', { depth: 9 }, { sample: SAMPLE, dir: dirs.make() }),
    ).rejects.toThrow(/memory preset "graph" config: depth:/);
  });
});
