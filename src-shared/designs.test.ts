import { describe, expect, it } from 'vitest';
import {
  CollectionDesignSchema,
  DESIGN_INDEX_TYPES,
  crossFieldIssues,
  designIssues,
  designPath,
  issueText,
  newDesignIndex,
  parseDesign,
  type CollectionDesignInput,
  type DesignIndex,
} from './designs';

const base = (): CollectionDesignInput => ({
  name: 'my design',
  indexes: [
    { name: 'text', type: 'text' },
    { name: 'vector', type: 'vector' },
    { name: 'recent', type: 'fifo', capacity: 10 },
  ],
  fusion: { method: 'weighted', weights: { text: 1, vector: 0.2 } },
});

const messages = (value: unknown) => designIssues(value).map(issueText);

describe('CollectionDesign schema', () => {
  it('fills every default, so a minimal design is complete', () => {
    const design = CollectionDesignSchema.parse({
      name: ' d ',
      indexes: [{ name: 'v', type: 'vector' }],
    });
    expect(design.name).toBe('d');
    expect(design.indexes[0]).toEqual({
      name: 'v',
      type: 'vector',
      embedder: 'wink-sif-100d',
      space: 'cosine',
      M: 16,
      efConstruction: 100,
      ef: 64,
      previousTurnVector: 0.5,
    });
    expect(design.fusion).toEqual({ method: 'rrf', weights: {}, rrfK: 60 });
    expect(design.retrieval).toEqual({
      candidates: 50,
      previousTurnScore: 0.5,
      nextTurnScore: 0.2,
      speakerBoost: 0.4,
      dropQuestionWords: true,
    });
  });

  it('names the field of every bad value', () => {
    const d = base();
    d.indexes[2] = { name: 'recent', type: 'fifo', capacity: 0 };
    expect(messages(d)).toEqual(['indexes[2].capacity: must be >= 1']);

    d.indexes[2] = { name: 'recent', type: 'fifo', capacity: 2.5 };
    expect(messages(d)).toEqual(['indexes[2].capacity: must be a whole number']);

    d.indexes[2] = { name: 'recent', type: 'fifo', capacity: Number.NaN };
    expect(messages(d)).toEqual(['indexes[2].capacity: must be a number']);

    expect(messages({ ...base(), retrieval: { speakerBoost: 11 } })).toEqual([
      'retrieval.speakerBoost: must be <= 10',
    ]);
    expect(messages({ ...base(), name: '  ' })).toEqual(['name: must not be empty']);
    expect(messages({ ...base(), indexes: [], fusion: {} })).toEqual([
      'indexes: must hold at least one index',
    ]);
    expect(messages({ ...base(), indexes: [{ name: 'a b', type: 'text' }], fusion: {} })).toEqual([
      'indexes[0].name: must be 1-64 letters, digits, _ or -',
    ]);
    expect(messages({ ...base(), indexes: [{ name: 'x', type: 'bloom' }], fusion: {} })).toEqual([
      `indexes[0].type: type must be one of ${DESIGN_INDEX_TYPES.join(', ')}`,
    ]);
    expect(
      messages({ ...base(), indexes: [{ name: 's', type: 'sorted', field: 'mood' }], fusion: {} }),
    ).toEqual([
      'indexes[0].field: must be one of position, sessionIndex, turnIndex, sessionDateTime, speaker, diaId',
    ]);
  });

  it('lets a vector index embed with an OpenAI-compatible endpoint, never with a literal key', () => {
    const endpoint = { kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'nomic' };
    const parsed = parseDesign({
      name: 'remote',
      indexes: [
        { name: 'v', type: 'vector', embedder: { ...endpoint, apiKeyEnv: 'OLLAMA_API_KEY' } },
      ],
    });
    expect(parsed.ok && parsed.design.indexes[0]).toMatchObject({
      embedder: { ...endpoint, apiKeyEnv: 'OLLAMA_API_KEY' },
    });
    const refused = parseDesign({
      name: 'remote',
      indexes: [{ name: 'v', type: 'vector', embedder: { ...endpoint, apiKey: 'sk-literal' } }],
    });
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.issues.map((i) => designPath(i.path))).toEqual([
      'indexes[0].embedder',
    ]);
  });

  it('checks across fields: unique names, graph sources, weights', () => {
    const dup = base();
    dup.indexes.push({ name: 'text', type: 'text' });
    expect(messages(dup)).toEqual([
      'indexes[3].name: duplicate index name "text" (also indexes[0])',
    ]);

    const graph = base();
    graph.indexes.push({ name: 'g', type: 'graph', startFrom: 'recent', neighboursFrom: 'text' });
    expect(messages(graph)).toEqual([
      'indexes[3].startFrom: must name a vector or text index; "recent" is a fifo index',
      'indexes[3].neighboursFrom: must name a vector index; "text" is a text index',
    ]);

    const missing = base();
    missing.indexes.push({ name: 'g', type: 'graph', startFrom: 'nope', neighbours: 0 });
    expect(messages(missing)).toEqual(['indexes[3].startFrom: names no index ("nope")']);

    const two = base();
    two.indexes.push({ name: 'g', type: 'graph', startFrom: 'text', neighboursFrom: 'vector' });
    two.indexes.push({ name: 'g2', type: 'graph', startFrom: 'text', neighboursFrom: 'vector' });
    expect(messages(two)).toEqual([
      'indexes[4].type: only one graph index per design (indexes[3] is one)',
    ]);

    expect(messages({ ...base(), fusion: { weights: { text: 1, gone: 2 } } })).toEqual([
      'fusion.weights.gone: names no index of this design',
    ]);
  });

  it('reports cross-field problems even when a field has the wrong type', () => {
    // zod skips refinements after a type error; the editor must still show both problems.
    const d = base();
    d.indexes[2] = { name: 'text', type: 'fifo', capacity: Number.NaN };
    expect(messages(d)).toEqual([
      'indexes[2].capacity: must be a number',
      'indexes[2].name: duplicate index name "text" (also indexes[0])',
    ]);
    expect(crossFieldIssues(null)).toEqual([]);
  });

  it('parseDesign gives the design or its issues', () => {
    const ok = parseDesign(base());
    expect(ok.ok).toBe(true);
    const bad = parseDesign({ ...base(), fusion: { rrfK: -1 } });
    expect(bad).toEqual({
      ok: false,
      issues: [{ path: ['fusion', 'rrfK'], message: 'must be >= 0' }],
    });
  });

  it('newDesignIndex picks a free name and wires a graph to existing indexes', () => {
    const indexes: DesignIndex[] = CollectionDesignSchema.parse(base()).indexes;
    expect(newDesignIndex('fifo', indexes)).toEqual({ name: 'fifo', type: 'fifo', capacity: 20 });
    const withFifo = [...indexes, newDesignIndex('fifo', indexes)];
    expect(newDesignIndex('fifo', withFifo).name).toBe('fifo-2');
    expect(newDesignIndex('graph', indexes)).toMatchObject({
      startFrom: 'text',
      neighboursFrom: 'vector',
      neighbours: 3,
    });
    // Without a vector index there is nothing to take neighbours from.
    expect(newDesignIndex('graph', [indexes[0] as DesignIndex])).toMatchObject({
      startFrom: 'text',
      neighboursFrom: '',
      neighbours: 0,
    });
  });
});
