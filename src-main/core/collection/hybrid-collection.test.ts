import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../src-shared/errors';
import { HybridCollection } from './hybrid-collection';
import { hashEmbedder, makeTempDirs, recordingLogger } from './test-helpers';
import type { HybridCollectionOptions, RetrieveQuery } from './types';

const temp = makeTempDirs();
const opened: HybridCollection[] = [];
afterEach(() => {
  for (const c of opened.splice(0)) c.close();
  temp.cleanup();
});

function open(dir: string, options: HybridCollectionOptions = {}): HybridCollection {
  const c = HybridCollection.open(dir, {
    name: 'conv-26',
    now: () => 1_700_000_000_000,
    ...options,
  });
  opened.push(c);
  return c;
}

function reopen(c: HybridCollection, options: HybridCollectionOptions = {}): HybridCollection {
  c.close();
  opened.splice(opened.indexOf(c), 1);
  return open(c.dir, options);
}

async function expectError(
  promise: Promise<unknown> | (() => unknown),
  code: string,
  message: string,
): Promise<void> {
  let caught: unknown;
  try {
    if (typeof promise === 'function') promise();
    else await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(WorkbenchError);
  expect((caught as WorkbenchError).message).toBe(message);
  expect((caught as WorkbenchError).code).toBe(code);
}

describe('HybridCollection storage', () => {
  it('stores items with generated sequence ids, metadata and creation time', async () => {
    const c = open(temp.make());
    const result = await c.insert([
      { text: 'first' },
      { text: 'second', metadata: { speaker: 'Mel' } },
      'third',
    ]);
    expect(result).toEqual({
      ids: ['item-1', 'item-2', 'item-3'],
      inserted: 3,
      deduplicated: [],
      skipped: [],
      overflow: [],
    });
    expect(c.get(['item-2', 'nope'])).toEqual([
      {
        id: 'item-2',
        text: 'second',
        metadata: { speaker: 'Mel' },
        seq: 2,
        createdAt: 1_700_000_000_000,
      },
      null,
    ]);
    expect(c.count()).toBe(3);
  });

  it('keeps identical text as two items unless dedup is asked for', async () => {
    const c = open(temp.make());
    await c.insert([
      { id: 'a', text: 'same words' },
      { id: 'b', text: 'same words' },
    ]);
    expect(c.count()).toBe(2);
    const dedup = await c.insert(
      [{ text: 'same words' }, { text: 'new words' }, { text: 'new words' }],
      { dedup: true },
    );
    expect(dedup.ids).toEqual(['a', 'item-3', 'item-3']);
    expect(dedup.deduplicated).toEqual(['a', 'item-3']);
    expect(dedup.inserted).toBe(1);
    expect(c.count()).toBe(3);
  });

  it('inserts a batch atomically: one bad item stores nothing', async () => {
    const c = open(temp.make());
    c.createIndex('text', { type: 'text' });
    await expectError(
      c.insert([
        { id: 'a', text: 'one' },
        { id: 'a', text: 'two' },
      ]),
      'CONFLICT',
      "HybridCollection 'conv-26': item id 'a' already exists",
    );
    expect(c.count()).toBe(0);
    expect(c.count('text')).toBe(0);
    expect((await c.insert({ text: 'three' })).ids).toEqual(['item-1']);
    expect(c.checkIntegrity()).toEqual([]);
  });

  it('inserts into none, one or several indexes', async () => {
    const c = open(temp.make());
    c.createIndex('text', { type: 'text' });
    c.createIndex('recent', { type: 'fifo', capacity: 10 });
    await c.insert({ id: 'none', text: 'alpha' }, { indexes: [] });
    await c.insert({ id: 'one', text: 'alpha' }, { indexes: ['text'] });
    await c.insert({ id: 'all', text: 'alpha' });
    expect(c.memberIds('text')).toEqual(['one', 'all']);
    expect(c.memberIds('recent')).toEqual(['all']);
    expect(c.listIndexes().map((i) => [i.name, i.type, i.count])).toEqual([
      ['text', 'text', 2],
      ['recent', 'fifo', 1],
    ]);
  });

  it('removeFromIndex keeps the item; delete removes it from every index', async () => {
    const c = open(temp.make());
    c.createIndex('text', { type: 'text' });
    c.createIndex('vec', { type: 'vector', dim: 2 });
    await c.insert([
      { id: 'a', text: 'red apple', vectors: { vec: [1, 0] } },
      { id: 'b', text: 'green apple', vectors: { vec: [0, 1] } },
    ]);
    expect(c.removeFromIndex('text', ['a', 'a'])).toEqual({ removed: ['a'], notMember: ['a'] });
    expect((await c.retrieve('text', 'apple')).map((h) => h.id)).toEqual(['b']);
    expect(c.get(['a'])[0]?.text).toBe('red apple');
    expect(c.delete(['b', 'zzz'])).toEqual({ deleted: ['b'], missing: ['zzz'] });
    expect(c.count()).toBe(1);
    expect(c.memberIds('vec')).toEqual(['a']);
    expect((await c.retrieve('vec', [0, 1])).map((h) => h.id)).toEqual(['a']);
    expect(c.checkIntegrity()).toEqual([]);
  });

  it('lists and deletes indexes, including the hnsw file', async () => {
    const dir = temp.make();
    const c = open(dir);
    c.createIndex('vec', { type: 'vector', dim: 2, space: 'l2' });
    await c.insert({ text: 'x', vectors: { vec: [1, 2] } });
    c.flush();
    expect(existsSync(join(dir, 'vec.hnsw'))).toBe(true);
    expect(c.listIndexes()[0]?.config).toEqual({
      type: 'vector',
      dim: 2,
      space: 'l2',
      M: 16,
      efConstruction: 100,
      ef: 64,
      initialCapacity: 1024,
      seed: 100,
    });
    c.deleteIndex('vec');
    expect(existsSync(join(dir, 'vec.hnsw'))).toBe(false);
    expect(c.listIndexes()).toEqual([]);
    expect(c.count()).toBe(1);
  });
});

describe('vector index', () => {
  it('scores cosine as similarity, ip as the dot product and l2 as minus the squared distance', async () => {
    const c = open(temp.make());
    c.createIndex('cos', { type: 'vector', dim: 2, space: 'cosine' });
    c.createIndex('ip', { type: 'vector', dim: 2, space: 'ip' });
    c.createIndex('l2', { type: 'vector', dim: 2, space: 'l2' });
    const v = (x: number, y: number) => ({ cos: [x, y], ip: [x, y], l2: [x, y] });
    await c.insert([
      { id: 'east', text: 'e', vectors: v(1, 0) },
      { id: 'north', text: 'n', vectors: v(0, 2) },
      { id: 'diag', text: 'd', vectors: v(3, 3) },
    ]);
    const cos = await c.retrieve('cos', [1, 0]);
    expect(cos.map((h) => h.id)).toEqual(['east', 'diag', 'north']);
    expect(cos.map((h) => h.score)).toEqual([
      expect.closeTo(1, 6),
      expect.closeTo(Math.SQRT1_2, 6),
      expect.closeTo(0, 6),
    ]);
    // ip: dot products with (1, 1): diag 6, north 2, east 1.
    const ip = await c.retrieve('ip', new Float32Array([1, 1]));
    expect(ip.map((h) => [h.id, h.score])).toEqual([
      ['diag', expect.closeTo(6, 5)],
      ['north', expect.closeTo(2, 5)],
      ['east', expect.closeTo(1, 5)],
    ]);
    // l2 from (1, 0): east 0, north 1 + 4 = 5, diag 4 + 9 = 13.
    const l2 = await c.retrieve('l2', [1, 0], { threshold: -6 });
    expect(l2.map((h) => [h.id, h.score])).toEqual([
      ['east', -0],
      ['north', -5],
    ]);
  });

  it('ranks the nearest neighbour first on a small curated set', async () => {
    const c = open(temp.make());
    c.createIndex('vec', { type: 'vector', dim: 3 });
    await c.insert([
      { id: 'dogs', text: 'dogs', vectors: { vec: [0.9, 0.1, 0] } },
      { id: 'cats', text: 'cats', vectors: { vec: [0.7, 0.7, 0] } },
      { id: 'cars', text: 'cars', vectors: { vec: [0, 0.1, 1] } },
    ]);
    // The query points almost along x; 'dogs' is within 6 degrees of it, 'cats' 45, 'cars' ~90.
    const hits = await c.retrieve('vec', [1, 0, 0], { topK: 2, withMetadata: true });
    expect(hits.map((h) => h.id)).toEqual(['dogs', 'cats']);
    expect(hits[0]?.metadata).toEqual({});
  });

  it('embeds texts when no vector is given, and text queries', async () => {
    const embedder = hashEmbedder(8);
    const c = open(temp.make(), { embedder });
    c.createIndex('vec', { type: 'vector', dim: 8 });
    await c.insert([
      { id: 'a', text: 'alpha' },
      { id: 'b', text: 'beta' },
    ]);
    expect(embedder.calls).toBe(1);
    const hits = await c.retrieve('vec', 'beta');
    expect(hits[0]).toEqual({ id: 'b', text: 'beta', score: expect.closeTo(1, 5) });
  });

  it('grows past its initial capacity', async () => {
    const c = open(temp.make());
    c.createIndex('vec', { type: 'vector', dim: 2, initialCapacity: 2 });
    await c.insert(
      Array.from({ length: 9 }, (_, i) => ({
        id: `p${i}`,
        text: `p${i}`,
        vectors: { vec: [1, i + 1] },
      })),
    );
    expect(c.count('vec')).toBe(9);
    expect((await c.retrieve('vec', [1, 9]))[0]?.id).toBe('p8');
  });

  it('accepts inserts after reopening an index that was closed empty', async () => {
    // hnswlib reads an empty index back with capacity 0; growing must not just double it.
    let c = open(temp.make());
    c.createIndex('vec', { type: 'vector', dim: 2, initialCapacity: 2 });
    c = reopen(c);
    await c.insert({ id: 'a', text: 'a', vectors: { vec: [1, 0] } });
    expect((await c.retrieve('vec', [1, 0]))[0]?.id).toBe('a');
  });

  it('re-adding a removed item makes it searchable again', async () => {
    const c = open(temp.make());
    c.createIndex('vec', { type: 'vector', dim: 2 });
    await c.insert({ id: 'a', text: 'a', vectors: { vec: [1, 0] } });
    c.removeFromIndex('vec', ['a']);
    expect(await c.retrieve('vec', [1, 0])).toEqual([]);
    expect(await c.insertToIndex('vec', ['a'], { vectors: [[0, 1]] })).toEqual({
      added: ['a'],
      alreadyMember: [],
      overflow: [],
    });
    expect((await c.retrieve('vec', [0, 1]))[0]?.score).toBeCloseTo(1, 5);
  });

  it('rebuilds a corrupt hnsw file from the stored vectors and warns', async () => {
    const dir = temp.make();
    let c = open(dir);
    c.createIndex('vec', { type: 'vector', dim: 3 });
    await c.insert([
      { id: 'a', text: 'a', vectors: { vec: [1, 0, 0] } },
      { id: 'b', text: 'b', vectors: { vec: [0, 1, 0] } },
      { id: 'c', text: 'c', vectors: { vec: [0, 0, 1] } },
      { id: 'd', text: 'd', vectors: { vec: [1, 1, 0] } },
    ]);
    const before = await c.retrieve('vec', [1, 0.2, 0]);
    c.close();
    opened.splice(0);
    writeFileSync(join(dir, 'vec.hnsw'), 'this is not an hnsw index');
    const logger = recordingLogger();
    c = open(dir, { logger });
    expect(logger.warnings).toEqual([
      "HybridCollection 'conv-26': index 'vec': the index file is corrupt (checksum mismatch); rebuilt 4 vectors from collection.db",
    ]);
    expect(await c.retrieve('vec', [1, 0.2, 0])).toEqual(before);
    // The rebuilt index is written on close, so the next open is quiet.
    c = reopen(c, { logger });
    expect(logger.warnings).toHaveLength(1);
    expect(await c.retrieve('vec', [1, 0.2, 0])).toEqual(before);
  });

  it('rebuilds a missing hnsw file, and one left stale by a process that never closed', async () => {
    const dir = temp.make();
    const c = open(dir);
    c.createIndex('vec', { type: 'vector', dim: 2 });
    await c.insert({ id: 'a', text: 'a', vectors: { vec: [1, 0] } });
    c.close();
    opened.splice(0);
    rmSync(join(dir, 'vec.hnsw'));
    const logger = recordingLogger();
    const second = open(dir, { logger, durability: 'immediate' });
    expect(logger.warnings).toEqual([
      "HybridCollection 'conv-26': index 'vec': the index file is missing; rebuilt 1 vectors from collection.db",
    ]);
    second.flush();
    // `second` writes without closing (a crash); a second connection sees the file lagging.
    await second.insert({ id: 'b', text: 'b', vectors: { vec: [0, 1] } });
    const third = HybridCollection.open(dir, { name: 'conv-26', logger });
    expect(logger.warnings[1]).toBe(
      "HybridCollection 'conv-26': index 'vec': the index file was not written after the last change (not closed cleanly); rebuilt 2 vectors from collection.db",
    );
    expect((await third.retrieve('vec', [0, 1]))[0]?.id).toBe('b');
    third.close();
  });
});

describe('text index', () => {
  async function corpus(): Promise<HybridCollection> {
    const c = open(temp.make());
    c.createIndex('text', { type: 'text' });
    await c.insert([
      { id: 'group', text: 'Caroline went to the LGBTQ support group yesterday' },
      { id: 'sunrise', text: 'Melanie painted a sunrise over the lake' },
      { id: 'talk', text: 'Caroline and Melanie talked about painting and pottery' },
      { id: 'friends', text: 'Support from friends matters to Caroline' },
    ]);
    return c;
  }

  it('ranks by BM25 with OR semantics over the query terms', async () => {
    const c = await corpus();
    const hits = await c.retrieve('text', 'When did Caroline go to the support group?');
    // 'group' is the only document holding caroline, support AND group; 'friends' holds two of
    // the terms, 'talk' only caroline; 'sunrise' holds none and is not returned.
    expect(hits.map((h) => h.id)).toEqual(['group', 'friends', 'talk']);
    expect(hits[0]?.score).toBeGreaterThan(hits[1]?.score ?? Infinity);
  });

  it('matches inflected forms through the stemmer', async () => {
    const c = await corpus();
    // painted / painting / paintings all stem to "paint"; 'sunrise' is shorter, so BM25's length
    // normalisation puts it before 'talk'.
    expect((await c.retrieve('text', 'paintings')).map((h) => h.id)).toEqual(['sunrise', 'talk']);
  });

  it('computes the BM25 score exactly', async () => {
    const c = open(temp.make());
    c.createIndex('raw', { type: 'text', stem: false, stopWords: false });
    await c.insert([
      { id: 'd1', text: 'apple banana' },
      { id: 'd2', text: 'apple' },
      { id: 'd3', text: 'cherry' },
    ]);
    // N = 3, avgdl = 4/3, df(banana) = 1: idf = ln(1 + 2.5 / 1.5);
    // d1: tf 1, |d| 2: idf * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 2 / (4/3))).
    const idf = Math.log(1 + 2.5 / 1.5);
    const expected = (idf * 2.2) / (1 + 1.2 * (0.25 + (0.75 * 2) / (4 / 3)));
    const hits = await c.retrieve('raw', 'banana');
    expect(hits).toEqual([{ id: 'd1', text: 'apple banana', score: expect.closeTo(expected, 10) }]);
  });

  it('prefix mode matches word beginnings', async () => {
    const c = open(temp.make());
    c.createIndex('pre', { type: 'text', prefix: true, stem: false });
    await c.insert([
      { id: 'a', text: 'walking home' },
      { id: 'b', text: 'walk' },
      { id: 'c', text: 'sleeping' },
    ]);
    expect((await c.retrieve('pre', 'walk')).map((h) => h.id).sort()).toEqual(['a', 'b']);
  });

  it('indexes an item under its index text while storing and returning its own text', async () => {
    const c = open(temp.make());
    c.createIndex('text', { type: 'text' });
    c.createIndex('plain', { type: 'text' });
    await c.insert([
      { id: 'q', text: 'Melanie: did you go to the pottery class?' },
      // The answer shares no word with a question about pottery; its index text carries the
      // turn it answers, for 'text' only.
      {
        id: 'a',
        text: 'Caroline: yes, last Friday!',
        indexTexts: {
          text: 'Melanie: did you go to the pottery class? Caroline: yes, last Friday!',
        },
      },
    ]);
    const hits = await c.retrieve('text', 'pottery');
    expect(hits.map((h) => h.id).sort()).toEqual(['a', 'q']);
    expect(hits.find((h) => h.id === 'a')?.text).toBe('Caroline: yes, last Friday!');
    expect(c.get(['a'])[0]?.text).toBe('Caroline: yes, last Friday!');
    // Words only the index text holds match nothing elsewhere: not in 'plain', not by the item.
    expect((await c.retrieve('plain', 'pottery')).map((h) => h.id)).toEqual(['q']);
    expect((await c.retrieve('text', 'friday')).map((h) => h.id)).toEqual(['a']);

    const again = reopen(c);
    expect((await again.retrieve('text', 'pottery')).map((h) => h.id).sort()).toEqual(['a', 'q']);
    expect((await again.retrieve('plain', 'pottery')).map((h) => h.id)).toEqual(['q']);
    expect(again.checkIntegrity()).toEqual([]);
  });

  it('refuses an index text for an index that takes none, or a bad one, storing nothing', async () => {
    const c = open(temp.make());
    c.createIndex('text', { type: 'text' });
    c.createIndex('recent', { type: 'fifo', capacity: 5 });
    await expectError(
      c.insert({ id: 'x', text: 'hello', indexTexts: { recent: 'hello there' } }),
      'INVALID_INPUT',
      "HybridCollection 'conv-26': item 'x': an index text was given for index 'recent', which is a fifo index",
    );
    await expectError(
      c.insert({ id: 'x', text: 'hello', indexTexts: { text: '   ' } }),
      'INVALID_INPUT',
      "HybridCollection 'conv-26': item 'x': indexTexts.text is empty",
    );
    await expectError(
      c.insert({ id: 'x', text: 'hello', indexTexts: { nope: 'hi' } }),
      'NOT_FOUND',
      "HybridCollection 'conv-26': no index named 'nope' (indexes: text, recent)",
    );
    expect(c.count()).toBe(0);
  });
});

describe('fifo index', () => {
  it('evicts the oldest entries and reports them', async () => {
    const c = open(temp.make());
    c.createIndex('recent', { type: 'fifo', capacity: 3 });
    await c.insert(['t1', 't2'].map((t) => ({ id: t, text: t })));
    const result = await c.insert(['t3', 't4', 't5'].map((t) => ({ id: t, text: t })));
    expect(result.overflow).toEqual([
      { index: 'recent', policy: 'evict-oldest', evicted: ['t1', 't2'], rejected: [] },
    ]);
    expect(c.oldest('recent', 10).map((i) => i.id)).toEqual(['t3', 't4', 't5']);
    expect(c.count()).toBe(5);
    expect(
      (await c.retrieve('recent', undefined, { topK: 2 })).map((h) => [h.id, h.score]),
    ).toEqual([
      ['t5', 1],
      ['t4', 0.5],
    ]);
    expect((await c.retrieve('recent', { order: 'oldest' }, { topK: 1 })).map((h) => h.id)).toEqual(
      ['t3'],
    );
  });

  it("with policy 'reject' leaves the newest items out and reports them", async () => {
    const c = open(temp.make());
    c.createIndex('recent', { type: 'fifo', capacity: 2, overflow: 'reject' });
    c.createIndex('text', { type: 'text' });
    const result = await c.insert(['a', 'b', 'c'].map((t) => ({ id: t, text: t })));
    expect(result.overflow).toEqual([
      { index: 'recent', policy: 'reject', evicted: [], rejected: ['c'] },
    ]);
    expect(c.memberIds('recent')).toEqual(['a', 'b']);
    expect(c.memberIds('text')).toEqual(['a', 'b', 'c']);
    const again = await c.insertToIndex('recent', ['c']);
    expect(again).toEqual({
      added: [],
      alreadyMember: [],
      overflow: [{ index: 'recent', policy: 'reject', evicted: [], rejected: ['c'] }],
    });
  });

  it('never evicts an item the same insertToIndex call names (fast-check found this)', async () => {
    const c = open(temp.make());
    c.createIndex('recent', { type: 'fifo', capacity: 4 });
    await c.insert(['a', 'b', 'c', 'd', 'e'].map((t) => ({ id: t, text: t })));
    expect(c.oldest('recent', 4).map((i) => i.id)).toEqual(['b', 'c', 'd', 'e']);
    // 'b' is the oldest member and is named again with a newcomer: 'c' goes, not 'b'.
    await c.insert([{ id: 'f', text: 'f' }], { indexes: [] });
    const result = await c.insertToIndex('recent', ['f', 'b']);
    expect(result).toMatchObject({ added: ['f'], alreadyMember: ['b'] });
    expect(result.overflow).toEqual([
      { index: 'recent', policy: 'evict-oldest', evicted: ['c'], rejected: [] },
    ]);
    expect(c.oldest('recent', 4).map((i) => i.id)).toEqual(['b', 'd', 'e', 'f']);
  });

  it('puts an item re-added with insertToIndex at the newest end', async () => {
    const c = open(temp.make());
    c.createIndex('recent', { type: 'fifo', capacity: 5 });
    await c.insert(['a', 'b', 'c'].map((t) => ({ id: t, text: t })));
    c.removeFromIndex('recent', ['a']);
    await c.insertToIndex('recent', ['a']);
    expect(c.oldest('recent', 5).map((i) => i.id)).toEqual(['b', 'c', 'a']);
  });
});

describe('sorted index', () => {
  it('answers range and top-n queries on a metadata field', async () => {
    const c = open(temp.make());
    c.createIndex('by-time', { type: 'sorted', field: 'time.ts' });
    const r = await c.insert([
      { id: 'a', text: 'a', metadata: { time: { ts: 30 } } },
      { id: 'b', text: 'b', metadata: { time: { ts: 10 } } },
      { id: 'c', text: 'c', metadata: { time: { ts: 20 } } },
      { id: 'none', text: 'no time' },
    ]);
    expect(r.skipped).toEqual([
      { id: 'none', index: 'by-time', reason: "no metadata field 'time.ts'" },
    ]);
    expect(
      (await c.retrieve('by-time', { order: 'desc', top: 2 })).map((h) => [h.id, h.score]),
    ).toEqual([
      ['a', 30],
      ['c', 20],
    ]);
    expect(
      (await c.retrieve('by-time', { order: 'asc', min: 15, max: 30 })).map((h) => [h.id, h.score]),
    ).toEqual([
      ['c', -20],
      ['a', -30],
    ]);
  });

  it('sorts string fields and scores them by rank', async () => {
    const c = open(temp.make());
    c.createIndex('by-name', { type: 'sorted', field: 'name', valueType: 'string' });
    await c.insert(
      ['pear', 'apple', 'fig'].map((n) => ({ id: n, text: n, metadata: { name: n } })),
    );
    expect((await c.retrieve('by-name', { order: 'asc' })).map((h) => [h.id, h.score])).toEqual([
      ['apple', 1],
      ['fig', 0.5],
      ['pear', 1 / 3],
    ]);
  });
});

describe('graph index', () => {
  async function graph(directed: boolean): Promise<HybridCollection> {
    const c = open(temp.make());
    c.createIndex('links', { type: 'graph', directed, decay: 0.5 });
    c.createIndex('text', { type: 'text' });
    // a -> b (0.8) -> c (1) -> d (1); a -> e (0.2)
    await c.insert([
      { id: 'a', text: 'start adoption talk' },
      { id: 'b', text: 'b', edges: [] },
      { id: 'c', text: 'c' },
      { id: 'd', text: 'd' },
      { id: 'e', text: 'e' },
    ]);
    c.addEdges('links', [
      { from: 'a', to: 'b', weight: 0.8 },
      { from: 'b', to: 'c' },
      { from: 'c', to: 'd' },
      { from: 'a', to: 'e', weight: 0.2 },
    ]);
    return c;
  }

  it('scores BFS nodes by edge weights times decay^depth and stops at maxDepth', async () => {
    const c = await graph(true);
    const hits = await c.retrieve('links', { start: ['a'] }, { maxDepth: 2 });
    // a: 1 (start); b: 1*0.8*0.5 = 0.4; e: 1*0.2*0.5 = 0.1; c: 0.4*1*0.5 = 0.2; d is depth 3.
    expect(hits.map((h) => [h.id, h.score, h.depth])).toEqual([
      ['a', 1, 0],
      ['b', 0.4, 1],
      ['c', 0.2, 2],
      ['e', 0.1, 1],
    ]);
  });

  it('follows edges both ways when undirected, within maxNodes', async () => {
    const c = await graph(false);
    expect(
      (await c.retrieve('links', undefined, { startNodes: ['d'], maxDepth: 5 })).map((h) => h.id),
    ).toEqual(['d', 'c', 'b', 'a', 'e']);
    expect(
      (await c.retrieve('links', { start: ['d'] }, { maxDepth: 5, maxNodes: 2 })).map((h) => h.id),
    ).toEqual(['d', 'c']);
    // Directed: nothing leaves d.
    const directed = await graph(true);
    expect((await directed.retrieve('links', { start: ['d'] })).map((h) => h.id)).toEqual(['d']);
  });

  it('takes start nodes from another index', async () => {
    const c = await graph(true);
    const hits = await c.retrieve(
      'links',
      { fromIndex: 'text', query: 'adoption', topK: 1 },
      { maxDepth: 1 },
    );
    expect(hits.map((h) => h.id)).toEqual(['a', 'b', 'e']);
  });

  it('adds edges given at insert time and drops them with the node', async () => {
    const c = open(temp.make());
    c.createIndex('links', { type: 'graph', weighted: false });
    await c.insert([
      { id: 'x', text: 'x' },
      { id: 'y', text: 'y', edges: [{ to: 'x', weight: 7 }] },
    ]);
    expect((await c.retrieve('links', { start: ['x'] })).map((h) => [h.id, h.score])).toEqual([
      ['x', 1],
      ['y', 0.5],
    ]);
    c.removeFromIndex('links', ['y']);
    await c.insertToIndex('links', ['y']);
    expect((await c.retrieve('links', { start: ['x'] })).map((h) => h.id)).toEqual(['x']);
  });
});

describe('retrieveMulti', () => {
  it('fuses per-index hits and reports each contribution', async () => {
    const c = open(temp.make());
    c.createIndex('vec', { type: 'vector', dim: 2 });
    c.createIndex('text', { type: 'text' });
    await c.insert([
      { id: 'p', text: 'pottery class', vectors: { vec: [1, 0] } },
      { id: 'q', text: 'camping trip', vectors: { vec: [0.8, 0.6] } },
      { id: 'r', text: 'pottery and camping', vectors: { vec: [0, 1] } },
    ]);
    const fused = await c.retrieveMulti(
      [
        { index: 'vec', query: [1, 0] },
        { index: 'text', query: 'camping' },
      ],
      { topK: 3, fusion: 'rrf' },
    );
    // vec ranks p, q, r; text ranks q (shorter), r. q: 1/62 + 1/61 beats p: 1/61 and r: 1/63 + 1/62.
    expect(fused.map((h) => h.id)).toEqual(['q', 'r', 'p']);
    expect(fused[0]?.score).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(fused[0]?.contributions.map((x) => [x.index, x.rank])).toEqual([
      ['vec', 2],
      ['text', 1],
    ]);
    const weighted = await c.retrieveMulti(
      [
        { index: 'vec', query: [1, 0], weight: 3 },
        { index: 'text', query: 'camping', weight: 1 },
      ],
      { topK: 1, fusion: 'weighted' },
    );
    // vec normalised: p 1, q 0.8, r 0 -> p 3, q 2.4 + 1 (text top) = 3.4.
    expect(weighted.map((h) => [h.id, h.score])).toEqual([['q', expect.closeTo(3.4, 5)]]);
    const union = await c.retrieveMulti(
      [
        { index: 'vec', query: [1, 0] },
        { index: 'text', query: 'camping' },
      ],
      { fusion: 'union' },
    );
    expect(union.map((h) => h.id)).toEqual(['p', 'q', 'r']);
  });

  it('rankMulti fuses the same way without reading a text', async () => {
    const c = open(temp.make());
    c.createIndex('vec', { type: 'vector', dim: 2 });
    c.createIndex('text', { type: 'text' });
    await c.insert([
      { id: 'p', text: 'pottery class', vectors: { vec: [1, 0] } },
      { id: 'q', text: 'camping trip', vectors: { vec: [0.8, 0.6] } },
      { id: 'r', text: 'pottery and camping', vectors: { vec: [0, 1] } },
    ]);
    const queries = [
      { index: 'vec', query: [1, 0] },
      { index: 'text', query: 'camping', weight: 0.5 },
    ];
    const options = { topK: 2, fusion: 'weighted' as const };
    const full = await c.retrieveMulti(queries, options);
    const ranked = await c.rankMulti(queries, options);
    expect(ranked).toEqual(
      full.map(({ id, score, contributions }) => ({ id, score, contributions })),
    );
    expect(ranked[0]).not.toHaveProperty('text');
    await expect(c.rankMulti([])).rejects.toThrow(/rankMulti needs at least one query/);
  });

  it("a sub-query's own options apply after queries of the same candidate count gave none", async () => {
    const c = open(temp.make());
    c.createIndex('text', { type: 'text' });
    await c.insert([
      { id: 'p', text: 'pottery class' },
      { id: 'q', text: 'pottery pottery pottery' },
      { id: 'r', text: 'camping trip' },
    ]);
    const plain = [{ index: 'text', query: 'pottery camping' }];
    expect((await c.rankMulti(plain, { candidates: 5 })).map((h) => h.id)).toHaveLength(3);
    // The plain sub-options were cached for 5 candidates; these must not be answered from there.
    const own = [{ index: 'text', query: 'pottery camping', options: { topK: 1 } }];
    // One candidate: the camping turn, as the rarer word (one document of three) weighs most.
    expect((await c.rankMulti(own, { candidates: 5 })).map((h) => h.id)).toEqual(['r']);
    expect((await c.rankMulti(plain, { candidates: 5 })).map((h) => h.id)).toHaveLength(3);
  });

  it('rankMulti names the live item after its id was deleted and stored again', async () => {
    const c = open(temp.make());
    c.createIndex('text', { type: 'text' });
    await c.insert([
      { id: 'p', text: 'pottery class' },
      { id: 'q', text: 'camping trip' },
    ]);
    const query = [{ index: 'text', query: 'pottery camping' }];
    expect((await c.rankMulti(query)).map((h) => h.id).sort()).toEqual(['p', 'q']);
    // The ids rankMulti remembered by seq must follow the delete: 'q' comes back as a new item.
    c.delete(['p', 'q']);
    await c.insert([{ id: 'q', text: 'pottery glaze' }]);
    expect((await c.rankMulti(query)).map((h) => h.id)).toEqual(['q']);
    expect(c.get(['q'])[0]?.text).toBe('pottery glaze');
  });
});

describe('closing and reopening', () => {
  it('gives identical answers for every index type', async () => {
    const dir = temp.make();
    const embedder = hashEmbedder(6);
    let c = open(dir, { embedder });
    c.createIndex('vec', { type: 'vector', dim: 6 });
    c.createIndex('text', { type: 'text' });
    c.createIndex('recent', { type: 'fifo', capacity: 4 });
    c.createIndex('by-n', { type: 'sorted', field: 'n' });
    c.createIndex('links', { type: 'graph' });
    const texts = [
      'we went hiking',
      'she paints sunsets',
      'hiking in the rain',
      'pottery workshop',
      'a dog named Max',
      'camping trip',
    ];
    await c.insert(
      texts.map((text, i) => ({
        id: `t${i}`,
        text,
        metadata: { n: (i * 7) % 5 },
        edges: i > 0 ? [{ to: `t${i - 1}`, weight: 0.5 + i / 10 }] : [],
      })),
    );
    c.removeFromIndex('text', ['t3']);
    c.delete(['t4']);
    const queries: Array<[string, RetrieveQuery]> = [
      ['vec', 'hiking'],
      ['text', 'hiking pottery sunsets'],
      ['recent', undefined],
      ['by-n', { order: 'desc' }],
      ['links', { start: ['t2'] }],
    ];
    const ask = async (col: HybridCollection) => ({
      single: await Promise.all(
        queries.map(([index, query]) => col.retrieve(index, query, { withMetadata: true })),
      ),
      fused: await col.retrieveMulti(
        queries.map(([index, query]) => ({ index, query })),
        { fusion: 'rrf', topK: 5 },
      ),
      indexes: col.listIndexes(),
      oldest: col.oldest('recent', 10),
    });
    const before = await ask(c);
    c = reopen(c, { embedder });
    expect(await ask(c)).toEqual(before);
    expect(c.checkIntegrity()).toEqual([]);
    // New items after reopen continue the sequence.
    expect((await c.insert({ text: 'next' })).ids).toEqual(['item-7']);
  });
});

describe('errors name the collection, the index and the value', () => {
  async function setup(options: HybridCollectionOptions = {}): Promise<HybridCollection> {
    const c = open(temp.make(), options);
    c.createIndex('vec', { type: 'vector', dim: 3 });
    c.createIndex('text', { type: 'text' });
    return c;
  }

  it('unknown and duplicate indexes', async () => {
    const c = await setup();
    await expectError(
      c.retrieve('nope', 'x'),
      'NOT_FOUND',
      "HybridCollection 'conv-26': no index named 'nope' (indexes: vec, text)",
    );
    await expectError(
      () => c.createIndex('vec', { type: 'text' }),
      'CONFLICT',
      "HybridCollection 'conv-26': index 'vec' already exists",
    );
    await expectError(
      () => c.createIndex('../x', { type: 'text' }),
      'INVALID_INPUT',
      `HybridCollection 'conv-26': index name "../x" must be 1-64 characters of A-Z, a-z, 0-9, '_' or '-'`,
    );
    await expectError(
      () => c.createIndex('v2', { type: 'vector', dim: 0 }),
      'INVALID_INPUT',
      "HybridCollection 'conv-26': index 'v2' config: dim: Too small: expected number to be >=1",
    );
  });

  it('wrong dimensions, NaN and zero vectors', async () => {
    const c = await setup();
    await expectError(
      c.insert({ id: 'x', text: 'x', vectors: { vec: [1, 2] } }),
      'INVALID_INPUT',
      "HybridCollection 'conv-26': index 'vec' expects 3 dims, got 2 (item 'x')",
    );
    await expectError(
      c.insert({ id: 'x', text: 'x', vectors: { vec: [1, NaN, 2] } }),
      'INVALID_INPUT',
      "HybridCollection 'conv-26': index 'vec': vector value NaN at position 1 is not a finite number (item 'x')",
    );
    await expectError(
      c.retrieve('vec', [Infinity, 0, 0]),
      'INVALID_INPUT',
      "HybridCollection 'conv-26': index 'vec': vector value Infinity at position 0 is not a finite number (query)",
    );
    await expectError(
      c.insert({ text: 'x', vectors: { vec: [0, 0, 0] } }),
      'INVALID_INPUT',
      "HybridCollection 'conv-26': index 'vec': a zero vector has no direction, so cosine space cannot use it (items[0])",
    );
    expect(c.count()).toBe(0);
  });

  it('missing embedder', async () => {
    const c = await setup();
    await expectError(
      c.insert({ text: 'hello' }),
      'INVALID_INPUT',
      "HybridCollection 'conv-26': index 'vec' needs a vector for items[0] and the collection has no embedder",
    );
    await expectError(
      c.retrieve('vec', 'hello'),
      'INVALID_INPUT',
      "HybridCollection 'conv-26': index 'vec' got a text query and the collection has no embedder; pass a vector",
    );
  });

  it('bad text: empty, over 1 MB, NUL, lone surrogate', async () => {
    const c = await setup();
    const only = { indexes: ['text'] };
    await expectError(
      c.insert({ text: '  ' }, only),
      'INVALID_INPUT',
      "HybridCollection 'conv-26': items[0]: text is empty",
    );
    await expectError(
      c.insert({ text: 'a'.repeat(1_048_577) }, only),
      'INVALID_INPUT',
      "HybridCollection 'conv-26': items[0]: text is 1048577 bytes, over the 1 MB (1048576-byte) limit",
    );
    await expectError(
      c.insert({ text: 'a\u0000b' }, only),
      'INVALID_INPUT',
      "HybridCollection 'conv-26': items[0]: text contains a NUL character (U+0000) at offset 1",
    );
    await expectError(
      c.insert({ id: 'bad', text: 'ok\uD800' }, only),
      'INVALID_INPUT',
      "HybridCollection 'conv-26': item 'bad': text has a lone surrogate U+D800 at offset 2; fix its encoding (e.g. replace it with U+FFFD) before inserting",
    );
    await expectError(
      c.insert({ text: 42 } as never, only),
      'INVALID_INPUT',
      "HybridCollection 'conv-26': items[0]: text must be a string, got 42",
    );
    // Valid astral characters and other controls are fine.
    expect((await c.insert({ text: 'emoji 😀 and a\ttab' }, only)).inserted).toBe(1);
  });

  it('unknown ids, wrong index types and closed collections', async () => {
    const c = await setup();
    await expectError(
      c.insertToIndex('text', ['ghost']),
      'NOT_FOUND',
      "HybridCollection 'conv-26': no item has id 'ghost'",
    );
    await expectError(
      () => c.oldest('text', 1),
      'INVALID_INPUT',
      "HybridCollection 'conv-26': index 'text' is a text index, not a fifo index",
    );
    await expectError(
      c.retrieve('text', 'x', { topK: 0 }),
      'INVALID_INPUT',
      "HybridCollection 'conv-26': retrieve options for index 'text': topK: Too small: expected number to be >=1",
    );
    c.close();
    await expectError(() => c.count(), 'COLLECTION', "HybridCollection 'conv-26' is closed");
  });

  it('sorted field of the wrong type, and a missing field when the index is named', async () => {
    const c = open(temp.make());
    c.createIndex('by-n', { type: 'sorted', field: 'n' });
    await expectError(
      c.insert({ id: 'a', text: 'a', metadata: { n: 'ten' } }),
      'INVALID_INPUT',
      `HybridCollection 'conv-26': item 'a': metadata field 'n' for sorted index 'by-n' must be a finite number, got "ten"`,
    );
    await expectError(
      c.insert({ id: 'a', text: 'a' }, { indexes: ['by-n'] }),
      'INVALID_INPUT',
      "HybridCollection 'conv-26': item 'a' has no metadata field 'n' for sorted index 'by-n'",
    );
  });
});

describe('durability modes', () => {
  it("'batched' commits on close; 'immediate' commits every write", async () => {
    const dir = temp.make();
    const batched = open(dir);
    await batched.insert({ id: 'a', text: 'a' });
    // A second connection cannot see the uncommitted write yet.
    const peek = HybridCollection.open(dir, { name: 'peek', durability: 'immediate' });
    expect(peek.count()).toBe(0);
    peek.close();
    batched.flush();
    const peek2 = HybridCollection.open(dir, { name: 'peek' });
    expect(peek2.count()).toBe(1);
    peek2.close();
  });
});
