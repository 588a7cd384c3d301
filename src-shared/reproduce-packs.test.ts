import { describe, expect, it } from 'vitest';
import packageJson from '../package.json';
import { REPRODUCE_PACKS } from './reproduce-packs';
import {
  PACK_TABLE2_COLUMNS,
  ReproducePackSchema,
  comparePackTable2,
  defaultPack,
  packTable2Ours,
  storedRowsText,
  type ReproducePack,
} from './reproduce';

/**
 * The published figures are transcribed by hand from the papers' text; these tests hold the
 * transcription to the tables' own arithmetic. In every table here a row's overall is the
 * question-weighted mean of its categories (LoCoMo's Table 5 counts, the released file's), so a
 * mistyped overall, a column shifted or a digit swapped in a larger category no longer adds up. The few cells the papers print
 * inconsistently themselves are listed, each with the reason the pack's note gives.
 */

/** Questions per stored category in the released locomo10.json (ACL 2024 Table 5). */
const QUESTIONS: Record<string, number> = { '1': 282, '2': 321, '3': 96, '4': 841, '5': 446 };

const pack = (id: string): ReproducePack => REPRODUCE_PACKS.find((p) => p.id === id)!;

/** The question-weighted mean of a row's published categories for one metric. */
function weightedMean(cells: Record<string, number | null>, categories: readonly number[]) {
  let sum = 0;
  let n = 0;
  for (const c of categories) {
    const v = cells[String(c)];
    if (v === null || v === undefined) return null;
    sum += v * QUESTIONS[String(c)]!;
    n += QUESTIONS[String(c)]!;
  }
  return sum / n;
}

/** Cells the paper prints inconsistently (pack notes say why): row|metric. */
const PRINTED_INCONSISTENT = new Set([
  // Human study: overall 87.9, categories weight to 91.1.
  'locomo-table2|human|officialF1',
  // Copied from arXiv v1's 50-conversation base row.
  'locomo-table3|no-retrieval|officialF1',
  // Overall repeats the adversarial cell (65.9); categories weight to 57.0.
  'locomo-table3|rag-summary-k2|locomoRecall',
]);

