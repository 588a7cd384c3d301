import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { HybridCollection } from './hybrid-collection';
import { hashEmbedder, makeTempDirs } from './test-helpers';

/**
 * Random sequences of insert / insertToIndex / removeFromIndex / delete / reopen must keep every
 * index's membership equal to a plain in-memory model, and every in-memory structure (hnsw live
 * labels, text documents, member sets) equal to what SQLite stores.
 */

const INDEXES = ['vec', 'text', 'recent', 'by-n', 'links'] as const;
type IndexName = (typeof INDEXES)[number];
const FIFO_CAPACITY = 4;

type Op =
  | { kind: 'insert'; texts: string[]; targets: IndexName[] | null }
  | { kind: 'insertToIndex'; index: IndexName; picks: number[] }
  | { kind: 'removeFromIndex'; index: IndexName; picks: number[] }
  | { kind: 'delete'; picks: number[] }
  | { kind: 'reopen' };

const word = fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'same');
const indexName = fc.constantFrom(...INDEXES);
const picks = fc.array(fc.nat(40), { minLength: 1, maxLength: 3 });
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('insert' as const),
      texts: fc.array(word, { minLength: 1, maxLength: 3 }),
      targets: fc.option(fc.uniqueArray(indexName, { maxLength: 3 }), { nil: null }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('insertToIndex' as const), index: indexName, picks }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('removeFromIndex' as const),
      index: indexName,
      picks,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), picks }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reopen' as const) }) },
);

class Model {
  items: string[] = [];
  members = new Map<IndexName, string[]>(INDEXES.map((name) => [name, []]));

  add(index: IndexName, id: string): void {
    const list = this.members.get(index) ?? [];
    if (list.includes(id)) return;
    list.push(id);
    // The fifo keeps insertion order and evicts from the front ('evict-oldest').
    if (index === 'recent' && list.length > FIFO_CAPACITY)
      list.splice(0, list.length - FIFO_CAPACITY);
  }

  /**
   * insertToIndex: every named id is a member afterwards if capacity allows; the fifo evicts its
   * oldest entries that the call did not name first (named ones only when they cannot all fit).
   */
  addNamed(index: IndexName, ids: readonly string[]): void {
    const list = this.members.get(index) ?? [];
    for (const id of ids) if (!list.includes(id)) list.push(id);
    if (index !== 'recent' || list.length <= FIFO_CAPACITY) return;
    const named = new Set(ids);
    const victims = new Set(
      [...list.filter((id) => !named.has(id)), ...list.filter((id) => named.has(id))].slice(
        0,
        list.length - FIFO_CAPACITY,
      ),
    );
    this.members.set(
      index,
      list.filter((id) => !victims.has(id)),
    );
  }

  remove(index: IndexName, id: string): void {
    const list = this.members.get(index) ?? [];
    const at = list.indexOf(id);
    if (at >= 0) list.splice(at, 1);
  }
}

const temp = makeTempDirs();
afterAll(() => temp.cleanup());

describe('HybridCollection (property)', () => {
  it('keeps every index consistent with storage under random operations', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 1, maxLength: 25 }),
        fc.boolean(),
        async (ops, immediate) => {
          const dir = temp.make();
          const embedder = hashEmbedder(4);
          const options = {
            name: 'prop',
            embedder,
            durability: immediate ? ('immediate' as const) : ('batched' as const),
          };
          let c = HybridCollection.open(dir, options);
          try {
            c.createIndex('vec', { type: 'vector', dim: 4, initialCapacity: 2 });
            c.createIndex('text', { type: 'text' });
            c.createIndex('recent', { type: 'fifo', capacity: FIFO_CAPACITY });
            c.createIndex('by-n', { type: 'sorted', field: 'n' });
            c.createIndex('links', { type: 'graph' });
            const model = new Model();
            let counter = 0;
            const pick = (ps: number[]) => [
              ...new Set(ps.map((p) => model.items[p % model.items.length] ?? '')),
            ];

            for (const o of ops) {
              switch (o.kind) {
                case 'insert': {
                  const items = o.texts.map((text) => ({
                    text: `${text} ${counter}`,
                    metadata: { n: counter++ % 7 },
                  }));
                  const result = await c.insert(
                    items,
                    o.targets === null ? {} : { indexes: o.targets },
                  );
                  for (const id of result.ids) {
                    model.items.push(id);
                    for (const index of o.targets ?? INDEXES) model.add(index, id);
                  }
                  break;
                }
                case 'insertToIndex': {
                  if (model.items.length === 0) break;
                  const ids = pick(o.picks);
                  await c.insertToIndex(o.index, ids);
                  model.addNamed(o.index, ids);
                  break;
                }
                case 'removeFromIndex': {
                  if (model.items.length === 0) break;
                  const ids = pick(o.picks);
                  c.removeFromIndex(o.index, ids);
                  for (const id of ids) model.remove(o.index, id);
                  break;
                }
                case 'delete': {
                  if (model.items.length === 0) break;
                  const ids = pick(o.picks);
                  c.delete(ids);
                  model.items = model.items.filter((id) => !ids.includes(id));
                  for (const index of INDEXES) for (const id of ids) model.remove(index, id);
                  break;
                }
                case 'reopen':
                  c.close();
                  c = HybridCollection.open(dir, options);
                  break;
              }
              expect(c.checkIntegrity()).toEqual([]);
              expect(c.count()).toBe(model.items.length);
              for (const index of INDEXES) {
                const expected = model.members.get(index) ?? [];
                const seqOf = (id: string) => model.items.indexOf(id);
                expect(c.memberIds(index)).toEqual(
                  [...expected].sort((a, b) => seqOf(a) - seqOf(b)),
                );
                expect(c.count(index)).toBe(expected.length);
              }
              expect(c.oldest('recent', 100).map((i) => i.id)).toEqual(model.members.get('recent'));
              // Every vector member is findable by its own vector.
              for (const id of model.members.get('vec') ?? []) {
                const text = c.get([id])[0]?.text ?? '';
                const [vector] = await embedder.embed([text]);
                const hits = await c.retrieve('vec', vector ?? [], { topK: 1 });
                expect(hits[0]?.score).toBeCloseTo(1, 4);
              }
            }
          } finally {
            c.close();
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
