import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunStore } from '../../src-main/core/runs/store';
import { runCli } from '../support/cli';
import { writeFixtureRun } from '../support/runs-fixture';

/**
 * `cli compare --format md|latex` as a paper table, on two small runs in a temp runs DB: two
 * conversations (so every cluster interval is flagged), evidence recall unscored on every third
 * question (so the paired n is below the question count, as 1,982 of 1,986 in issue 35).
 */

const root = mkdtempSync(join(tmpdir(), 'mw-compare-paper-'));
const runsDb = join(root, 'runs.db');

beforeAll(() => {
  const store = RunStore.open(runsDb);
  try {
    writeFixtureRun(store, { runId: 'run-a', preset: 'hybrid', samples: 2, tests: 2, step: 6 });
    writeFixtureRun(store, { runId: 'run-b', preset: 'external', samples: 2, tests: 2, step: 6 });
    store.setRunIdentity('run-a', { name: 'bm25' });
    store.setRunIdentity('run-b', { name: 'chunked' });
  } finally {
    store.close();
  }
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

const compare = (format: string) =>
  runCli([
    'compare',
    'run-a',
    'run-b',
    '--metric',
    'evidenceRecall',
    '--format',
    format,
    '--runs-db',
    runsDb,
  ]);

describe('cli compare for a paper', () => {
  it('Markdown: one statistic per cell, the paired n, a caption naming each test and its settings', async () => {
    const md = await compare('md');
    expect(md.err).toBe('');
    expect(md.code).toBe(0);
    const lines = md.out.split('\n');
    expect(lines[0]).toBe(
      '| category | bm25 (baseline) | chunked | n | Δ | 95% CI | CI by conversation | McNemar p | MDE |',
    );
    // 24 questions (2 conversations × 12 at the last test), evidence recall unscored on every
    // third (q0, q3, q6, q9): 16 pairs.
    const all = lines.find((l) => l.startsWith('| All |'))?.split(' | ') ?? [];
    expect(all[3]).toBe('16');
    expect(all[4]).toMatch(/^([+−]\d\.\d{3}|0\.000)$/);
    expect(all[5]).toMatch(/^\[[+−]?\d\.\d{3}, [+−]?\d\.\d{3}\]$/);
    expect(all[6]).toMatch(/^\[[+−]?\d\.\d{3}, [+−]?\d\.\d{3}\]†$/);
    expect(all[7]).toMatch(/^(<0\.001|\d\.\d{3})$/);
    expect(all[8]).toMatch(/^±\d\.\d{3} \|$/);
    expect(md.out).not.toContain('p=<');
    expect(md.out).not.toMatch(/McNemar p=|by \d+ conversations|detectable ±/);
    expect(md.out).toContain('n: questions both runs scored for this metric');
    expect(md.out).toContain('paired bootstrap over questions (2,000 resamples)');
    expect(md.out).toContain(
      'exact two-sided McNemar test on correct/wrong flips, a score ≥ 0.5 counting as correct',
    );
    expect(md.out).toContain('at alpha 0.05 with power 0.8 at this n');
    expect(md.out).toContain('† fewer than 5 conversations: an interval from so few clusters');
  }, 60_000);

  it('LaTeX for a column: runs by letter with a legend, symbols in math mode, captions wrapped', async () => {
    const tex = await compare('latex');
    expect(tex.code).toBe(0);
    expect(tex.out).toContain('category & n & A & B \\\\');
    expect(tex.out).toContain('category & $\\Delta$ B $-$ A & 95\\% CI & by conv. \\\\');
    expect(tex.out).toContain('category & n & McNemar $p$ & MDE \\\\');
    expect(tex.out).toContain('A: bm25 (baseline); B: chunked.');
    expect(tex.out).toMatch(
      /\n\\multicolumn\{4\}\{p\{\\linewidth\}\}\{\\footnotesize .*\(2,000 resamples\)/,
    );
    expect(tex.out).toMatch(/\]\^\\dagger\$ \\\\/);
    expect(tex.out).toContain('a score $\\geq$ 0.5 counting as correct');
    expect(tex.out).not.toMatch(/[†≥]/);
  }, 60_000);
});
