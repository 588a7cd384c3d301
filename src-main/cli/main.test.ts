import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { allSchemeIds } from '../../src-shared/benchmarks';
import { ANSWER_PROTOCOLS, JUDGE_PROTOCOLS } from '../../src-shared/experiment';
import { commands, runCli } from './main';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const fixture = (name: string): string => join(repo, 'tests/fixtures/locomo', name);
const dir = mkdtempSync(join(tmpdir(), 'workbench-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
  });
  return { code, out, err };
}

describe('cli dispatcher', () => {
  it('lists the commands on --help', async () => {
    const { code, out } = await cli('--help');
    expect(code).toBe(0);
    expect(out).toMatch(/commands:\n {2}stats +validate a dataset file/);
  });

  it('gives every command of the registry a summary in the list and a usage of its own on --help', async () => {
    // The command list's rows as [name, summary].
    const rows = (await cli('--help')).out.split('\n').map((line) => line.trim().split(/ {2,}/));
    for (const [name, command] of Object.entries(commands)) {
      expect(command.summary.trim(), name).not.toBe('');
      expect(rows, name).toContainEqual([name, command.summary]);
      const help = await cli(name, '--help');
      expect(help.code, name).toBe(0);
      expect(help.out, name).toContain(`npm run -s cli -- ${name}`);
    }
  });

  it('lists every answer and judge protocol in experiment --help, and every judge in score --help', async () => {
    const { code, out } = await cli('experiment', '--help');
    expect(code).toBe(0);
    const section = (flag: string): string => out.slice(out.indexOf(flag)).split(/\n {2}--/)[0]!;
    for (const name of ANSWER_PROTOCOLS)
      expect(section('--answer-protocol <name>')).toMatch(new RegExp(`[ ,]${name}(,|\n|$)`));
    for (const name of JUDGE_PROTOCOLS)
      expect(section('--judge-protocol <name>')).toMatch(new RegExp(`[ ,]${name}(,|\n| |$)`));
    const score = await cli('score', '--help');
    for (const name of JUDGE_PROTOCOLS) expect(score.out).toContain(name);
  });

  it("answers every command's --help with a usage that names each flag the command takes", async () => {
    // Accepted so old scripts keep working, no longer advertised (the default since issue 11).
    const unlisted: Record<string, string[]> = {
      stats: ['include-no-evidence'],
      experiment: ['include-no-evidence'],
    };
    for (const [name, command] of Object.entries(commands)) {
      const { code, out } = await cli(name, '--help');
      expect(code, name).toBe(0);
      expect(out, name).toBe(command.usage);
      const missing = command.flags.filter(
        (flag) => !unlisted[name]?.includes(flag) && !new RegExp(`--${flag}\\b`).test(out),
      );
      expect(missing, `${name} --help`).toEqual([]);
      expect(command.flags, name).toContain('help');
    }
  });

  it('exits 2 with a clear message for an unknown command or no command', async () => {
    expect(await cli('frobnicate')).toEqual({
      code: 2,
      out: '',
      err: `error: unknown command "frobnicate" (commands: ${Object.keys(commands).join(', ')})\nRun "cli --help" for usage.\n`,
    });
    const none = await cli();
    expect(none.code).toBe(2);
    expect(none.err).toContain('usage:');
  });

  it('exits 2 on bad options', async () => {
    const unknown = await cli('stats', fixture('mini.json'), '--bogus');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/^error: Unknown option '--bogus'/);
    expect(await cli('stats', fixture('mini.json'), '--scheme', 'paper')).toMatchObject({
      code: 2,
      err: `error: --scheme must be one of ${allSchemeIds().join(', ')} (got "paper")\nRun "cli stats --help" for usage.\n`,
    });
    expect((await cli('stats')).err).toContain('error: stats needs a dataset file');
  });
});

describe('cli stats', () => {
  it('prints one JSON object with totals, samples and evidence', async () => {
    const { code, out, err } = await cli(
      'stats',
      fixture('mini.json'),
      '--json',
      '--scheme',
      'mem0',
    );
    expect([code, err]).toEqual([0, '']);
    const report = JSON.parse(out) as Record<string, unknown>;
    expect(report['scheme']).toBe('mem0');
    expect(report['totals']).toEqual({
      samples: 2,
      sessions: 4,
      turns: 13,
      imageTurns: 2,
      qa: 8,
      packets: 8,
      questionsWithEvidence: 6,
      plannedTests: 5,
      byCategory: { 1: 1, 2: 1, 3: 1, 4: 3, 5: 2 },
    });
    expect(report['samples']).toEqual([
      expect.objectContaining({
        sampleId: 'mini-1',
        sessions: 3,
        turns: 8,
        imageTurns: 2,
        qa: 7,
        packets: 5,
        questionsWithEvidence: 5,
        plannedTests: 4,
      }),
      expect.objectContaining({ sampleId: 'mini-2', packets: 3, plannedTests: 1 }),
    ]);
    expect(report['evidence']).toMatchObject({
      repaired: 4,
      unresolved: 2,
      duplicates: 1,
      questionsWithoutEvidence: 2,
    });
    expect(report['categoryNames']).toMatchObject({ 1: 'single-hop', 5: 'excluded' });
  });

  it('prints a readable report naming categories in the chosen scheme', async () => {
    const { code, out } = await cli('stats', fixture('mini.json'));
    expect(code).toBe(0);
    expect(out).toContain('mini-1  (Ann & Bob)');
    expect(out).toContain('turns per session: 1:3 2:2 10:3');
    expect(out).toContain('Questions by category (official LoCoMo names)');
    expect(out).toMatch(/ {2}1 multi-hop +1 +12\.5%/);
    expect(out).toContain('mini-1 qa[2]  "D10:03"  zero-padded -> D10:3');
    expect(out).toContain('mini-1 qa[4]  "D"  malformed (dropped)');
    expect(out).toContain('warning: ');
  });

  it('lists skipped samples as problems and still reports the rest', async () => {
    const { code, out } = await cli('stats', fixture('bad-samples.json'));
    expect(code).toBe(0);
    expect(out).toContain('Problems: 9 errors (8 samples skipped), 0 warnings');
    expect(out).toContain('sample "duplicate-dia" (#2): conversation.session_1[1].dia_id');
  });

  it('prints error CODE: <message> and exits 1 for a bad file', async () => {
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '[\n  {"a": 1,}\n]');
    expect(await cli('stats', broken)).toEqual({
      code: 1,
      out: '',
      err: `error DATASET_INVALID: ${broken}: not valid JSON at line 2, column 11: expected a property name in double quotes\n`,
    });
    const strict = await cli('stats', fixture('bad-samples.json'), '--strict');
    expect(strict.code).toBe(1);
    expect(strict.err).toMatch(
      /^error DATASET_INVALID: .*bad-samples\.json: sample "missing-speaker" \(#1\)/,
    );
  });

  it('works as a real process: exit codes and no stack traces', () => {
    const tsx = join(repo, 'node_modules/tsx/dist/cli.mjs');
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [tsx, join(repo, 'src-main/cli/main.ts'), ...args], {
        encoding: 'utf8',
        timeout: 30_000,
      });
    const ok = run('stats', fixture('mini.json'), '--json');
    expect(ok.status).toBe(0);
    expect((JSON.parse(ok.stdout) as { totals: { turns: number } }).totals.turns).toBe(13);
    const missing = run('stats', join(dir, 'missing.json'));
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe(`error NOT_FOUND: ${join(dir, 'missing.json')}: no such file\n`);
    expect(run('nope').status).toBe(2);
  });
});
