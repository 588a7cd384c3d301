import { describe, expect, it } from 'vitest';
import { LOCOMO_PROFILE } from './benchmarks';
import { compareRuns, type RunCost } from './compare';
import { COLUMN_ROW_CHARS, texText } from './columnLatex';
import { compareTable } from './compareTable';
import { finalAnswer } from '../tests/support/compare-fixture';
import { runLetter } from './runPalette';
import { runName } from './runs';
import { compareJudges } from './compareJudges';

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

describe("the judges' table as LaTeX for a column", () => {
  // Sweep cells go by names derived from their sweep and grid point, the longest a run gets.
  const sweepName = (repeat: number, topK: number): string =>
    runName({
      name: '',
      sweep: {
        sweepId: 'sweep-1',
        name: 'mem0-table2.rag-k2-c1024',
        cellKey: `k${topK} #${repeat}`,
        cellIndex: repeat,
        values: { 'memory.preset': 'rag', 'retrieval.topK': topK, 'memory.chunkTokens': 1024 },
        repeat,
      },
    });
  const names = [sweepName(0, 2), sweepName(3, 4)];
  const judgedRuns = [baseline, candidate].map((answers, run) => {
    // The candidate (run 1) is judged wrong more often, in one conversation more than the other.
    const labelOf = (i: number): number[] => [
      i % 5 === 0 || (run === 1 && i % (i % 2 === 0 ? 3 : 7) === 0) ? 0 : 1,
    ];
    const keys = answers.map((a) => `${a.sampleId}#${a.questionIndex}`);
    return {
      questions: answers.map((a, i) => ({ key: keys[i]!, cluster: a.sampleId })),
      judges: ['gpt-4o-mini-2024-07-18', 'gpt-4.1-mini-2025-04-14'].map((model) => ({
        identity: { protocol: 'mem0', model, origin: 'https://api.openai.com', repeats: 3 },
        own: model.startsWith('gpt-4o'),
        labels: new Map(keys.map((key, i) => [key, labelOf(i)])),
      })),
    };
  });
  const judges = compareJudges(judgedRuns, 0, () => null, { resamples: 200, seed: 0 });
  const tex = compareTable({ ...input, judges }, { markup: 'latex', scheme: 'official', names });
  const judgeTable = tex.slice(tex.lastIndexOf('\\begin{tabular}'));
  // Its rows, the judges' own rows included, but not the notes that wrap at \linewidth.
  const rows = judgeTable
    .split('\n')
    .filter((line) => line.endsWith('\\\\') && !line.includes('{p{\\linewidth}}'));

  it(`every row is at most ${COLUMN_ROW_CHARS} characters wide`, () => {
    expect(names[0]!.length).toBeGreaterThan(60);
    // A header, and per judge its row and one row per run.
    expect(rows.length).toBe(1 + judges.length * 3);
    const widest = Math.max(...rows.map((r) => r.length));
    expect(
      widest,
      rows.find((r) => r.length === widest),
    ).toBeLessThanOrEqual(COLUMN_ROW_CHARS);
  });

  it('runs are headed by letter with a legend naming them, one statistic per cell', () => {
    expect(rows[0]).toBe('run & J & 95\\% CI & $\\Delta$ J vs A & 95\\% CI \\\\');
    expect(rows[1]).toBe(
      '\\multicolumn{5}{l}{mem0/gpt-4o-mini-2024-07-18, n = $2{,}000^\\dagger$} \\\\',
    );
    expect(rows[2]).toMatch(/^A & \$0\.\d{3}\$ & \$\[0\.\d{3}, 0\.\d{3}\]\$ & -- & -- \\\\$/);
    expect(rows[3]).toMatch(
      /^B & \$0\.\d{3}\$ & \$\[0\.\d{3}, 0\.\d{3}\]\$ & \$-0\.\d{3}\$ & \$\[-0\.\d{3}, -0\.\d{3}\]\$ \\\\$/,
    );
    expect(judgeTable).toContain(`A: ${texText(names[0]!)} (baseline); B: ${texText(names[1]!)}.`);
    for (const row of rows.slice(1)) {
      for (const cell of row.replace(/ \\\\$/, '').split(' & ')) {
        const numbers = cell.replace(/\[[^\]]*\]/g, 'I').match(/\d\.\d{3}|I/g) ?? [];
        expect(numbers.length, `${cell} in ${row}`).toBeLessThanOrEqual(1);
      }
    }
  });
});
