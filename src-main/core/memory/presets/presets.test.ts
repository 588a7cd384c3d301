import { afterAll, describe, expect, it } from 'vitest';
import type { Sample } from '../../../../src-shared/dataset';
import { PARIS_SESSION, sample, session, tempDirs } from './fixtures';
import { packetsOf } from '../../dataset/packets';
import { createMemoryService } from '../registry';
import type { MemoryService } from '../types';
import { startFakeOpenAIServer } from '../../../../tests/support/fake-openai-server';
import './index';

/**
 * The turn presets on a curated conversation with real SQLite, hnswlib and wink vectors. Each
 * ranking case says why the expected turn must come first.
 */
const dirs = tempDirs('presets');
afterAll(() => dirs.cleanup());
const freshDir = (): string => dirs.make();

const SAMPLE: Sample = sample([
  PARIS_SESSION,
  session(2, '2023-06-01T09:00:00', [
    ['Ann', 'I love hiking in the mountains on weekends.'],
    ['Bob', 'I love hiking in the mountains on weekends too.'],
    ['Ann', 'My manager gave me a promotion at work today.'],
    ['Bob', 'The stock market report was boring.'],
  ]),
]);

async function filled(
  preset: string,
  config: unknown = {},
  dir = freshDir(),
): Promise<MemoryService> {
  const service = await createMemoryService(preset, config, { sample: SAMPLE, dir });
  for (const packet of packetsOf(SAMPLE)) await service.insert(packet);
  return service;
}

async function top(service: MemoryService, question: string, k = 3): Promise<string[]> {
  return (await service.retrieve(question, k)).map((h) => h.diaId ?? h.id);
}

describe.each(['vector', 'text', 'hybrid'])('memory preset %s', (preset) => {
  it('stores one item per turn and returns hits with the turn, speaker and session date', async () => {
    const service = await filled(preset);
    expect(service.preset).toBe(preset);
    expect(service.stats()['items']).toBe(10);
    // Ranking is tested below; here every turn is retrieved and one is checked field by field.
    const hits = await service.retrieve('Where did Ann move to for her new job?', 10);
    expect(hits).toHaveLength(10);
    expect(hits.find((h) => h.id === 'D1:1')).toMatchObject({
      id: 'D1:1',
      diaId: 'D1:1',
      speaker: 'Ann',
      text: 'Ann: Guess what, I moved to Paris last month for the new job.',
      sessionDateTime: '2023-05-08T13:56:00',
    });
    expect(service.notes()[0]).toContain(preset);
    await service.close();
  });

  it('reopens its collection with the same answers', async () => {
    const dir = freshDir();
    const first = await filled(preset, {}, dir);
    const before = await first.retrieve('Which pet did Bob adopt from the shelter?', 5);
    await first.close();
    const again = await createMemoryService(preset, {}, { sample: SAMPLE, dir });
    expect(await again.retrieve('Which pet did Bob adopt from the shelter?', 5)).toEqual(before);
    expect(again.stats()['items']).toBe(10);
    await again.close();
  });
});