describe('reproduce packs: published figures', () => {
  it('are valid packs whose figures come from the paper itself', () => {
    for (const p of REPRODUCE_PACKS) {
      expect(ReproducePackSchema.parse(p)).toEqual(p);
      expect(p.source.verified, p.id).toBe('paper');
    }
  });

  it('add up: each overall is the question-weighted mean of its categories, within rounding', () => {
    let checked = 0;
    for (const p of REPRODUCE_PACKS) {
      // One decimal printed (LoCoMo) rounds each cell by up to 0.05; two (Mem0) by 0.005.
      const tolerance = p.scheme === 'official' ? 0.11 : 0.011;
      for (const row of p.rows)
        for (const [metric, cells] of Object.entries(row.published)) {
          const overall = cells['overall'];
          const mean = weightedMean(cells, p.categories);
          if (overall === null || overall === undefined || mean === null) continue;
          const key = `${p.id}|${row.id}|${metric}`;
          if (PRINTED_INCONSISTENT.has(key)) {
            expect(Math.abs(mean - overall), key).toBeGreaterThan(0.5);
            continue;
          }
          expect(Math.abs(mean - overall), `${key}: ${mean.toFixed(3)} vs ${overall}`).toBeLessThan(
            tolerance,
          );
          checked++;
        }
    }
    // LoCoMo Table 2's 10 model rows, Table 3's 11 RAG rows (F1 and recall, less summary k = 2's
    // recall) and Mem0's 6 rows with J per category (Table 2's overall J), the Mem0 row's figures
    // twice (beside the hybrid preset and beside the released library).
    expect(checked).toBe(10 + (11 * 2 - 1) + 7);
  });

  it("keep each table's own figures: spot checks against the printed tables", () => {
    const find = (id: string, row: string) => pack(id).rows.find((r) => r.id === row)!;
    // Mem0 Table 1, Mem0 row: F1 38.72 / B1 27.13 / J 67.13 ± 0.65 single-hop (stored 1).
    expect(find('mem0-table1', 'mem0-library').published['setF1']!['1']).toBe(38.72);
    expect(find('mem0-table1', 'mem0-library').published['bleu1']!['1']).toBe(27.13);
    expect(find('mem0-table1', 'mem0-library').publishedStd!['judge']!['1']).toBe(0.65);
    // LoCoMo Table 2, gpt-4-turbo: adversarial 15.7 (stored 5), single-hop 72.3 (stored 4).
    expect(find('locomo-table2', 'gpt-4-turbo-128k').published['officialF1']).toMatchObject({
      '4': 72.3,
      '5': 15.7,
    });
    // LoCoMo Table 3, dialog k = 50: multi-hop recall printed "73".
    expect(find('locomo-table3', 'rag-dialog-k50').published['locomoRecall']!['1']).toBe(73);
  });

  it("carry Mem0 Table 2's latency and memory-token figures for every row, as printed", () => {
    const table2 = pack('mem0-table2');
    const figures = (row: string) => table2.rows.find((r) => r.id === row)!.publishedTable2;
    // Every row of the table prints its latencies; the order of a row's own figures must hold:
    // a p95 is at least its p50, and the search is part of the total.
    for (const row of table2.rows) {
      const f = row.publishedTable2;
      expect(f, row.id).toBeDefined();
      expect(f!.totalP50!, row.id).toBeLessThanOrEqual(f!.totalP95!);
      if (f!.searchP50 === null) continue;
      expect(f!.searchP50, row.id).toBeLessThanOrEqual(f!.searchP95!);
      expect(f!.searchP50, row.id).toBeLessThanOrEqual(f!.totalP50!);
      expect(f!.searchP95, row.id).toBeLessThanOrEqual(f!.totalP95!);
    }
    // Spot checks against the printed table: RAG k = 1, 128-token chunks; k = 2, 8192; full context.
    expect(figures('rag-k1-c128')).toEqual({
      searchP50: 0.281,
      searchP95: 0.823,
      totalP50: 0.774,
      totalP95: 1.825,
      memoryTokens: null,
    });
    expect(figures('rag-k2-c8192')).toMatchObject({ searchP95: 1.124, totalP95: 9.942 });
    expect(figures('rag-k2-c1024')).toMatchObject({ searchP50: 0.238, totalP50: 0.86 });
    expect(figures('full-context')).toEqual({
      searchP50: null,
      searchP95: null,
      totalP50: 9.87,
      totalP95: 17.117,
      memoryTokens: 26031,
    });
  });

  it("lay our Table 2 figures beside the paper's, in seconds, averaged over a row's runs", () => {
    const table2 = pack('mem0-table2');
    const run = (search: number, total: number, memoryTokens: number | null) => ({
      searchMs: { p50: search, p95: search * 2 },
      totalMs: { p50: total, p95: total * 2 },
      ingest: null,
      memoryTokens:
        memoryTokens === null ? null : { mean: memoryTokens, p50: memoryTokens, answers: 1 },
    });
    // A run from before memory tokens were counted has none: it does not pull the mean to 0.
    const ours = packTable2Ours([run(200, 900, 1800), run(400, 1100, null)]);
    expect(ours).toEqual({
      searchP50: 0.3,
      searchP95: 0.6,
      totalP50: 1,
      totalP95: 2,
      memoryTokens: 1800,
    });
    const cells = comparePackTable2(table2, new Map([['full-context', ours]]));
    const full = cells.filter((c) => c.row === 'full-context');
    expect(full.map((c) => c.column)).toEqual(PACK_TABLE2_COLUMNS.map((c) => c.key));
    expect(full.find((c) => c.column === 'searchP50')).toMatchObject({ paper: null, ours: 0.3 });
    expect(full.find((c) => c.column === 'memoryTokens')).toMatchObject({
      paper: 26031,
      ours: 1800,
      diff: 1800 - 26031,
    });
    // A row that did not run still shows the paper's figures, with ours empty.
    expect(cells.find((c) => c.row === 'rag-k1-c128' && c.column === 'totalP95')).toEqual({
      row: 'rag-k1-c128',
      column: 'totalP95',
      paper: 1.825,
      ours: null,
      diff: null,
    });
  });
});

