import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliSync, type CliResult } from '../support/cli';
import { RunStore } from '../../src-main/core/runs/store';

/** `cli experiment --errata` offline (extractive answerer) on the mini fixture. */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const dir = mkdtempSync(join(tmpdir(), 'workbench-errata-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(...args: string[]): CliResult {
  return runCliSync(args, { MEMORY_WORKBENCH_DATA: dir });
}

describe('cli experiment --errata', () => {
  it('records the errata with its hash and reports scores against both golds and the ceiling', () => {
    // "Where did Ann move?" has gold Paris; the errata says the truth is Lyon.
    const errata = join(dir, 'errata.yaml');
    writeFileSync(
      errata,
      'entries:\n  - { sample: mini-1, question: 0, corrected: Lyon, source: workbench review }\n',
    );
    const db = join(dir, 'runs.db');
    const run = cli(
      'experiment',
      ...['--data', mini, '--samples', 'mini-1', '--errata', errata, '--runs-db', db, '--json'],
    );
    expect(run.code, run.err).toBe(0);
    const report = JSON.parse(run.out) as {
      runId: string;
      errata: {
        sha256: string;
        applied: number;
        original: { byCategory: Record<string, Record<string, { mean: number | null }>> };
        corrected: { byCategory: Record<string, Record<string, { mean: number | null }>> };
        ceiling: Record<string, Record<string, { mean: number | null; n: number }>>;
      };
    };
    const sha = createHash('sha256').update(readFileSync(errata)).digest('hex');
    expect(report.errata.sha256).toBe(sha);
    expect(report.errata.applied).toBe(1);
    // Category 4 has two questions with gold Paris; a system that answers Lyon to the first (the
    // truth) can score at most 0.5 against the original gold.
    expect(report.errata.ceiling['4']!['officialF1']).toEqual({ mean: 0.5, n: 2 });
    const store = RunStore.open(db);
    try {
      const { manifest } = store.getRun(report.runId);
      expect(manifest.errata).toMatchObject({
        sha256: sha,
        entries: [
          { sampleId: 'mini-1', questionIndex: 0, originalGold: 'Paris', corrected: 'Lyon' },
        ],
      });
    } finally {
      store.close();
    }

    const text = cli('experiment', ...['--data', mini, '--samples', 'mini-1', '--errata', errata]);
    expect(text.code, text.err).toBe(0);
    expect(text.out).toContain('official F1 original / corrected / ceiling');
    expect(text.out).toMatch(/4 single-hop\s.*\/ 0\.500\s/);
  }, 90_000);

  it('refuses an errata entry that names no question, before any run exists', () => {
    const errata = join(dir, 'bad.json');
    writeFileSync(
      errata,
      JSON.stringify({
        entries: [{ sample: 'mini-1', question: 'Who?', corrected: 'x', source: 's' }],
      }),
    );
    const db = join(dir, 'bad.db');
    const run = cli('experiment', '--data', mini, '--errata', errata, '--runs-db', db);
    expect(run.code).toBe(1);
    expect(run.err).toContain('entries[0].question: sample mini-1 has no question "Who?"');
    const store = RunStore.open(db);
    try {
      expect(store.listRuns()).toEqual([]);
    } finally {
      store.close();
    }
  }, 60_000);

  it('report <run> prints the errata table of a run that applied errata, and repeats print it per run', () => {
    const errata = join(dir, 'report-errata.yaml');
    writeFileSync(
      errata,
      'entries:\n  - { sample: mini-1, question: 0, corrected: Lyon, source: workbench review }\n',
    );
    const db = join(dir, 'report.db');
    // The figures below are `hybrid`'s answers on mini-1, named so a change of default keeps them.
    const base = [
      '--data',
      mini,
      '--samples',
      'mini-1',
      '--preset',
      'hybrid',
      '--runs-db',
      db,
      '--json',
    ];
    const withErrata = cli('experiment', ...base, '--errata', errata);
    expect(withErrata.code, withErrata.err).toBe(0);
    const without = cli('experiment', ...base);
    expect(without.code, without.err).toBe(0);
    const idOf = (out: string): string => (JSON.parse(out) as { runId: string }).runId;

    const report = cli('report', idOf(withErrata.out), '--runs-db', db);
    expect(report.code, report.err).toBe(0);
    expect(report.out).toMatch(
      /^Errata .*report-errata\.yaml \(sha256 [0-9a-f]{12}…\): 1 entries, 1 final answers/m,
    );
    // Category 4: Paris scored 0.5 against the original gold, 0 against the corrected; ceiling 0.5.
    expect(report.out).toMatch(/^4 single-hop\s+0\.500 \/ 0\.000 \/ 0\.500\s/m);
    // Adversarial questions: the refusal scores 1 whatever their gold field says.
    expect(report.out).toMatch(/^5 adversarial\s+1\.000 \/ 1\.000 \/ 1\.000\s/m);
    expect(report.out).toMatch(/^overall \(all, official\)\s+0\.571 \/ 0\.429 \/ 0\.857\s/m);
    const plain = cli('report', idOf(without.out), '--runs-db', db);
    expect(plain.code, plain.err).toBe(0);
    expect(plain.out).not.toContain('Errata');

    const repeats = cli('experiment', ...base, '--errata', errata, '--repeats', '2');
    expect(repeats.code, repeats.err).toBe(0);
    const group = JSON.parse(repeats.out) as {
      runs: Array<{ runId: string }>;
      errata: Array<{ runId: string; applied: number; ceiling: Record<string, unknown> }>;
    };
    expect(group.errata.map((e) => e.runId)).toEqual(group.runs.map((r) => r.runId));
    expect(group.errata.every((e) => e.applied === 1)).toBe(true);
    const text = cli('experiment', ...base.slice(0, -1), '--errata', errata, '--repeats', '2');
    expect(text.code, text.err).toBe(0);
    expect(text.out.match(/^Errata /gm)).toHaveLength(2);
  }, 180_000);
});