describe('turn retrieval ranking', () => {
  it('text: stems match inflections ("move" finds "moved") and question words are ignored', async () => {
    const service = await filled('text');
    // "moved"/"move" share the Porter stem; "did"/"what"/"where" are dropped, so no other turn
    // shares a term except through the speaker name, which every Ann turn has equally.
    expect((await top(service, 'Where did Ann move?'))[0]).toBe('D1:1');
    await service.close();
  });

  it('vector: finds a turn by meaning when no word is shared', async () => {
    const service = await filled('vector', { previousTurnScore: 0, nextTurnScore: 0 });
    // "dog" appears in no turn; "puppy" is its nearest neighbour in the word vectors, and no other
    // turn is about animals.
    expect((await top(service, 'dog'))[0]).toBe('D1:6');
    await service.close();
  });

  it('hybrid: the answer turn comes with the question it answers (neighbour context)', async () => {
    const service = await filled('hybrid');
    // D1:5 ("Yes! Last Saturday ... a blue bowl") shares no content word with the question; the
    // turn before it (Bob asking about the pottery class) does. Neighbour scoring (and the
    // previous-turn mix in its vector) lifts D1:5 right behind that turn; without them, turns
    // that merely share "Ann" or "go" outrank it.
    const question = 'When did Ann go to the pottery class?';
    expect((await top(service, question)).slice(0, 2)).toEqual(['D1:4', 'D1:5']);
    await service.close();

    const without = await filled('hybrid', {
      previousTurnScore: 0,
      nextTurnScore: 0,
      previousTurnVector: 0,
    });
    expect((await top(without, question)).slice(0, 2)).not.toContain('D1:5');
    await without.close();
  });

  it('hybrid: a question naming a speaker prefers that speaker among equal turns', async () => {
    const service = await filled('hybrid', { previousTurnScore: 0, nextTurnScore: 0 });
    // D2:1 and D2:2 say the same thing; only the speaker differs, and the question names Bob.
    expect((await top(service, 'Does Bob love hiking in the mountains?'))[0]).toBe('D2:2');
    expect((await top(service, 'Does Ann love hiking in the mountains?'))[0]).toBe('D2:1');
    await service.close();
  });

  it('returns nothing before the first insert and at most k hits', async () => {
    const service = await createMemoryService('hybrid', {}, { sample: SAMPLE, dir: freshDir() });
    expect(await service.retrieve('anything', 5)).toEqual([]);
    for (const packet of packetsOf(SAMPLE)) await service.insert(packet);
    expect(await service.retrieve('hiking', 4)).toHaveLength(4);
    await service.close();
  });

  it('names its embedder for the run manifest, and none when it has no vector index', async () => {
    const names: Record<string, string | null> = {};
    for (const preset of ['hybrid', 'vector', 'text', 'stm', 'graph']) {
      const service = await createMemoryService(preset, {}, { sample: SAMPLE, dir: freshDir() });
      names[preset] = service.embedderName;
      await service.close();
    }
    expect(names).toEqual({
      hybrid: 'wink-sif-100d',
      vector: 'wink-sif-100d',
      text: null,
      stm: 'wink-sif-100d',
      graph: 'wink-sif-100d',
    });
  });
});

describe('preset config validation', () => {
  const ctx = () => ({ sample: SAMPLE, dir: freshDir() });

  it('names the bad field', async () => {
    await expect(createMemoryService('hybrid', { vectorWeight: -1 }, ctx())).rejects.toThrow(
      /^memory preset "hybrid" config: vectorWeight: Too small/,
    );
    await expect(createMemoryService('text', { k1: 'high' }, ctx())).rejects.toThrow(
      /^memory preset "text" config: k1: Invalid input: expected number, received string/,
    );
    await expect(createMemoryService('vector', { candidates: 0 }, ctx())).rejects.toThrow(
      /^memory preset "vector" config: candidates: Too small/,
    );
  });

  it('refuses unknown fields (a typo must not silently fall back to a default)', async () => {
    await expect(createMemoryService('hybrid', { vectorWieght: 1 }, ctx())).rejects.toThrow(
      /memory preset "hybrid" config: .*vectorWieght/,
    );
    // BM25 settings do not exist on the vector preset.
    await expect(createMemoryService('vector', { k1: 1 }, ctx())).rejects.toThrow(/"k1"/);
  });

  it('accepts an empty or missing config (every field has a default)', async () => {
    for (const config of [{}, undefined]) {
      const service = await createMemoryService('hybrid', config, ctx());
      try {
        // A service built on the defaults opens and answers a search of its empty memory.
        expect(service.preset).toBe('hybrid');
        expect(await service.retrieve('where?', 3, { questionDate: null })).toEqual([]);
      } finally {
        await service.close();
      }
    }
  });
});

describe('turn presets with an OpenAI-compatible embedder', () => {
  it('stop a hung embedding request at the insert deadline instead of waiting it out', async () => {
    const server = await startFakeOpenAIServer({ dim: 8 });
    try {
      const embedder = { kind: 'openai', baseUrl: server.url, model: 'e' };
      const service = await createMemoryService(
        'vector',
        { embedder },
        { sample: SAMPLE, dir: freshDir() },
      );
      server.setFault({ kind: 'hang' }, { times: Infinity });
      const [packet] = packetsOf(SAMPLE);
      const started = Date.now();
      // The embedder's own per-attempt timeout is 30 s; the pipeline's deadline comes first.
      await expect(service.insert(packet!, AbortSignal.timeout(200))).rejects.toMatchObject({
        code: 'CANCELLED',
      });
      expect(Date.now() - started).toBeLessThan(5_000);
      await service.close();
    } finally {
      await server.close();
    }
  });
});
