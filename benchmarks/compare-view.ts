import { LOCOMO_PROFILE } from '../src-shared/benchmarks';
import { compareRuns } from '../src-shared/compare';
import {
  buildQuestionRows,
  categoryTableRows,
  compareChartRows,
  filterQuestionRows,
  flipChipCounts,
} from '../src-renderer/src/views/compare/shape';
import { fullLocomoAnswerPair } from '../tests/support/compare-fixture';
import { fmt, machineLine, median, writeSection } from './common';

const REPEATS = 7;
/** The Compare view's targets: the engine's answer, the view opening on it, one search keystroke. */
const TARGETS_MS = { engine: 1000, shaping: 200, keystroke: 50 };

/**
 * Two LoCoMo-sized runs (2 × 1,986 answers, no dataset needed): `compareRuns` with the full 2,000
 * bootstrap resamples, then what the Compare view derives when it opens (category table, chart,
 * question rows, flip chips, the unfiltered list) and one search keystroke. Median of REPEATS.
 */
export async function compareViewSuite(
  _data: string,
  write: boolean,
  _extra: string[],
): Promise<void> {
  const { base, other } = fullLocomoAnswerPair();
  const times = { engine: [] as number[], shaping: [] as number[], keystroke: [] as number[] };
  for (let i = 0; i < REPEATS; i++) {
    const t0 = performance.now();
    const comparison = compareRuns(
      [
        { runId: 'a', label: 'a', answers: base },
        { runId: 'b', label: 'b', answers: other },
      ],
      { seed: 0 },
    );
    const t1 = performance.now();
    categoryTableRows(comparison, 'official', LOCOMO_PROFILE);
    compareChartRows(comparison, 'official', LOCOMO_PROFILE);
    const rows = buildQuestionRows(comparison);
    flipChipCounts(rows, { category: null, sample: null, search: '' });
    filterQuestionRows(rows, { flips: [], category: null, sample: null, search: '' });
    const t2 = performance.now();
    filterQuestionRows(rows, {
      flips: ['regressed'],
      category: 4,
      sample: null,
      search: 'question conv-3',
    });
    const t3 = performance.now();
    times.engine.push(t1 - t0);
    times.shaping.push(t2 - t1);
    times.keystroke.push(t3 - t2);
  }
  const row = (what: string, key: keyof typeof TARGETS_MS): string =>
    `| ${what} | ${fmt(median(times[key]), 1)} ms | ${fmt(Math.max(...times[key]), 1)} ms | < ${TARGETS_MS[key]} ms |`;
  const body = [
    '## Compare view (2 × 1,986 questions, no dataset)',
    '',
    'Reproduce: `npm run bench -- compare-view`.',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${machineLine()}.`,
    '',
    `Two LoCoMo-sized runs built in memory (LoCoMo's category sizes over ten samples), ${REPEATS} times: ` +
      'the engine compares them (per-question alignment, flips, 2,000 bootstrap resamples per ' +
      'category and overall), then the view shapes what it opens on, then one search keystroke.',
    '',
    '| measure | median | slowest | target |',
    '|---|---|---|---|',
    row('compareRuns (engine)', 'engine'),
    row('view shaping on open', 'shaping'),
    row('one search keystroke', 'keystroke'),
  ].join('\n');
  process.stdout.write(`${body}\n`);
  if (write) await writeSection('compare-view', body);
}
