import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { Sample } from '../../../../src-shared/dataset';
import { loadDatasetText } from '../../dataset/load';
import { packetsOf } from '../../dataset/packets';
import { createMemoryService } from '../registry';
import { tempDirs } from './fixtures';
import { chunkDocument, estimateTokenSplit, mem0HistoryLine } from './mem0-rag';
import './index';

const dirs = tempDirs('mem0-rag');
afterAll(() => dirs.cleanup());

const RAG = new URL('../../../../tests/fixtures/locomo/rag.json', import.meta.url);
const sample: Sample = loadDatasetText(readFileSync(RAG, 'utf8'), 'rag.json').samples[0] as Sample;

const history = sample.sessions
  .flatMap((s) => s.turns.map((t) => mem0HistoryLine(s.dateTimeText ?? '', t.speaker, t.rawText)))
  .join('');

describe('mem0-rag-chunks', () => {
  it('splits text into tokens that join back to it', () => {
    expect(estimateTokenSplit(history).join('')).toBe(history);
    expect(estimateTokenSplit('1:56 pm | Ann: Hi!\n')).toEqual([
      '1',
      ':',
      '56',
      ' pm',
      ' |',
      ' Ann',
      ':',
      ' Hi',
      '!',
      '\n',
    ]);
  });

  it.each([7, 16, 500])(
    'stream insertion ends with the chunks of the whole history (chunk size %i)',
    async (chunkSize) => {
      const memory = await createMemoryService(
        'mem0-rag-chunks',
        { chunkSize },
        {
          sample,
          dir: dirs.make(),
        },
      );
      for (const packet of packetsOf(sample)) await memory.insert(packet);
      const expected = chunkDocument(history, chunkSize, estimateTokenSplit);
      expect(memory.stats()['items']).toBe(expected.length);
      const hits = await memory.retrieve('Where did Ann move?', 1000);
      const byIndex = [...hits].sort((a, b) => Number(a.id.slice(1)) - Number(b.id.slice(1)));
      expect(byIndex.map((h) => h.text)).toEqual(expected);
      // Best first, and each chunk credited to the turns it overlaps.
      for (let i = 1; i < hits.length; i++)
        expect(hits[i - 1]?.score ?? 0).toBeGreaterThanOrEqual(hits[i]?.score ?? 0);
      // Each chunk is credited to exactly the turns whose line it overlaps.
      const lines: Array<{ id: string; start: number; end: number }> = [];
      let at = 0;
      for (const s of sample.sessions)
        for (const t of s.turns) {
          const length = mem0HistoryLine(s.dateTimeText ?? '', t.speaker, t.rawText).length;
          lines.push({ id: t.diaId, start: at, end: at + length });
          at += length;
        }
      let start = 0;
      for (const h of byIndex) {
        const end = start + h.text.length;
        const overlapping = lines.filter((l) => l.start < end && l.end > start).map((l) => l.id);
        expect(h.source?.kind).toBe('chunk');
        expect(h.source?.contextIds).toEqual(overlapping);
        start = end;
      }
      await memory.close();
    },
  );

  it('retrieves the most similar chunk first (argmax for k = 1)', async () => {
    const memory = await createMemoryService(
      'mem0-rag-chunks',
      { chunkSize: 12 },
      {
        sample,
        dir: dirs.make(),
      },
    );
    for (const packet of packetsOf(sample)) await memory.insert(packet);
    const [best] = await memory.retrieve("What is the name of Bob's second dog?", 1);
    // The only chunk that names Max.
    expect(best?.text).toContain('Max');
    expect(best?.source?.contextIds).toContain('D2:3');
    await memory.close();
  });
});
