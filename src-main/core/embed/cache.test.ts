import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CachedEmbedder, EMBEDDING_CACHE_FILE, EmbeddingCache } from './cache';
import type { Embedder } from './types';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'workbench-embed-cache-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const space = { endpoint: 'http://127.0.0.1:9/v1', model: 'm', dimensions: 0 };

/** Embeds by text length, and remembers what it was asked. */
class CountingEmbedder implements Embedder {
  readonly name = 'counting';
  readonly dim = 2;
  readonly asked: string[][] = [];
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.asked.push([...texts]);
    return texts.map((t) => new Float32Array([t.length, 1]));
  }
}

describe('EmbeddingCache', () => {
  it('keeps vectors across reopening, apart per endpoint, model and dimensions', () => {
    const cache = EmbeddingCache.open(dir);
    cache.putMany(space, [{ text: 'hello', vector: new Float32Array([0.6, 0.8]) }]);
    cache.close();
    const again = EmbeddingCache.open(dir);
    expect(again.getMany(space, ['hello', 'other'])).toEqual([
      new Float32Array([0.6, 0.8]),
      undefined,
    ]);
    for (const other of [
      { ...space, endpoint: 'http://127.0.0.1:10/v1' },
      { ...space, model: 'm2' },
      { ...space, dimensions: 256 },
    ]) {
      expect(again.getMany(other, ['hello'])).toEqual([undefined]);
    }
    again.close();
  });

  it('refuses a file that is not a database, naming it', () => {
    writeFileSync(join(dir, EMBEDDING_CACHE_FILE), 'not sqlite at all, just text '.repeat(100));
    expect(() => EmbeddingCache.open(dir)).toThrow(
      `embedding cache: cannot open ${join(dir, EMBEDDING_CACHE_FILE)}`,
    );
  });

  it('takes writes from two worker threads at once without losing or failing any', async () => {
    // Each worker writes 400 texts; 200 of them overlap, written by both at about the same time.
    const tsx = createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs');
    const entry = fileURLToPath(
      new URL('../../../tests/fixtures/embed/cache-writer.ts', import.meta.url),
    );
    const bootstrap = `import(${JSON.stringify(pathToFileURL(tsx).href)})
      .then((t) => { t.register(); return import(${JSON.stringify(pathToFileURL(entry).href)}); })`;
    const run = (offset: number) =>
      new Promise<void>((resolve, reject) => {
        const worker = new Worker(bootstrap, {
          eval: true,
          workerData: { dir, count: 400, offset },
        });
        worker.once('message', () => resolve());
        worker.once('error', reject);
        worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
      });
    EmbeddingCache.open(dir).close(); // both workers find the schema in place
    await Promise.all([run(0), run(200)]);
    const cache = EmbeddingCache.open(dir);
    const writerSpace = { endpoint: 'http://127.0.0.1:1/v1', model: 'm', dimensions: 0 };
    expect(cache.count(writerSpace)).toBe(600);
    const texts = Array.from({ length: 600 }, (_, i) => `text ${i}`);
    expect(cache.getMany(writerSpace, texts).map((v) => v?.[0])).toEqual(texts.map((_, i) => i));
    cache.close();
  });
});

describe('CachedEmbedder', () => {
  it('asks the inner embedder only for texts the cache lacks, each once', async () => {
    const inner = new CountingEmbedder();
    const cache = EmbeddingCache.open(dir);
    const first = new CachedEmbedder(inner, cache, space);
    const out = await first.embed(['a', 'bb', 'a']);
    expect(out.map((v) => v[0])).toEqual([1, 2, 1]);
    expect(inner.asked).toEqual([['a', 'bb']]);
    expect(first.stats).toEqual({ hits: 0, misses: 2 });

    // A new embedder (the next run) over the same file: all hits, the inner one is not asked.
    const second = new CachedEmbedder(inner, cache, space);
    expect((await second.embed(['bb', 'a', 'ccc'])).map((v) => v[0])).toEqual([2, 1, 3]);
    expect(inner.asked).toEqual([['a', 'bb'], ['ccc']]);
    expect(second.stats).toEqual({ hits: 2, misses: 1 });
    expect(second.dim).toBe(2);
    cache.close();
  });

  it('embeds without the cache, warning once, when the cache fails', async () => {
    const inner = new CountingEmbedder();
    const cache = EmbeddingCache.open(dir);
    const warnings: string[] = [];
    const embedder = new CachedEmbedder(inner, cache, space, (m) => warnings.push(m));
    cache.close();
    expect((await embedder.embed(['a'])).map((v) => v[0])).toEqual([1]);
    expect((await embedder.embed(['a'])).map((v) => v[0])).toEqual([1]);
    expect(inner.asked).toEqual([['a'], ['a']]);
    expect(warnings).toEqual([
      `embedding cache ${cache.file}: the cache is closed; embedding without it`,
    ]);
  });
});
