import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeOpenAIServer } from '../../../../tests/support/fake-openai-server';
import type { Sample } from '../../../../src-shared/dataset';
import { CollectionDesignSchema } from '../../../../src-shared/designs';
import { loadDatasetFile } from '../../dataset';
import { packetsOf } from '../../dataset/packets';
import { designFromPreset } from '../../designs/presetDesigns';
import { createMemoryService, memoryPresetNames } from '../registry';
import { filled, tempDirs } from './fixtures';
import './index';

const MINI = fileURLToPath(new URL('../../../../tests/fixtures/locomo/mini.json', import.meta.url));
// The real corpus sits beside the repository on machines that have it; it is not committed.
const LOCOMO10 = fileURLToPath(
  new URL('../../../../../shared/datasets/locomo10.json', import.meta.url),
);

const dirs = tempDirs('designed');
afterAll(() => dirs.cleanup());

async function sampleOf(file: string, id: string): Promise<Sample> {
  const sample = (await loadDatasetFile(file)).samples.find((s) => s.sampleId === id);
  if (!sample) throw new Error(`no ${id} in ${file}`);
  return sample;
}

describe('designed preset', () => {
  it('gives each vector index its own embedder: wink beside an endpoint, cached in cacheDir', async () => {
    const server = await startFakeOpenAIServer({ dim: 12 });
    try {
      const sample = await sampleOf(MINI, 'mini-1');
      const design = CollectionDesignSchema.parse({
        name: 'two embedders',
        indexes: [
          { name: 'wink', type: 'vector' },
          {
            name: 'remote',
            type: 'vector',
            embedder: { kind: 'openai', baseUrl: server.url, model: 'e' },
          },
        ],
      });
      const cacheDir = dirs.make();
      const open = () =>
        createMemoryService('designed', design, { sample, dir: dirs.make(), cacheDir });
      const service = await open();
      for (const packet of packetsOf(sample).slice(0, 2)) await service.insert(packet);
      expect(await service.retrieve('Where did Ann move?', 3)).toHaveLength(3);
      const sent = server.requests.flatMap((r) => (r.body as { input: string[] }).input);
      // The probe, three turns and the question; the wink index never calls the server.
      expect(sent).toEqual([
        'dimension probe',
        'Ann: I moved to Paris.',
        expect.any(String),
        expect.any(String),
        'Where did Ann move?',
      ]);
      expect(service.stats()).toMatchObject({
        'index.wink': 3,
        'index.remote': 3,
        'embed.cacheMisses': 5,
        'embed.requests': 4,
      });
      await service.close();

      // The same turns again, in a new collection: every vector comes from the cache.
      const again = await open();
      for (const packet of packetsOf(sample).slice(0, 2)) await again.insert(packet);
      await again.retrieve('Where did Ann move?', 3);
      expect(server.requests).toHaveLength(4);
      expect(again.stats()).toMatchObject({ 'embed.cacheHits': 5, 'embed.cacheMisses': 0 });
      await again.close();
    } finally {
      await server.close();
    }
  });

  it('is registered and runs a design through createMemoryService', async () => {
    expect(memoryPresetNames()).toContain('designed');
    const sample = await sampleOf(MINI, 'mini-1');
    const design = CollectionDesignSchema.parse({
      name: 'window + text',
      indexes: [
        { name: 'text', type: 'text' },
        { name: 'recent', type: 'fifo', capacity: 2 },
      ],
      fusion: { method: 'weighted', weights: { recent: 0.1 } },
    });
    const service = await createMemoryService('designed', design, { sample, dir: dirs.make() });
    try {
      const packets = packetsOf(sample);
      // The first two packets: session 1 (D1:1, D1:2) and its last turn (D1:3).
      for (const packet of packets.slice(0, 2)) await service.insert(packet);
      expect(service.stats()).toMatchObject({ items: 3, 'index.text': 3, 'index.recent': 2 });
      expect(service.embedderName).toBeNull();
      const hits = await service.retrieve('Where did Ann move?', 2);
      // "move" matches only D1:1 ("I moved to Paris"); the fifo's small weight cannot outvote it.
      expect(hits[0]).toMatchObject({
        id: 'D1:1',
        diaId: 'D1:1',
        speaker: 'Ann',
        text: 'Ann: I moved to Paris.',
        sessionDateTime: '2023-05-08T13:56:00',
      });
      expect(hits).toHaveLength(2);
      expect(service.notes()[0]).toContain('designed "window + text"');
      expect(service.notes()[0]).toContain('fusion weighted weights recent 0.1');
    } finally {
      await service.close();
    }
  });

  it('refuses an invalid design with the field named', async () => {
    const sample = await sampleOf(MINI, 'mini-2');
    await expect(
      createMemoryService(
        'designed',
        { name: 'x', indexes: [{ name: 'f', type: 'fifo', capacity: 0 }] },
        { sample, dir: dirs.make() },
      ),
    ).rejects.toThrow('memory preset "designed" config: indexes[0].capacity: must be >= 1');
  });

  it.each(['vector', 'text', 'hybrid'] as const)(
    'a design prefilled from %s retrieves exactly what the %s preset retrieves',
    async (preset) => {
      // One retrieval engine behind both: same documents, same fusion inputs in the same order,
      // same neighbour re-ranking. Checked on every question of mini-1.
      const sample = await sampleOf(MINI, 'mini-1');
      const a = await filled(preset, {}, sample, dirs.make());
      const b = await filled('designed', designFromPreset(preset), sample, dirs.make());
      try {
        for (const qa of sample.qa) {
          expect(await b.retrieve(qa.question, 5)).toEqual(await a.retrieve(qa.question, 5));
        }
      } finally {
        await a.close();
        await b.close();
      }
    },
  );

  it.skipIf(!existsSync(LOCOMO10))(
    'on conv-26 the hybrid prefill matches the hybrid preset on every question',
    async () => {
      const sample = await sampleOf(LOCOMO10, 'conv-26');
      const a = await filled('hybrid', {}, sample, dirs.make());
      const b = await filled('designed', designFromPreset('hybrid'), sample, dirs.make());
      try {
        for (const qa of sample.qa) {
          const [x, y] = [await a.retrieve(qa.question, 10), await b.retrieve(qa.question, 10)];
          expect(
            y.map((h) => h.id),
            qa.question,
          ).toEqual(x.map((h) => h.id));
        }
      } finally {
        await a.close();
        await b.close();
      }
    },
  );
});