describe("reproduce packs: Mem0's rows", () => {
  // The pin in package.json itself, not the module's reading of it.
  const pinned: string | undefined = packageJson.dependencies.mem0ai;
  const row = (packId: string, rowId: string) => pack(packId).rows.find((r) => r.id === rowId);

  it('name the released library by its pinned version, and the stand-in as a stand-in', () => {
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    for (const id of ['mem0-table1', 'mem0-table2']) {
      expect(row(id, 'mem0-library'), id).toMatchObject({
        label: `Mem0 (mem0ai ${pinned})`,
        preset: 'mem0',
        takesEmbedder: true,
        topK: 30,
      });
    }
    const standIn = row('mem0-table1', 'hybrid-stand-in')!;
    expect(standIn.preset).toBe('hybrid');
    expect(standIn.label).toMatch(/stand-in/);
    expect(standIn.label).toMatch(/not Mem0/);
    // No row but the library's is called plain "mem0".
    expect(pack('mem0-table1').rows.map((r) => r.id)).not.toContain('mem0');
  });

  it("carry Table 2's Mem0 figures beside the library in both packs, as printed", () => {
    const printed = {
      searchP50: 0.148,
      searchP95: 0.2,
      totalP50: 0.708,
      totalP95: 1.44,
      memoryTokens: 1764,
    };
    expect(row('mem0-table1', 'mem0-library')!.publishedTable2).toEqual(printed);
    const table2Row = row('mem0-table2', 'mem0-library')!;
    expect(table2Row.publishedTable2).toEqual(printed);
    // Under Mem0's own protocol, not the pack's RAG one, with Table 2's overall J ± std.
    expect(table2Row.protocol).toBe('mem0');
    expect(table2Row.published).toEqual({ judge: { overall: 66.88 } });
    expect(table2Row.publishedStd).toEqual({ judge: { overall: 0.15 } });
    // The paper-only rows of Table 1 keep no latency figures they do not print there.
    expect(row('mem0-table1', 'zep')!.publishedTable2).toBeUndefined();
  });
});

describe('the pack a view opens on', () => {
  const [first, second, third] = REPRODUCE_PACKS;
  if (!first || !second || !third) throw new Error('the test needs three packs');
  const item = (pack: ReproducePack, runnable: boolean, newestRunId: string | null) => ({
    pack,
    runnable,
    reason: null,
    stored: { rows: newestRunId === null ? 0 : 1, runnableRows: 3, newestRunId },
  });

  it('is the pack with the newest stored run, whichever its place in the list', () => {
    const list = [
      item(first, true, '20261201-100000-000-aaaaaa'),
      item(second, true, null),
      item(third, true, '20261202-090000-000-bbbbbb'),
    ];
    expect(defaultPack(list)?.pack.id).toBe(third.id);
  });

  it('is the first runnable pack when nothing is stored or no runs DB was read', () => {
    expect(defaultPack([item(first, false, null), item(second, true, null)])?.pack.id).toBe(
      second.id,
    );
    const unread = [first, second].map((pack) => ({ ...item(pack, true, null), stored: null }));
    expect(defaultPack(unread)?.pack.id).toBe(first.id);
    expect(defaultPack([])).toBeNull();
  });

  it('says how many of the rows the workbench can run hold runs', () => {
    expect(storedRowsText({ rows: 2, runnableRows: 5, newestRunId: 'x' })).toBe('2 of 5 rows');
    expect(storedRowsText({ rows: 1, runnableRows: 1, newestRunId: 'x' })).toBe('1 of 1 row');
  });
});
