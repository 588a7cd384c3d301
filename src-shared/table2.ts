import type { Percentiles, Table2Columns } from './compare';

/**
 * Mem0 Table 2's columns of a run (compare.ts `table2Columns` computes them) as cells of a table,
 * in the paper's order and units (latency in seconds), for every surface that prints a table of
 * runs: `cli compare` (text, Markdown, LaTeX) and the HTML reports. One line of prose for one run
 * is `table2Line` (core/runs/report.ts).
 */

/** The column heads, in the paper's order; memory tokens are the retrieved context per question. */
export const TABLE2_HEADER = [
  'search p50 (s)',
  'search p95 (s)',
  'total p50 (s)',
  'total p95 (s)',
  'memory tokens / question',
  'memory LLM calls / conversation',
  'memory LLM tokens / conversation',
] as const;

/** What the table says about itself, under it. */
export const TABLE2_NOTE =
  "Mem0 Table 2's columns over each run's final answers that did not fail: search = the memory's retrieval of a question, total = search + answer (p50 and p95, seconds); memory tokens / question = the retrieved context handed to the answerer (mean); memory LLM calls and tokens per conversation = what the memory spent ingesting (– without a memory LLM).";

const seconds = (p: Percentiles | null, pick: 'p50' | 'p95', empty: string): string =>
  p === null ? empty : (p[pick] / 1000).toFixed(3);

const count = (value: number | null | undefined, empty: string): string =>
  value === null || value === undefined ? empty : Math.round(value).toLocaleString('en-US');

/** One run's cells under TABLE2_HEADER; `empty` where the run has no figure. */
export function table2Cells(columns: Table2Columns, empty = '–'): string[] {
  return [
    seconds(columns.searchMs, 'p50', empty),
    seconds(columns.searchMs, 'p95', empty),
    seconds(columns.totalMs, 'p50', empty),
    seconds(columns.totalMs, 'p95', empty),
    count(columns.memoryTokens?.mean, empty),
    count(columns.ingest?.callsPerConversation, empty),
    count(columns.ingest?.tokensPerConversation, empty),
  ];
}
