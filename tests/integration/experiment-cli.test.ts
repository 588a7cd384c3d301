import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOCOMO_PROFILE } from '../../src-shared/benchmarks';
import { afterAll, describe, expect, it } from 'vitest';
import { RUNS, buildDb, corruptAnswersPage } from '../support/runs-db';
import { checkedStampMatches } from '../../src-main/core/runs/db';
import { exportColumns } from '../../src-main/core/runs/export';

/**
 * The experiment commands as a user runs them: child processes on real files. The memory preset is
 * the deterministic test preset, loaded through the MEMORY_WORKBENCH_EXTRA_PRESETS hook.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const dir = mkdtempSync(join(tmpdir(), 'workbench-exp-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = {
  ...process.env,
  MEMORY_WORKBENCH_DATA: join(dir, 'data'),
  MEMORY_WORKBENCH_EXTRA_PRESETS: join(repo, 'tests/fixtures/experiment/test-presets.ts'),
};
const cliArgs = ['--import', 'tsx', join(repo, 'src-main/cli/main.ts')];

function cli(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [...cliArgs, ...args], {
    cwd: repo,
    env,
    encoding: 'utf8',
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function writeConfig(name: string, value: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(value));
  return file;
}

describe('experiment CLI', () => {
  it('--json prints exactly one JSON object with the run id and the summary', () => {
    const db = join(dir, 'json.db');
    const r = cli(
      'experiment',
      '--data',
      mini,
      '--preset',
      'test-recency',
      '--runs-db',
      db,
      '--json',
    );
    expect(r.err).not.toContain('error');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as {
      runId: string;
      status: string;
      summary: { questions: number };
    };
    expect(report).toMatchObject({
      status: 'completed',
      scheme: 'official',
      // mini-1 has 8 questions; the 2 without usable evidence are asked at the last packet.
      summary: { questions: 8 },
      notAsked: 0,
      coverage: null,
    });
    expect(report.runId).toMatch(/^\d{8}-\d{6}-\d{3}-[0-9a-f]{6}$/);

    const list = JSON.parse(cli('runs', 'list', '--json', '--runs-db', db).out) as {
      runs: Array<{ id: string }>;
    };
    expect(list.runs.map((x) => x.id)).toEqual([report.runId]);

    const exported = JSON.parse(
      cli('export', report.runId, '--format', 'json', '--runs-db', db).out,
    ) as {
      run: Record<string, unknown>;
      answers: Array<Record<string, unknown>>;
      testAnswers: Array<Record<string, unknown>>;
    };
    expect(exported.run).toMatchObject({ runId: report.runId, status: 'completed', seed: 42 });
    expect(exported.answers).toHaveLength(8);
    // The columns are the export registry's; the original ones keep their places whatever is
    // added after them (a reader of an old export finds them where they were).
    const columns = exportColumns(LOCOMO_PROFILE);
    expect(Object.keys(exported.answers[0] ?? {})).toEqual(columns);
    expect(columns.slice(0, 17)).toEqual([
      'sampleId',
      'questionIndex',
      'category',
      'question',
      'gold',
      'prediction',
      'officialF1',
      'evidenceRecall',
      'retrieved',
      'error',
      'setF1',
      'bleu1',
      'judgeMean',
      'judgeStd',
      'judgeError',
      'promptTokens',
      'completionTokens',
    ]);
    expect(columns).toEqual(
      expect.arrayContaining(['locomoRecall', 'bleu1Simple', 'memoryTokens']),
    );
    // Every offline answer counts the retrieved context it read (Mem0 Table 2's memory tokens).
    expect(exported.answers.map((x) => typeof x['memoryTokens'] === 'number')).not.toContain(false);
    expect(exported.testAnswers.length).toBeGreaterThan(6);
    expect(exported.testAnswers[0]).toHaveProperty('testIndex');

    const out = join(dir, 'final.csv');
    expect(cli('export', report.runId, '--format', 'csv', '--out', out, '--runs-db', db).code).toBe(
      0,
    );
    const lines = readFileSync(out, 'utf8').split('\r\n');
    expect(lines[0]).toBe(columns.join(','));
    expect(lines.filter((l) => l !== '')).toHaveLength(9);
  });

  it('names, tags and annotates the run with --name, --tag (repeated) and --notes', () => {
    const db = join(dir, 'identity.db');
    const r = cli(
      'experiment',
      '--data',
      mini,
      '--preset',
      'test-recency',
      '--runs-db',
      db,
      '--json',
      '--name',
      'recency baseline',
      '--tag',
      'baseline',
      '--tag',
      'offline',
      '--notes',
      'first try',
    );
    expect(r.code).toBe(0);
    const { runId } = JSON.parse(r.out) as { runId: string };
    const list = JSON.parse(cli('runs', 'list', '--json', '--runs-db', db).out) as {
      runs: Array<Record<string, unknown>>;
    };
    expect(list.runs).toEqual([
      expect.objectContaining({
        id: runId,
        name: 'recency baseline',
        tags: ['baseline', 'offline'],
        notes: 'first try',
        topK: 10,
        seed: 42,
      }),
    ]);

    const bad = cli('experiment', '--data', mini, '--runs-db', db, '--tag', 'a,b');
    expect(bad.code).not.toBe(0);
    expect(bad.err).toContain('--name/--tag/--notes: tags[0]: must not contain a comma');
  });

  it('prints the per-category table and the run id on a plain run', () => {
    const r = cli(
      'experiment',
      '--data',
      mini,
      '--preset',
      'test-recency',
      '--scheme',
      'mem0',
      '--runs-db',
      join(dir, 'table.db'),
    );
    expect(r.code).toBe(0);
    expect(r.out).toContain('Final answers, categories named by Mem0 paper scheme');
    expect(r.out).toContain('1 single-hop');
    expect(r.out).toMatch(/overall \(all, official\)\s+0\.\d{3}\s+8/);
    expect(r.out).toMatch(/overall \(categories 1-4\)/);
    // Every question is asked: nothing to explain beside the headline.
    expect(r.out).not.toContain("of the dataset's");
    expect(r.out).toMatch(/run \d{8}-\d{6}-\d{3}-[0-9a-f]{6} completed/);
    // Not a TTY: plain progress lines, no carriage-return redraws.
    expect(r.err).toContain('mini-1: test 0 committed');
    expect(r.err).not.toContain('\r');
  });

  it('says beside the headline why n is below the dataset count (--exclude-no-evidence)', () => {
    const runsDb = join(dir, 'optout.db');
    const r = cli(
      'experiment',
      '--data',
      mini,
      '--preset',
      'test-recency',
      '--exclude-no-evidence',
      '--runs-db',
      runsDb,
    );
    expect(r.code).toBe(0);
    // mini-1 has 8 questions; 2 have no usable evidence ("D" and []).
    const note =
      "n = 6 of the dataset's 8 questions: 2 without usable evidence left out (opt-out: --exclude-no-evidence)";
    expect(r.out).toMatch(/overall \(all, official\)\s+0\.\d{3}\s+6/);
    expect(r.out).toContain(`questions 6, errors 0\n${note}\n`);
    const id = /run (\S+) completed/.exec(r.out)?.[1] as string;
    expect(cli('runs', 'show', id, '--runs-db', runsDb).out).toContain(note);
  });

  it('names the bad field of a --config file', () => {
    const bad = writeConfig('bad.json', { retrieval: { topK: 'ten' } });
    const r = cli('experiment', '--data', mini, '--config', bad, '--runs-db', join(dir, 'bad.db'));
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `error INVALID_INPUT: config file ${bad}: retrieval.topK: Invalid input: expected number, received string\n`,
    );
    const unknown = writeConfig('unknown.json', { memory: { preset: 'test-recency' }, topk: 5 });
    expect(
      cli('experiment', '--data', mini, '--config', unknown, '--runs-db', join(dir, 'bad.db')).err,
    ).toMatch(
      new RegExp(
        `^error INVALID_INPUT: config file ${unknown}: \\(root\\): Unrecognized key: "topk"`,
      ),
    );
  });

  it('survives SIGKILL mid-run: resume gives the final answers of an uninterrupted run', async () => {
    const db = join(dir, 'kill.db');
    // Slow inserts so the kill lands after the first committed test and before the end.
    const config = writeConfig('slow.json', {
      memory: { preset: 'test-recency', config: { insertDelayMs: 150 } },
    });
    const child = spawn(
      process.execPath,
      [...cliArgs, 'experiment', '--data', mini, '--config', config, '--runs-db', db],
      {
        cwd: repo,
        env,
      },
    );
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('mini-1: test 0 committed')) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.on('exit', () =>
        reject(new Error(`the run ended before it could be killed:\n${stderr}`)),
      );
    });
    await new Promise((r) => child.once('exit', r));
    const runs = JSON.parse(cli('runs', 'list', '--json', '--runs-db', db).out) as {
      runs: Array<{ id: string; status: string }>;
    };
    expect(runs.runs).toHaveLength(1);
    const killed = runs.runs[0] as { id: string; status: string };
    expect(killed.status).toBe('interrupted');

    const resumed = cli('resume', killed.id, '--runs-db', db, '--json');
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.out)).toMatchObject({ runId: killed.id, status: 'completed' });

    const straight = JSON.parse(
      cli('experiment', '--data', mini, '--config', config, '--runs-db', db, '--json').out,
    ) as { runId: string };
    const finals = (id: string) =>
      (
        JSON.parse(cli('export', id, '--format', 'json', '--runs-db', db).out) as {
          answers: unknown[];
        }
      ).answers;
    expect(finals(killed.id)).toEqual(finals(straight.runId));
    const show = JSON.parse(cli('runs', 'show', killed.id, '--json', '--runs-db', db).out) as {
      run: { resumes: number; sampleInfo: Array<{ testsCommitted: number; plannedTests: number }> };
    };
    expect(show.run.resumes).toBe(1);
    expect(show.run.sampleInfo.every((s) => s.testsCommitted === s.plannedTests)).toBe(true);
  });

  it('refuses a corrupt runs DB with a clear message and leaves it untouched', () => {
    const corrupt = join(dir, 'corrupt.db');
    const text = 'not a database at all, just some text that is long enough';
    writeFileSync(corrupt, text);
    const r = cli('runs', 'list', '--runs-db', corrupt);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `error RUNS_DB: runs database ${corrupt}: not a SQLite database (bad header); the file was not changed\n`,
    );
    expect(readFileSync(corrupt, 'utf8')).toBe(text);
  });

  it('checks a runs DB once per file version: a command stamps it, a changed file is checked again', () => {
    const file = join(dir, 'checked-once.db');
    buildDb(file);
    expect(cli('runs', 'list', '--runs-db', file, '--json').code).toBe(0);
    // The version the command left is stamped as checked: the next command skips the check.
    expect(checkedStampMatches(file)).toBe(true);
    // Damage a page: a new version (its time moves), checked again, and the damage is found.
    const { mtime, atime } = statSync(file);
    corruptAnswersPage(file);
    utimesSync(file, atime, new Date(mtime.getTime() + 5_000));
    expect(checkedStampMatches(file)).toBe(false);
    const r = cli('runs', 'list', '--runs-db', file);
    expect(r.code).toBe(1);
    expect(r.err).toContain('RUNS_DB_CORRUPT');
  });

  it('refuses invalid samples by default, runs the valid ones with --skip-invalid and records what was skipped', () => {
    const samples = JSON.parse(readFileSync(mini, 'utf8')) as Array<Record<string, unknown>>;
    const [first, second] = samples as [Record<string, unknown>, Record<string, unknown>];
    // One good sample, one broken one, and a copy of the good one (a duplicated id).
    const file = writeConfig('invalid-samples.json', [first, { ...second, qa: 'none' }, first]);
    const db = join(dir, 'invalid-samples.db');
    const refused = cli('experiment', '--data', file, '--preset', 'test-recency', '--runs-db', db);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(
      `error DATASET_INVALID: ${file}: 2 invalid sample(s), so the run was not started`,
    );
    expect(refused.err).toContain('sample "mini-2" (#1): ');
    expect(refused.err).toContain('sample "mini-1" (#2): ');
    expect(refused.err).toContain('duplicate sample_id (also sample #0)');
    expect(cli('runs', 'list', '--runs-db', db, '--json').out).toBe('{"runs":[]}\n');

    const named = cli(
      'experiment',
      ...['--data', file, '--preset', 'test-recency', '--runs-db', db, '--samples', 'mini-2'],
    );
    expect(named.code).toBe(1);
    expect(named.err).toMatch(/^error [A-Z_]+: samples\[0\]: sample mini-2 is invalid: .*qa/);

    const skipped = cli(
      'experiment',
      ...['--data', file, '--preset', 'test-recency', '--runs-db', db, '--skip-invalid', '--json'],
    );
    expect(skipped.code).toBe(0);
    const report = JSON.parse(skipped.out) as {
      runId: string;
      skippedSamples: Array<{ sampleIndex: number; sampleId: string }>;
    };
    expect(report.skippedSamples.map((s) => [s.sampleIndex, s.sampleId])).toEqual([
      [1, 'mini-2'],
      [2, 'mini-1'],
    ]);
    const show = cli('runs', 'show', report.runId, '--runs-db', db);
    expect(show.out).toContain('skipped 2 invalid sample(s) (--skip-invalid):');
    const manifest = (
      JSON.parse(cli('runs', 'show', report.runId, '--runs-db', db, '--json').out) as {
        run: { manifest: { samples: string[]; skippedSamples: unknown[] } };
      }
    ).run.manifest;
    expect(manifest.samples).toEqual(['mini-1']);
    expect(manifest.skippedSamples).toHaveLength(2);
    // The plain list counts the one sample run in the singular (it said "1 samples").
    expect(cli('runs', 'list', '--runs-db', db).out).toMatch(
      new RegExp(`^${report.runId} +completed +\\S+ +1 sample +`, 'm'),
    );
  });

  it('refuses a bad preset config naming its path, and creates no run', () => {
    const db = join(dir, 'bad-preset.db');
    const bad = writeConfig('bad-preset.json', {
      memory: { preset: 'test-recency', config: { insertDelayMs: -5 } },
    });
    const r = cli('experiment', '--data', mini, '--config', bad, '--runs-db', db);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /^error INVALID_INPUT: experiment config: memory\.config\.insertDelayMs: Too small/,
    );
    expect(cli('runs', 'list', '--runs-db', db, '--json').out).toBe('{"runs":[]}\n');
  });

  it('reports a damaged runs DB with a coded error, and runs repair recovers the readable runs', () => {
    const db = join(dir, 'damaged.db');
    buildDb(db);
    corruptAnswersPage(db);
    const list = cli('runs', 'list', '--runs-db', db);
    expect(list.code).toBe(1);
    expect(list.err).toMatch(
      new RegExp(
        `^error RUNS_DB_CORRUPT: runs database ${db} is damaged \\(.+\\); the file was not changed; run "npm run -s cli -- runs repair --runs-db ${db}"`,
      ),
    );
    const repair = cli('runs', 'repair', '--runs-db', db);
    expect(repair.code).toBe(0);
    expect(repair.out).toContain(`${db} was damaged`);
    expect(repair.out).toMatch(/answers +\d+ rows recovered; lost unreadable rowids \d+-\d+/);
    expect(repair.out).toContain(`${RUNS.length} run(s) in the repaired database`);
    const after = cli('runs', 'list', '--runs-db', db, '--json');
    expect(after.code).toBe(0);
    const { runs } = JSON.parse(after.out) as { runs: Array<{ id: string }> };
    expect(runs.map((r) => r.id).sort()).toEqual(RUNS);
    expect(cli('runs', 'repair', '--runs-db', db).out).toBe(
      `${db}: integrity_check found no damage; nothing was changed\n`,
    );
  });
});
