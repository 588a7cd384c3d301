import { describe, expect, it } from 'vitest';
import { LOCOMO_PROFILE } from './benchmarks';
import { compareRuns, type RunCost } from './compare';
import { COLUMN_ROW_CHARS } from './columnLatex';
import { compareTable } from './compareTable';
import { finalAnswer } from '../tests/support/compare-fixture';
import { runLetter } from './runPalette';

/**
 * Compare's "Copy as LaTeX" (and `cli compare --format latex`) must fit a paper's column: the rows
 * were 150-170 characters wide (issue 38 item 6). The comparison here is built to be as wide as a
 * real one gets: four-digit n, negative deltas, long category names, few conversations (†).
 */
const answer = finalAnswer;

// 2,000 questions over two conversations; the candidate loses on some and wins on fewer.
const questions = Array.from({ length: 2000 }, (_, i) => ({
  sampleId: i % 2 === 0 ? 'conv-26' : 'conv-30',
  index: i,
  category: (i % 5) + 1,
}));
const baseline = questions.map((q) =>
  answer(q.sampleId, q.index, q.category, (q.index * 7919) % 3 === 0 ? 0 : 1),
);
const candidate = questions.map((q) =>
  answer(q.sampleId, q.index, q.category, (q.index * 104729) % 4 === 0 ? 0 : 0.5),
);
const NAMES = ['Mem0 library, gpt-4o-mini reader, top-k 30', 'hybrid BM25 + vectors & rerank'];
const comparison = compareRuns(
  [
    { runId: 'run-aaaaaaaa', label: `${NAMES[0]} · run-aaaaaaaa`, answers: baseline },
    { runId: 'run-bbbbbbbb', label: `${NAMES[1]} · run-bbbbbbbb`, answers: candidate },
  ],
  { resamples: 200, seed: 0 },
);
const input = {
  comparison,
  fairness: [],
  questionSets: { shared: 2000, perRun: [2000, 2000] },
  benchmark: LOCOMO_PROFILE,
};

/** The rows a reader sees: the header and body lines, not the notes that wrap at \linewidth. */
function tableRows(tex: string): string[] {
  return tex
    .split('\n')
    .filter(
      (line) =>
        line.endsWith('\\\\') && !line.startsWith('\\multicolumn') && !line.startsWith('\\'),
    );
}

describe('Compare per-category table as LaTeX for a column', () => {
  const tex = compareTable(input, { markup: 'latex', scheme: 'official', names: NAMES });

  it(`every row is at most ${COLUMN_ROW_CHARS} characters wide`, () => {
    const rows = tableRows(tex);
    expect(rows.length).toBeGreaterThan(10);
    const widest = Math.max(...rows.map((r) => r.length));
    expect(
      widest,
      rows.find((r) => r.length === widest),
    ).toBeLessThanOrEqual(COLUMN_ROW_CHARS);
  });

  it('runs are headed by letter, and a legend under each table names them', () => {
    const header = tableRows(tex)[0] ?? '';
    expect(header).toBe('category & n & A & B \\\\');
    for (const name of NAMES) expect(tex).not.toContain(`& ${name.replace(/&/g, '\\&')} &`);
    const legends = tex.split('\n').filter((l) => l.includes(`${runLetter(0)}: Mem0 library`));
    // One legend per table: the means, and each compared run's Δ and tests tables.
    expect(legends.length).toBe(3);
    expect(legends[0]).toContain(
      'A: Mem0 library, gpt-4o-mini reader, top-k 30 (baseline); B: hybrid BM25 + vectors \\& rerank.',
    );
  });

  it('one statistic per cell: a mean, a Δ and an interval never share a cell', () => {
    for (const row of tableRows(tex).slice(1)) {
      for (const cell of row.replace(/ \\\\$/, '').split(' & ')) {
        const numbers = cell.replace(/\[[^\]]*\]/g, 'I').match(/\d\.\d{3}|I/g) ?? [];
        expect(numbers.length, `${cell} in ${row}`).toBeLessThanOrEqual(1);
      }
    }
    expect(tex).toMatch(/\$\[-0\.\d{3}, [+-]0\.\d{3}\]\^\\dagger\$/);
    expect(tex).toContain('$2{,}000$');
  });

  it('Mem0 Table 2 takes the runs as columns, so its seven measures fit too', () => {
    const withCosts = compareTable(
      {
        ...input,
        costs: comparison.runs.map((run): RunCost => ({
          runId: run.runId,
          answer: null,
          judge: null,
          memory: null,
          totalCost: null,
          meanRetrieveMs: null,
          meanAnswerMs: null,
          table2: {
            searchMs: { p50: 1234, p95: 9876 },
            totalMs: { p50: 2345, p95: 19876 },
            memoryTokens: { mean: 12345, p50: 12000, answers: 10 },
            ingest: {
              conversations: 2,
              callsPerConversation: 1234,
              tokensPerConversation: 1234567,
            },
          },
        })),
      },
      { markup: 'latex', scheme: 'official', names: NAMES },
    );
    const rows = tableRows(withCosts);
    expect(rows).toContain('measure & A & B \\\\');
    expect(Math.max(...rows.map((r) => r.length))).toBeLessThanOrEqual(COLUMN_ROW_CHARS);
  });
});
