import { describe, expect, it } from 'vitest';
import { WorkbenchError } from './errors';
import { SweepSpecSchema, expandSweep, heatmapOf } from './sweeps';

const spec = (value: unknown) => SweepSpecSchema.parse(value);

function thrown(fn: () => unknown): WorkbenchError {
  try {
    fn();
  } catch (error) {
    if (error instanceof WorkbenchError) return error;
    throw error;
  }
  throw new Error('expected a WorkbenchError');
}

describe('sweep expansion', () => {
  it('is the cartesian product of the axes in declaration order, each cell repeated', () => {
    const cells = expandSweep(
      spec({
        name: 'grid',
        base: { datasetPath: 'd.json', retrieval: { topK: 3 } },
        axes: { 'memory.preset': ['hybrid', 'text'], 'retrieval.topK': [5, 10, 25] },
        repeats: 2,
      }),
    );
    expect(cells).toHaveLength(12);
    expect(cells.map((c) => c.index)).toEqual([...Array(12).keys()]);
    // The last axis varies fastest; repeats are innermost.
    expect(cells.slice(0, 3).map((c) => c.key)).toEqual([
      'memory.preset=hybrid,retrieval.topK=5 #0',
      'memory.preset=hybrid,retrieval.topK=5 #1',
      'memory.preset=hybrid,retrieval.topK=10 #0',
    ]);
    expect(cells[11]?.config).toMatchObject({
      datasetPath: 'd.json',
      memory: { preset: 'text', config: {} },
      retrieval: { topK: 25 },
    });
    // The base is not mutated by a cell.
    expect(cells[0]?.config.retrieval.topK).toBe(5);
    expect(new Set(cells.map((c) => c.key)).size).toBe(12);
  });

  it('with no axes is the base config once per repeat', () => {
    const cells = expandSweep(spec({ name: 'one', base: { datasetPath: 'd.json', seed: 7 } }));
    expect(cells).toHaveLength(1);
    expect(cells[0]).toMatchObject({ key: '#0', config: { seed: 7 } });
  });

  it('validates every cell before anything runs, naming the axis and the field', () => {
    const error = thrown(() =>
      expandSweep(
        spec({
          name: 'bad',
          base: { datasetPath: 'd.json' },
          axes: { seed: [1, 2], 'retrieval.topK': [10, 0] },
        }),
        'sweep spec s.yaml',
      ),
    );
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.path).toEqual(['axes', 'retrieval.topK']);
    expect(error.message).toMatch(
      /^sweep spec s\.yaml: cell seed=1,retrieval\.topK=0 #0: retrieval\.topK: /,
    );
  });

  it('points at the base config when the base itself is wrong', () => {
    const error = thrown(() =>
      expandSweep(spec({ name: 'bad', base: { datasetPath: 'd.json', parallel: 'x' } })),
    );
    expect(error.path).toEqual(['base', 'parallel']);
  });

  it('refuses unknown config fields set by an axis (the config schema is strict)', () => {
    const error = thrown(() =>
      expandSweep(
        spec({ name: 'bad', base: { datasetPath: 'd.json' }, axes: { 'retrieval.k': [1] } }),
      ),
    );
    expect(error.path).toEqual(['axes', 'retrieval.k']);
  });

  it('refuses a grid past the cell limit before expanding it', () => {
    const many = Array.from({ length: 101 }, (_, i) => i);
    const error = thrown(() =>
      expandSweep(
        spec({
          name: 'big',
          base: { datasetPath: 'd.json' },
          axes: { seed: many, parallel: many },
        }),
      ),
    );
    expect(error.message).toContain('10201 cells; at most 10000');
  });

  it('rejects a spec with a bad axis path or an empty axis, with the path', () => {
    const r1 = SweepSpecSchema.safeParse({ name: 'x', base: {}, axes: { 'memory..preset': [1] } });
    expect(r1.success).toBe(false);
    const r2 = SweepSpecSchema.safeParse({ name: 'x', base: {}, axes: { seed: [] } });
    expect(r2.error?.issues[0]?.path).toEqual(['axes', 'seed']);
  });
});

describe('sweep heatmap', () => {
  const row = (runId: string, values: Record<string, string | number>, f1: number | null) => ({
    runId,
    status: 'completed',
    cellKey: runId,
    cellIndex: 0,
    values,
    repeat: 0,
    metrics: { officialF1: f1, judge: null, setF1: null, bleu1: null, evidenceRecall: null },
    byCategory: {},
    questions: 1,
  });

  it('places each run by its two axis values and pools the rest with a 95% interval', () => {
    const rows = [
      row('a', { p: 'hybrid', k: 5, seed: 1 }, 0.4),
      row('b', { p: 'hybrid', k: 5, seed: 2 }, 0.6),
      row('c', { p: 'text', k: 5, seed: 1 }, 0.3),
      row('d', { p: 'hybrid', k: 10, seed: 1 }, null),
    ];
    const map = heatmapOf(rows, 'k', 'p', 'officialF1');
    expect(map.xs).toEqual(['5', '10']);
    expect(map.ys).toEqual(['hybrid', 'text']);
    const hybrid5 = map.cells.find((c) => c.x === '5' && c.y === 'hybrid');
    expect(hybrid5?.mean).toBeCloseTo(0.5);
    expect(hybrid5?.n).toBe(2);
    // sd of (0.4, 0.6) is 0.1414; 1.96 * sd / sqrt(2) = 0.196.
    expect(hybrid5?.ci?.[0]).toBeCloseTo(0.304, 3);
    expect(hybrid5?.runIds).toEqual(['a', 'b']);
    // A run without the metric counts as no value, not as zero.
    expect(map.cells.find((c) => c.x === '10' && c.y === 'hybrid')).toMatchObject({
      mean: null,
      n: 0,
      ci: null,
    });
    expect(map.cells.find((c) => c.x === '10' && c.y === 'text')).toMatchObject({ n: 0 });
    expect(heatmapOf(rows, 'p', null, 'officialF1').ys).toEqual(['all']);
  });
});
