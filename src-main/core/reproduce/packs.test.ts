import { describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../src-shared/errors';
import { REPRODUCE_PACKS } from '../../../src-shared/reproduce-packs';
import { comparePack } from '../../../src-shared/reproduce';
import { repeatSummary } from '../../../src-shared/repeats';
import { summarizeAnswers } from '../../../src-shared/experiment';
import '../pipeline/loadPresets';
import {
  currentRegistries,
  loadPack,
  packIds,
  rowConfig,
  runnableRows,
  validatePack,
} from './packs';

function thrown(fn: () => unknown): WorkbenchError {
  try {
    fn();
  } catch (error) {
    if (error instanceof WorkbenchError) return error;
    throw error;
  }
  throw new Error('expected a WorkbenchError');
}

const data = (id: string) => REPRODUCE_PACKS.find((p) => p.id === id)!;

describe('reproduce packs', () => {
  it('loads the packs whose protocols and presets are registered', () => {
    expect(packIds()).toEqual(['mem0-table1', 'mem0-table2', 'locomo-table2', 'locomo-table3']);
    expect(loadPack('mem0-table1').answerer.protocol).toBe('mem0');
    expect(runnableRows(loadPack('locomo-table2')).map((r) => r.contextTokens)).toEqual([
      4000, 8000, 12000, 16000, 128000,
    ]);
  });

  it('refuses a pack that names an unregistered id, naming the id and where it is used', () => {
    const registries = currentRegistries();
    // A build without the RAG baselines: the pack names the first id it lacks.
    const without = {
      ...registries,
      answerProtocols: registries.answerProtocols.filter((p) => p !== 'locomo-rag'),
      presets: registries.presets.filter((p) => p !== 'locomo-rag-dialog'),
    };
    const e = thrown(() => validatePack(data('locomo-table3'), without));
    expect(e.code).toBe('NOT_FOUND');
    expect(e.message).toMatch(
      /^reproduce pack locomo-table3: answerer\.protocol: answer protocol "locomo-rag" is not registered/,
    );
    // With the protocol registered, the next missing id is the first row's preset.
    const withProtocol = { ...without, answerProtocols: registries.answerProtocols };
    const e2 = thrown(() => validatePack(data('locomo-table3'), withProtocol));
    // Row 0 is the paper's "None" row (no preset); row 1 is the first RAG row.
    expect(e2.message).toContain(
      'rows.1.preset: memory preset "locomo-rag-dialog" is not registered',
    );
    expect(e2.path).toEqual(['rows', 1, 'preset']);
    // This build registers every id the RAG packs name (the baselines' protocols and presets).
    const all = registries;
    expect(validatePack(data('locomo-table3'), all).rows).toHaveLength(12);
    expect(validatePack(data('mem0-table2'), all).rows).toHaveLength(16);
    const withoutMem0Rag = {
      ...registries,
      answerProtocols: registries.answerProtocols.filter((p) => p !== 'mem0-rag'),
    };
    expect(thrown(() => validatePack(data('mem0-table2'), withoutMem0Rag)).message).toContain(
      'answer protocol "mem0-rag" is not registered',
    );
  });

  it("checks each row's preset config against the preset's schema when the pack loads", () => {
    // Every pack loads: each row's options are ones its preset takes (mem0-table2's chunk sizes).
    for (const id of packIds()) expect(loadPack(id).id).toBe(id);
    expect(loadPack('mem0-table2').rows.map((r) => r.presetConfig?.['chunkSize'])).toContain(8192);
    // A misnamed option is refused at load time, naming the row, the option and the preset.
    const pack = data('mem0-table2');
    const misnamed = {
      ...pack,
      rows: [{ ...pack.rows[0]!, presetConfig: { chunkTokens: 128 } }],
    };
    const e = thrown(() => validatePack(misnamed, currentRegistries()));
    expect(e.code).toBe('INVALID_INPUT');
    expect(e.path).toEqual(['rows', 0, 'presetConfig']);
    expect(e.message).toContain('reproduce pack mem0-table2: rows.0.presetConfig: memory.config');
    expect(e.message).toContain('chunkTokens');
    expect(e.message).toContain('(preset "mem0-rag-chunks")');
  });

  it('names the packs when asked for one that does not exist', () => {
    expect(thrown(() => loadPack('mem0-table9')).message).toBe(
      'reproduce pack "mem0-table9" does not exist (packs: mem0-table1, mem0-table2, locomo-table2, locomo-table3)',
    );
  });

  it('puts ours on the paper scale beside the published figure, with the difference', () => {
    const pack = loadPack('mem0-table1');
    // Two runs of the mem0 row: J on single-hop (stored 1) 0.6 and 0.7 -> 65 ± 7.07 vs 67.13.
    const run = (j: number) =>
      summarizeAnswers([
        { category: 1, scores: { judge: j }, error: null, judge: { labels: [j] } },
      ]);
    const results = new Map([['hybrid-stand-in', repeatSummary([run(0.6), run(0.7)])]]);
    const cell = comparePack(pack, results).find(
      (c) => c.row === 'hybrid-stand-in' && c.metric === 'judge' && c.cell === '1',
    )!;
    expect(cell.paper).toBe(67.13);
    expect(cell.paperStd).toBe(0.65);
    expect(cell.ours).toBeCloseTo(65, 10);
    expect(cell.oursStd).toBeCloseTo(100 * Math.sqrt(0.005), 10);
    expect(cell.diff).toBeCloseTo(65 - 67.13, 10);
    // A paper-only row keeps its figures with no ours.
    const zep = comparePack(pack, results).find((c) => c.row === 'zep' && c.cell === 'overall')!;
    expect(zep).toMatchObject({ paper: 65.99, paperStd: 0.16, ours: null, diff: null });
    // F1 and B1 have no ± in the paper.
    const f1 = comparePack(pack, results).find(
      (c) => c.row === 'zep' && c.metric === 'setF1' && c.cell === '1',
    )!;
    expect(f1).toMatchObject({ paper: 35.74, paperStd: null });
  });

  it("asks each row's paper model unless the endpoint names one for all rows", () => {
    const pack = loadPack('locomo-table2');
    const gpt4 = pack.rows.find((r) => r.id === 'gpt-4-turbo-128k')!;
    const row4k = pack.rows.find((r) => r.id === 'full-context-4k')!;
    const settings = {
      datasetPath: '/data/locomo10.json',
      endpoints: { baseUrl: 'http://127.0.0.1:1/v1' },
    };
    const model = (row: typeof gpt4, s = settings) => {
      const answerer = rowConfig(pack, row, s).answerer;
      return answerer.kind === 'llm' ? answerer.model : null;
    };
    expect(model(gpt4)).toBe('gpt-4-turbo');
    expect(model(row4k)).toBe('gpt-3.5-turbo');
    const mine = { ...settings, endpoints: { ...settings.endpoints, model: 'my-model' } };
    expect([model(gpt4, mine), model(row4k, mine)]).toEqual(['my-model', 'my-model']);
  });
});
