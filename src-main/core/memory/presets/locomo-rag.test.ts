import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { Sample } from '../../../../src-shared/dataset';
import { loadDatasetText } from '../../dataset/load';
import { packetsOf } from '../../dataset/packets';
import { dot } from '../../embed';
import { sharedWinkEmbedder } from '../retrieval/embedder';
import { createMemoryService } from '../registry';
import { filled, tempDirs } from './fixtures';
import { expandContextId, ragDatabase } from './locomo-rag';
import './index';

const dirs = tempDirs('locomo-rag');
afterAll(() => dirs.cleanup());

const RAG = new URL('../../../../tests/fixtures/locomo/rag.json', import.meta.url);
const sample: Sample = loadDatasetText(readFileSync(RAG, 'utf8'), 'rag.json').samples[0] as Sample;

describe('LoCoMo RAG presets', () => {
  it('expands context ids as get_rag_context does', () => {
    expect(expandContextId('D1:3')).toEqual(['D1:3']);
    expect(expandContextId('D2:2, D2:1')).toEqual(['D2:2', 'D2:1']);
    expect(expandContextId(['D2:2', 'D1:1'])).toEqual(['D2:2', 'D1:1']);
    expect(expandContextId(7)).toEqual([]);
  });

  it('retrieves the k entries with the largest dot product, exhaustively (np.argsort order)', async () => {
    const embedder = await sharedWinkEmbedder();
    for (const db of ['dialog', 'observation', 'summary'] as const) {
      const service = await filled(`locomo-rag-${db}`, {}, sample, dirs.make());
      const entries = ragDatabase(sample, db);
      const vectors = await embedder.embed(entries.map((e) => e.text));
      for (const qa of sample.qa) {
        const q = (await embedder.embed([qa.question]))[0] as Float32Array;
        const expected = entries
          .map((e, i) => ({ id: e.id, score: dot(q, vectors[i] as Float32Array) }))
          .sort((a, b) => b.score - a.score)
          .slice(0, 3);
        const hits = await service.retrieve(qa.question, 3);
        expect(
          hits.map((h) => h.id),
          `${db}: ${qa.question}`,
        ).toEqual(expected.map((e) => e.id));
        hits.forEach((h, i) => expect(h.score).toBeCloseTo(expected[i]?.score ?? NaN, 5));
      }
      await service.close();
    }
  });

  it('stream mode: an observation enters once the turns it cites are in, a summary at its session end', async () => {
    const observations = await createMemoryService(
      'locomo-rag-observation',
      {},
      {
        sample,
        dir: dirs.make(),
      },
    );
    const summaries = await createMemoryService(
      'locomo-rag-summary',
      {},
      {
        sample,
        dir: dirs.make(),
      },
    );
    const seen: Array<{ packet: number; observations: number; summaries: number }> = [];
    for (const packet of packetsOf(sample)) {
      await observations.insert(packet);
      await summaries.insert(packet);
      seen.push({
        packet: packet.packet_idx,
        observations: observations.stats()['items'] ?? -1,
        summaries: summaries.stats()['items'] ?? -1,
      });
    }
    // Packets: [D1:1 D1:2] [D1:3 D1:4] [D2:1 D2:2] [D2:3]. "D2:2, D2:1" enters with packet 2.
    expect(seen).toEqual([
      { packet: 0, observations: 2, summaries: 0 },
      { packet: 1, observations: 4, summaries: 1 },
      { packet: 2, observations: 5, summaries: 1 },
      { packet: 3, observations: 6, summaries: 2 },
    ]);
    const [hit] = await observations.retrieve('What does Ann paint on Sundays?', 1);
    expect(hit?.source).toEqual({
      kind: 'observation',
      contextIds: ['D2:2', 'D2:1'],
      dateTimeText: '10:04 am on 27 June, 2023',
    });
    expect(hit?.diaId).toBeNull();
    await observations.close();
    await summaries.close();
  });

  it('dialog entries are the clean text without the image caption, as the reference embeds them', () => {
    const [, second] = ragDatabase(sample, 'dialog');
    expect(second?.text).toBe('Bob said, "Nice! Look at my new dog."');
    expect(sample.sessions[0]?.turns[1]?.text).toContain('brown dog');
  });
});
