import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { table2Columns, type Table2Columns } from '../../src-shared/compare';
import { TABLE2_HEADER, table2Cells } from '../../src-shared/table2';
import { latexEscape } from '../../src-shared/paperTables';
import { texNumber } from '../../src-shared/columnLatex';
import { table2Line } from '../../src-main/core/runs/report';
import { RunStore } from '../../src-main/core/runs/store';
import { REPO, runCli } from '../support/cli';

/**
 * Mem0 Table 2's columns (search and total p50/p95, memory tokens per question, ingest per
 * conversation) on every CLI surface that reports a run: `experiment` (text and --json), `runs
 * show` (text and --json), `compare` (text, md, LaTeX) and the HTML reports. Each surface must
 * print the figures computed from the run's stored final answers (compare.ts `table2Columns`).
 */
const dir = mkdtempSync(join(tmpdir(), 'workbench-table2-surfaces-'));
const db = join(dir, 'runs.db');
const mini = join(REPO, 'tests/fixtures/locomo/mini.json');
const env = { MEMORY_WORKBENCH_DATA: join(dir, 'data') };
const cli = (args: string[]) => runCli([...args, '--runs-db', db], env);

/** The figures as the one computation gives them, over the run's stored final answers. */
function storedColumns(runId: string): Table2Columns {
  const store = RunStore.open(db);
  try {
    return table2Columns(store.getRun(runId).manifest.usage?.memory, store.finalAnswers(runId));
  } finally {
    store.close();
  }
}

/** A row of cells separated by a table's own separator, as a pattern. */
const rowPattern = (cells: readonly string[], separator: string): RegExp =>
  new RegExp(cells.map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join(separator));

let first: string;
let second: string;
beforeAll(async () => {
  const a = await cli(['experiment', '--data', mini, '--name', 'first', '--json']);
  expect(a.code, a.err).toBe(0);
  first = (JSON.parse(a.out) as { runId: string }).runId;
  const b = await cli(['experiment', '--data', mini, '--preset', 'text', '--name', 'second']);
  expect(b.code, b.err).toBe(0);
  second = /run (\S+) completed/.exec(b.out)![1]!;
  // The text printout's Table 2 line, checked here where its output is at hand.
  expect(b.out).toContain(table2Line(storedColumns(second)));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("Mem0 Table 2's columns on the CLI", () => {
  it('experiment --json and runs show (JSON and text) carry the stored figures', async () => {
    const again = await cli(['experiment', '--data', mini, '--samples', 'mini-1', '--json']);
    expect(again.code, again.err).toBe(0);
    const printed = JSON.parse(again.out) as { runId: string; table2: Table2Columns };
    const columns = storedColumns(printed.runId);
    expect(columns.searchMs).not.toBeNull();
    expect(columns.memoryTokens).not.toBeNull();
    expect(printed.table2).toEqual(columns);

    const shown = await cli(['runs', 'show', first, '--json']);
    expect(shown.code, shown.err).toBe(0);
    expect((JSON.parse(shown.out) as { table2: Table2Columns }).table2).toEqual(
      storedColumns(first),
    );
    const text = await cli(['runs', 'show', first]);
    expect(text.code, text.err).toBe(0);
    expect(text.out).toContain(table2Line(storedColumns(first)));
    // An offline run has no memory LLM: the ingest column says so rather than showing 0.
    expect(text.out).toContain('ingest no memory LLM');
  }, 120_000);

  it('compare prints one Table 2 row per run in text, Markdown and LaTeX', async () => {
    const cells = [first, second].map((id) => table2Cells(storedColumns(id)));
    const text = await cli(['compare', first, second]);
    expect(text.code, text.err).toBe(0);
    expect(text.out).toMatch(rowPattern(['run', ...TABLE2_HEADER], '\\s+'));
    expect(text.out).toMatch(rowPattern(['first', ...cells[0]!], '\\s+'));
    expect(text.out).toMatch(rowPattern(['second', ...cells[1]!], '\\s+'));

    const md = await cli(['compare', first, second, '--format', 'md']);
    expect(md.code, md.err).toBe(0);
    expect(md.out).toContain(`| run | ${TABLE2_HEADER.join(' | ')} |`);
    expect(md.out).toContain(`| second | ${cells[1]!.join(' | ')} |`);

    const tex = await cli(['compare', first, second, '--format', 'latex']);
    expect(tex.code, tex.err).toBe(0);
    // For a column: the runs are Table 2's columns, by letter, named in the legend below.
    expect(tex.out).toContain('measure & A & B \\\\');
    TABLE2_HEADER.forEach((measure, i) =>
      expect(tex.out).toContain(
        `${latexEscape(measure)} & ${texNumber(cells[0]![i]!)} & ${texNumber(cells[1]![i]!)} \\\\`,
      ),
    );
    expect(tex.out).toContain('A: first; B: second.');
    // Complete tabulars: the means, B's Δ and its tests, and Table 2's.
    expect(tex.out.match(/\\begin\{tabular\}/g)).toHaveLength(4);
  }, 120_000);

  it('the HTML reports of a run and of a comparison hold the Table 2 section', async () => {
    const cells = table2Cells(storedColumns(first));
    const run = await cli(['report', first, '--html']);
    expect(run.code, run.err).toBe(0);
    expect(run.out).toContain('aria-label="Mem0 Table 2 columns"');
    expect(run.out).toContain(`<td>${cells.join('</td><td>')}</td>`);

    const compared = await cli(['report', first, second, '--html']);
    expect(compared.code, compared.err).toBe(0);
    expect(compared.out).toContain('aria-label="Mem0 Table 2 columns"');
    expect(compared.out).toContain(`<td>${cells.join('</td><td>')}</td>`);
    expect(compared.out).toContain(
      `<td>${table2Cells(storedColumns(second)).join('</td><td>')}</td>`,
    );
  }, 120_000);
});
