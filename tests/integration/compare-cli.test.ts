import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCOMO_PROFILE } from '../../src-shared/benchmarks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunComparisonResult } from '../../src-shared/api';
import { categoryTableRows, formatScore } from '../../src-shared/compareTable';
import { createService, type Service } from '../../src-main/core/service';
import { RunStore } from '../../src-main/core/runs/store';
import { runCli } from '../support/cli';
import { writeFixtureRun } from '../support/runs-fixture';

/**
 * `cli compare` against the API the Compare view renders: two runs the size of a full LoCoMo run
 * (10 conversations, 2,000 final answers, 11,000 answer rows each) written through the real writer,
 * compared once by the CLI in a child process and once through the service's `runs.compare`.
 */

const root = mkdtempSync(join(tmpdir(), 'mw-compare-cli-'));
const runsDb = join(root, 'runs.db');
const FULL = { samples: 10, tests: 10, step: 20 };
let service: Service;
let viewed: RunComparisonResult;

beforeAll(async () => {
  const store = RunStore.open(runsDb);
  try {
    writeFixtureRun(store, { runId: 'run-base', preset: 'hybrid', ...FULL });
    writeFixtureRun(store, { runId: 'run-new', preset: 'external', ...FULL });
    store.setRunIdentity('run-base', { name: 'bm25 baseline' });
    store.setRunIdentity('run-new', { name: 'chunked memory' });
  } finally {
    store.close();
  }
  service = createService({ dataDir: root, transport: 'http', datasetDirs: [root] });
  viewed = await service.handlers['runs.compare']({
    runIds: ['run-base', 'run-new'],
    baselineRunId: 'run-base',
    metric: 'officialF1',
    seed: 0,
  });
}, 120_000);

afterAll(async () => {
  await service.close();
  rmSync(root, { recursive: true, force: true });
});

describe('cli compare', () => {
  it('--json is the runs.compare result the Compare view renders', async () => {
    const r = await runCli(['compare', 'run-base', 'run-new', '--runs-db', runsDb, '--json']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    // Through JSON both ways: the view receives it over IPC/HTTP, where NaN becomes null.
    expect(JSON.parse(r.out)).toEqual(JSON.parse(JSON.stringify(viewed)));
    expect(viewed.comparison.rows).toHaveLength(2000);
  }, 60_000);

  it("prints the view's per-category numbers: means, delta and both intervals, McNemar, detectable effect", async () => {
    const r = await runCli(['compare', 'run-base', 'run-new', '--runs-db', runsDb]);
    expect(r.code).toBe(0);
    const rows = categoryTableRows(viewed.comparison, 'official', viewed.benchmark);
    expect(rows.map((row) => row.label)).toContain('All');
    for (const row of rows) {
      const line = r.out.split('\n').find((l) => l.startsWith(`${row.label} `));
      expect(line, row.label).toBeDefined();
      const delta = row.deltas[1];
      expect(delta?.significance).not.toBe('none');
      for (const text of [
        String(row.questions),
        ...row.perRun.map((m) => formatScore(m.mean)),
        `${delta?.diff} ${delta?.interval}`,
        delta?.conversations,
        delta?.mcnemar,
        delta?.detectable,
      ])
        expect(line).toContain(text);
    }
    const flips = viewed.comparison.flipCounts[1];
    expect(r.out).toContain(
      `flips chunked memory vs bm25 baseline: ${flips?.improved} improved, ${flips?.regressed} regressed, ${flips?.unchanged} unchanged, ${flips?.missing} missing`,
    );
  }, 60_000);

  it('--baseline flips the direction; --format md and latex name the runs by their names', async () => {
    const md = await runCli([
      'compare',
      'run-base',
      'run-new',
      '--baseline',
      'run-new',
      '--format',
      'md',
      '--runs-db',
      runsDb,
    ]);
    expect(md.code).toBe(0);
    expect(md.out).toMatch(
      /^\| category \| bm25 baseline \| chunked memory \(baseline\) \| n \| Δ \| 95% CI \|/,
    );
    const reversed = await service.handlers['runs.compare']({
      runIds: ['run-base', 'run-new'],
      baselineRunId: 'run-new',
      metric: 'officialF1',
      seed: 0,
    });
    const all = categoryTableRows(reversed.comparison, 'official', LOCOMO_PROFILE).find(
      (r) => r.label === 'All',
    );
    expect(md.out.split('\n').find((l) => l.startsWith('| All |'))).toContain(
      `| ${all?.deltas[0]?.diff} | ${all?.deltas[0]?.interval} |`,
    );

    const latex = await runCli([
      'compare',
      'run-base',
      'run-new',
      '--format',
      'latex',
      '--runs-db',
      runsDb,
    ]);
    expect(latex.code).toBe(0);
    expect(latex.out).toMatch(
      /^\\begin\{tabular\}\{lrrr\}\n\\toprule\ncategory & n & A & B \\\\\n/,
    );
    expect(latex.out).toContain('A: bm25 baseline (baseline); B: chunked memory.');
    expect(latex.out.trimEnd().endsWith('\\end{tabular}')).toBe(true);
  }, 60_000);

  it('says what is wrong with its arguments', async () => {
    const one = await runCli(['compare', 'run-base', '--runs-db', runsDb]);
    expect(one.code).toBe(2);
    expect(one.err).toContain('compare takes at least two run ids');
    const stranger = await runCli([
      'compare',
      'run-base',
      'run-new',
      '--baseline',
      'run-x',
      '--runs-db',
      runsDb,
    ]);
    expect(stranger.code).toBe(2);
    expect(stranger.err).toContain('--baseline run-x is not among the compared runs');
  }, 60_000);

  it('--format html is refused with the command that writes the HTML comparison report', async () => {
    // HTML is a report, not a table's markup: the error gives `report`'s command for these runs.
    const html = await runCli([
      'compare',
      'run-base',
      'run-new',
      '--baseline',
      'run-new',
      '--format',
      'html',
      '--runs-db',
      runsDb,
    ]);
    expect(html.code).toBe(2);
    expect(html.err).toContain('(got "html")');
    expect(html.err).toContain(
      'the HTML comparison report is written by report --html: npm run -s cli -- report run-new run-base --html',
    );
  }, 60_000);
});
