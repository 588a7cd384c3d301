import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCOMO_PROFILE } from '../../../src-shared/benchmarks';
import { COLUMN_ROW_CHARS } from '../../../src-shared/columnLatex';
import { runColor } from '../../../src-shared/runPalette';
import {
  byAttr,
  byClass,
  byTag,
  findAll,
  findOne,
  parseHtml,
  section,
  textOf,
  type HtmlNode,
} from '../../../tests/support/htmlTree';
import { writeFixtureRun } from '../../../tests/support/runs-fixture';
import { exportRun } from './export';
import { runQueries } from './queries';
import { SqliteRunReader } from './reader';
import { RunStore } from './store';

/**
 * The two HTML reports (issue 38 item 3), parsed: the run report (`runs.export` html, `cli report
 * --html`) and the comparison report (`runs.compareExport` html, `cli report a b --html`), built
 * from two real runs in a real runs DB that read a real LoCoMo-format file (written here) whose
 * adversarial questions carry an `adversarial_answer`.
 */
const dir = mkdtempSync(join(tmpdir(), 'workbench-html-reports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SAMPLES = ['conv-1', 'conv-2'];
const QUESTIONS = 12;
const turn = (session: number, i: number) => ({
  speaker: i % 2 === 1 ? 'Ann' : 'Bob',
  dia_id: `D${session}:${i}`,
  text: `Turn ${i} of session ${session}, said in full.`,
});
const dataset = SAMPLES.map((sampleId) => ({
  sample_id: sampleId,
  conversation: {
    speaker_a: 'Ann',
    speaker_b: 'Bob',
    ...Object.fromEntries(
      [1, 2, 3].flatMap((s) => [
        [`session_${s}_date_time`, `1:56 pm on ${s} May, 2023`],
        [`session_${s}`, [1, 2, 3].map((i) => turn(s, i))],
      ]),
    ),
  },
  qa: Array.from({ length: QUESTIONS }, (_, q) =>
    q % 5 === 4
      ? {
          question: `question ${q} of ${sampleId}?`,
          adversarial_answer: `tempting ${q} <b>of</b> ${sampleId}`,
          evidence: ['D3:2'],
          category: 5,
        }
      : {
          question: `question ${q} of ${sampleId}?`,
          answer: `gold ${q}`,
          evidence: [q % 2 === 0 ? 'D1:1' : 'D3:3'],
          category: (q % 5) + 1,
        },
  ),
}));

let reader: SqliteRunReader;
beforeAll(() => {
  const datasetFile = join(dir, 'locomo-mini.json');
  const bytes = Buffer.from(JSON.stringify(dataset));
  writeFileSync(datasetFile, bytes);
  const manifestDataset = {
    path: datasetFile,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    bytes: bytes.length,
    format: 'locomo',
  };
  const file = join(dir, 'runs.db');
  const store = RunStore.open(file);
  writeFixtureRun(store, { runId: 'run-a', preset: 'text', dataset: manifestDataset });
  writeFixtureRun(store, { runId: 'run-b', preset: 'hybrid', dataset: manifestDataset });
  store.close();
  reader = SqliteRunReader.openReadOnly(file);
});
afterAll(() => reader?.close());

const cellsOf = (row: HtmlNode): HtmlNode[] =>
  row.children.filter((c) => c.tag === 'td' || c.tag === 'th');
const INTERVAL = /^\[\d\.\d{3}, \d\.\d{3}\]$/;

/** Every tabular row of the report's LaTeX blocks (header and body; the wrapped notes aside). */
function latexRows(doc: HtmlNode): string[] {
  const blocks = findAll(findOne(doc, section('LaTeX'), 'LaTeX'), byClass('latex'));
  expect(blocks.length).toBeGreaterThan(0);
  return blocks
    .flatMap((b) => textOf(b).split('\n'))
    .filter((l) => l.endsWith('\\\\') && !l.startsWith('\\'));
}

/** A chart's parts: whiskers, axis titles, legend labels. */
function chartParts(svg: HtmlNode) {
  return {
    whiskers: findAll(svg, byClass('whisker')).length,
    axisTitles: findAll(svg, byClass('axis-title')).map(textOf),
    legend: findAll(svg, byClass('legend-item')).map(textOf),
  };
}

describe('the run report', () => {
  const doc = (): HtmlNode => parseHtml(exportRun(reader, 'run-a', 'html'));

  it('per category: each metric beside its 95% interval, and bars with whiskers', () => {
    const page = doc();
    const perCategory = findOne(page, section('Per category'), 'Per category');
    const rows = findAll(findOne(perCategory, byTag('tbody'), 'tbody'), byTag('tr'));
    expect(rows).toHaveLength(LOCOMO_PROFILE.categories.length);
    for (const row of rows) {
      const intervals = cellsOf(row).filter((c) => INTERVAL.test(textOf(c)));
      // official F1 scores every category, so every row has at least its interval.
      expect(intervals.length, textOf(row)).toBeGreaterThan(0);
    }
    const bars = chartParts(findOne(perCategory, byTag('svg'), 'bar chart'));
    expect(bars.whiskers).toBe(LOCOMO_PROFILE.categories.length);
    expect(bars.axisTitles).toContain('official F1 (mean, 95% CI)');
    expect(bars.legend).toEqual(['official F1, mean']);
  });

  it("the answerable card is headed in the profile's words and has its interval", () => {
    const headline = findOne(doc(), section('Headline'), 'Headline');
    const name = LOCOMO_PROFILE.overallNames.answerable!;
    const cards = findOne(
      headline,
      byAttr('aria-label', `overall (${name.label})`),
      'answerable cards',
    );
    const f1 = findAll(cards, byClass('stat')).find((s) => textOf(s).startsWith('official F1'));
    expect(textOf(f1!)).toMatch(/95% CI \d\.\d{3}–\d\.\d{3} · n \d+/);
    expect(textOf(headline)).toContain(name.note);
  });

  it('the curve has both axes titled and a legend naming each line', () => {
    const curve = chartParts(
      findOne(findOne(doc(), section('Curve'), 'Curve'), byTag('svg'), 'svg'),
    );
    expect(curve.axisTitles).toEqual(['test # (samples averaged)', 'mean score']);
    expect(curve.legend).toEqual(['official F1', 'evidence recall']);
  });

  it("adversarial questions show the dataset's adversarial_answer as their gold", () => {
    const answers = findOne(doc(), section('Answers scored below 0.5'), 'answers');
    const adversarial = findAll(answers, byClass('adversarial')).map(textOf);
    expect(adversarial.length).toBeGreaterThan(0);
    expect(adversarial[0]).toMatch(/^adversarial_answer: “tempting \d+ <b>of<\/b> conv-\d”/);
  });

  it(`its LaTeX tables fit a column (rows ≤ ${COLUMN_ROW_CHARS} characters)`, () => {
    const rows = latexRows(doc());
    expect(rows.some((r) => r.startsWith('category & n & official F1 & 95\\% CI'))).toBe(true);
    expect(Math.max(...rows.map((r) => r.length))).toBeLessThanOrEqual(COLUMN_ROW_CHARS);
  });
});

describe('the comparison report', () => {
  const html = (): string =>
    runQueries(reader)['runs.compareExport']({
      runIds: ['run-a', 'run-b'],
      baselineRunId: 'run-a',
      metric: 'officialF1',
      format: 'html',
    }).content;
  const compared = () =>
    runQueries(reader)['runs.compare']({
      runIds: ['run-a', 'run-b'],
      baselineRunId: 'run-a',
      metric: 'officialF1',
      seed: 0,
    });

  it('each flip comes with its explanation: both runs side by side, evidence, retrieved ranks', () => {
    const flips = findOne(parseHtml(html()), section('Flips'), 'Flips');
    const flipped = compared().comparison.rows.filter((r) =>
      r.flips.some((f) => f === 'improved' || f === 'regressed'),
    );
    expect(flipped.length).toBeGreaterThan(0);
    const items = findAll(flips, byClass('explain'));
    expect(items.map((i) => i.attrs['data-question'])).toEqual(
      flipped.map((r) => `${r.sampleId}:${r.questionIndex}`),
    );
    for (const [k, item] of items.entries()) {
      // The folded line carries each run's score and the flip's direction, read without opening.
      const row = flipped[k]!;
      const summary = textOf(findOne(item, byTag('summary'), 'summary'));
      row.cells.forEach((cell, i) => {
        const arrow = row.flips[i] === 'improved' ? ' ↑' : row.flips[i] === 'regressed' ? ' ↓' : '';
        expect(summary).toContain(`${'AB'[i]} ${cell!.score!.toFixed(3)}${arrow}`);
      });
      const sides = findAll(item, byClass('side'));
      expect(sides.map((s) => s.attrs['aria-label'])).toEqual(['Run A', 'Run B']);
      // The question's evidence, found at a rank or missed, as the Compare view shows it.
      expect(textOf(sides[0]!)).toMatch(/D\d:\d (found #\d+|missed)/);
      expect(findAll(sides[1]!, byClass('retrieved'))[0]?.children.length).toBe(3);
    }
  });

  it("adversarial flips show the dataset's adversarial_answer as gold, never a blank", () => {
    const items = findAll(
      findOne(parseHtml(html()), section('Flips'), 'Flips'),
      byClass('explain'),
    );
    const adversarial = items.filter(
      (i) => Number(i.attrs['data-question']!.split(':')[1]) % 5 === 4,
    );
    expect(adversarial.length).toBeGreaterThan(0);
    for (const item of adversarial) {
      const q = item.attrs['data-question']!.split(':');
      expect(textOf(findOne(item, byClass('adversarial'), 'gold'))).toContain(
        `adversarial_answer: “tempting ${q[1]} <b>of</b> ${q[0]}”`,
      );
    }
  });

  it("both runs' manifests: the config values that differ, and each manifest whole", () => {
    const manifests = findOne(parseHtml(html()), section('Manifests'), 'Manifests');
    const keys = findAll(manifests, byTag('tr')).map((r) => textOf(cellsOf(r)[0]!));
    expect(keys).toContain('memory.preset');
    expect(keys).toContain('runId');
    const whole = findAll(manifests, byTag('details'));
    expect(whole).toHaveLength(2);
    expect(JSON.parse(textOf(findOne(whole[1]!, byTag('pre'), 'pre')))).toMatchObject({
      runId: 'run-b',
      memory: { preset: 'hybrid' },
    });
  });

  it('per category: each run with its interval and whisker, coloured by its letter, with a legend', () => {
    const page = parseHtml(html());
    const perCategory = findOne(page, section('Per category'), 'Per category');
    const body = findOne(perCategory, byTag('tbody'), 'tbody');
    // Every column is filled: the baseline (A) has no Δ column, which would be blank.
    const head = findAll(findOne(perCategory, byTag('thead'), 'thead'), byTag('th')).map(textOf);
    expect(head).toEqual([
      'category',
      'A mean',
      '95% CI',
      'n',
      'B mean',
      '95% CI',
      'n',
      'Δ [95% CI]',
    ]);
    for (const row of findAll(body, byTag('tr'))) {
      expect(cellsOf(row).filter((c) => INTERVAL.test(textOf(c)))).toHaveLength(2);
      expect(cellsOf(row)).toHaveLength(head.length);
      expect(textOf(cellsOf(row).at(-1)!)).toMatch(/^Δ [+-]\d/);
    }
    const svg = findOne(perCategory, byTag('svg'), 'bars');
    const bars = chartParts(svg);
    expect(bars.whiskers).toBe(2 * LOCOMO_PROFILE.categories.length);
    expect(bars.legend.map((l) => l.slice(0, 4))).toEqual(['A · ', 'B · ']);
    const fills = new Set(findAll(svg, byClass('bar')).map((b) => b.attrs.fill));
    expect(fills).toEqual(new Set([runColor(0), runColor(1)]));
  });

  it('curves: one per run, both axes titled, a legend', () => {
    const svg = findOne(
      findOne(parseHtml(html()), section('Curves'), 'Curves'),
      byTag('svg'),
      'svg',
    );
    const curve = chartParts(svg);
    expect(curve.axisTitles).toEqual(['test # (samples averaged)', 'mean official F1']);
    expect(curve.legend).toHaveLength(2);
    expect(findAll(svg, byClass('series'))).toHaveLength(2);
  });

  it(`its LaTeX tables fit a column, runs by letter (rows ≤ ${COLUMN_ROW_CHARS} characters)`, () => {
    const rows = latexRows(parseHtml(html()));
    expect(rows).toContain('category & n & A & B \\\\');
    expect(Math.max(...rows.map((r) => r.length))).toBeLessThanOrEqual(COLUMN_ROW_CHARS);
  });
});
