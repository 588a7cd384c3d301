import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../src-shared/errors';
import { dot, l2norm } from './vectorMath';
import { writeWinkFixture } from './winkFixture';
import { WinkSifEmbedder, zipfPrior } from './winkSif';
import { clearWinkVectorsCache, loadWinkVectors, type WordVectors } from './winkVectors';

let dir: string;
let vectors: WordVectors;

beforeAll(async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'mw-sif-test-'));
  const source = await writeWinkFixture(dir);
  vectors = await loadWinkVectors({ cacheDir: path.join(dir, 'cache'), sourcePath: source });
});

afterAll(async () => {
  clearWinkVectorsCache();
  await fsp.rm(dir, { recursive: true, force: true });
});

async function embedOne(e: WinkSifEmbedder, text: string): Promise<Float32Array> {
  const [v] = await e.embed([text]);
  return v as Float32Array;
}

describe('WinkSifEmbedder', () => {
  it('names itself by dimension and returns one unit vector per text, in order', async () => {
    const e = new WinkSifEmbedder(vectors);
    expect(e.name).toBe('wink-sif-8d');
    expect(e.dim).toBe(8);
    const texts = ['my dog', 'the stock market fell', 'Caroline is painting', 'dog'];
    const out = await e.embed(texts);
    expect(out).toHaveLength(4);
    for (const v of out) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(8);
      expect(l2norm(v)).toBeCloseTo(1, 5);
    }
    expect(out[3]).toEqual(await embedOne(e, 'dog'));
  });

  it('weighs frequent words less (weight falls with rank)', () => {
    const e = new WinkSifEmbedder(vectors);
    const the = e.weightOf('the') as number;
    const of = e.weightOf('of') as number;
    const dog = e.weightOf('dog') as number;
    expect(the).toBeLessThan(of);
    expect(of).toBeLessThan(dog);
    expect(e.weightOf('zebra')).toBeNull();
    // With a = 1e-3 and 31 words, "the" has p ~ 0.2: weight ~ a / p.
    expect(the).toBeLessThan(0.01);
  });

  it('lets content words, not stop words, decide similarity', async () => {
    const e = new WinkSifEmbedder(vectors);
    // "the" appears three times but is the most frequent word: "dog" must dominate.
    const mixed = await embedOne(e, 'the the the dog');
    expect(dot(mixed, await embedOne(e, 'dog'))).toBeGreaterThan(
      dot(mixed, await embedOne(e, 'the')),
    );
  });

  it('puts same-topic sentences closer (fixture topics: animal vs finance)', async () => {
    const e = new WinkSifEmbedder(vectors);
    const [puppy, dog, stock] = await e.embed([
      'I adopted a puppy',
      'we got a new dog',
      'the stock market fell',
    ]);
    expect(dot(puppy!, dog!)).toBeGreaterThan(dot(puppy!, stock!));
  });

  it('is case-insensitive and skips words the vocabulary lacks', async () => {
    const e = new WinkSifEmbedder(vectors);
    expect(await embedOne(e, 'DOG Zyzzyva')).toEqual(await embedOne(e, 'dog'));
  });

  it('gives texts without a known word a deterministic unit fallback, never NaN or zero', async () => {
    const e = new WinkSifEmbedder(vectors);
    const texts = ['zyzzyva 2022', 'zyzzyva 2022', 'Zyzzyva, 2023!', '', '!!!', '42'];
    const out = await e.embed(texts);
    for (const v of out) {
      expect(v.every(Number.isFinite)).toBe(true);
      expect(l2norm(v)).toBeCloseTo(1, 5);
    }
    expect(out[0]).toEqual(out[1]); // same text, same vector
    expect(out[0]).not.toEqual(out[2]); // 2022 vs 2023 differ
    expect(out[3]).toEqual(out[4]); // no raw token at all: one constant vector
    expect((await new WinkSifEmbedder(vectors).embed(['zyzzyva 2022']))[0]).toEqual(out[0]);
  });

  it('fitCorpus lowers the weight of words that are frequent in the collection', () => {
    const e = new WinkSifEmbedder(vectors);
    const before = e.weightOf('dog') as number;
    const stats = e.fitCorpus(['dog dog dog', 'my dog and the cat', 'dog painting']);
    expect(stats).toEqual({ texts: 3, tokens: 10, distinctWords: 6 });
    expect(e.weightOf('dog') as number).toBeLessThan(before);
    expect(e.describe().fitted).toEqual(stats);
    e.resetFit();
    expect(e.weightOf('dog')).toBe(before);
    expect(e.describe().fitted).toBeNull();
  });

  it('removes the common component when asked, after a fit', async () => {
    const corpus = [
      'my dog',
      'the cat',
      'stock market',
      'painting',
      'new puppy',
      'shares fell',
      'caroline',
    ];
    const plain = new WinkSifEmbedder(vectors);
    const pcFree = new WinkSifEmbedder(vectors, { removeFirstPc: true });
    expect(pcFree.describe().pcRemoved).toBe(false); // nothing learned yet
    plain.fitCorpus(corpus);
    pcFree.fitCorpus(corpus);
    expect(pcFree.describe().pcRemoved).toBe(true);
    const meanPairwise = (vs: Float32Array[]): number => {
      let sum = 0;
      let n = 0;
      for (let i = 0; i < vs.length; i++) {
        for (let j = i + 1; j < vs.length; j++) {
          sum += dot(vs[i]!, vs[j]!);
          n++;
        }
      }
      return sum / n;
    };
    const a = await plain.embed(corpus);
    const b = await pcFree.embed(corpus);
    for (const v of b) expect(l2norm(v)).toBeCloseTo(1, 5);
    // The first component is what all sentences share; without it they are less alike.
    expect(meanPairwise(b)).toBeLessThan(meanPairwise(a));
  });

  it('validates options with a message that names the bad value', () => {
    expect(() => new WinkSifEmbedder(vectors, { a: -1 })).toThrow(WorkbenchError);
    expect(() => new WinkSifEmbedder(vectors, { a: -1 })).toThrow(/^WinkSifEmbedder options: a: /);
  });

  it('describes itself for run manifests', () => {
    const d = new WinkSifEmbedder(vectors).describe();
    expect(d).toMatchObject({
      name: 'wink-sif-8d',
      dim: 8,
      a: 1e-3,
      zipfK: 2.7,
      removeFirstPc: false,
      fitted: null,
    });
    expect(d.source.sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('zipfPrior', () => {
  it('is a decreasing probability distribution', () => {
    const p = zipfPrior(1000, 2.7);
    expect(p.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 10);
    for (let i = 1; i < p.length; i++) expect(p[i]!).toBeLessThan(p[i - 1]!);
  });
});
