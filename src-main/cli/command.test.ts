import { describe, expect, it } from 'vitest';
import { defineCommand, type CliIO } from './command';
import { EXPERIMENT_OPTIONS, JSON_OPTION, RUNS_DB_OPTIONS } from './options';
import { benchmarkProfiles } from '../../src-shared/benchmarks';

function capture(): CliIO & { out: string[] } {
  const out: string[] = [];
  return { out, stdout: (t) => void out.push(t), stderr: (t) => void out.push(`err:${t}`) };
}

describe('defineCommand', () => {
  const seen: Array<{ values: unknown; positionals: string[] }> = [];
  const command = defineCommand({
    summary: 'test',
    usage: 'usage: test',
    description: 'Tests.',
    options: { ...RUNS_DB_OPTIONS, ...JSON_OPTION, k: { type: 'string', help: 'k' } },
    async run({ values, positionals }) {
      seen.push({ values: { ...values }, positionals });
      return values.json ? 7 : 0;
    },
  });

  it('answers -h/--help with the usage and does not run the command', async () => {
    for (const flag of ['--help', '-h']) {
      const io = capture();
      expect(await command.run(['x', flag, '--k', '3'], io)).toBe(0);
      expect(io.out).toEqual([command.usage]);
    }
    expect(seen).toEqual([]);
  });

  it('writes help from the declarations: usage, description, each option with its default and names', () => {
    const help = defineCommand({
      summary: 'test',
      usage: 'usage: test',
      description: 'Tests.',
      options: {
        k: { type: 'string', value: '<n>', help: 'results', absent: 7 },
        kind: { type: 'string', help: 'which', choices: () => ['a', 'b'] },
        old: { type: 'boolean', help: 'kept for old scripts', hidden: true },
      },
      epilogue: 'The end.',
      async run() {
        return 0;
      },
    }).usage;
    expect(help).toBe(
      [
        'usage: test',
        '',
        'Tests.',
        '',
        'options:',
        '  --k <n>                   results (default: 7)',
        '  --kind <a|b>              which',
        '  -h, --help                show this help',
        '',
        'The end.',
        '',
      ].join('\n'),
    );
  });

  it('passes typed values, defaults and positionals to run', async () => {
    expect(await command.run(['r1', '--runs-db', 'a.db', '--json'], capture())).toBe(7);
    expect(seen.at(-1)).toEqual({
      values: { 'runs-db': 'a.db', json: true, help: false },
      positionals: ['r1'],
    });
  });

  it('refuses an option the command does not declare (a parseArgs usage error)', async () => {
    await expect(command.run(['--scheme', 'mem0'], capture())).rejects.toMatchObject({
      code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION',
    });
  });
});

describe('an old flag name (deprecatedFor)', () => {
  const seen: unknown[] = [];
  const command = defineCommand({
    summary: 'test',
    usage: 'usage: test',
    description: 'Tests.',
    options: {
      'adversarial-reply-mapping': EXPERIMENT_OPTIONS['adversarial-reply-mapping'],
      'category5-mapping': EXPERIMENT_OPTIONS['category5-mapping'],
    },
    async run({ values }) {
      seen.push({ ...values });
      return 0;
    },
  });

  it('reads --category5-mapping as --adversarial-reply-mapping and warns that it is deprecated', async () => {
    const io = capture();
    expect(await command.run(['--category5-mapping', 'lenient'], io)).toBe(0);
    expect(seen.at(-1)).toEqual({ help: false, 'adversarial-reply-mapping': 'lenient' });
    expect(io.out).toEqual([
      'err:warning: --category5-mapping is deprecated: use --adversarial-reply-mapping\n',
    ]);
    const quiet = capture();
    expect(await command.run(['--adversarial-reply-mapping', 'locomo'], quiet)).toBe(0);
    expect(seen.at(-1)).toEqual({ help: false, 'adversarial-reply-mapping': 'locomo' });
    expect(quiet.out).toEqual([]);
  });

  it('refuses both names at once, and its help says it is the old name', async () => {
    await expect(
      command.run(
        ['--category5-mapping', 'lenient', '--adversarial-reply-mapping', 'locomo'],
        capture(),
      ),
    ).rejects.toThrow('--category5-mapping is the old name of --adversarial-reply-mapping');
    expect(command.usage).toMatch(/--category5-mapping[^\n]*\n?[^\n]*deprecated/);
  });

  it("the current flag's help names where two-option adversarial questions are asked, in each profile's words", () => {
    const help = EXPERIMENT_OPTIONS['adversarial-reply-mapping'].help;
    const asking = benchmarkProfiles().filter((p) => p.adversarialQuestions !== undefined);
    expect(asking.length).toBeGreaterThan(0);
    for (const profile of asking) expect(help).toContain(profile.adversarialQuestions!.help);
    // The flag's own words are the benchmark-neutral ones; LoCoMo's come from its profile.
    expect(help.split('; asked so by')[0]).not.toMatch(/category.?5/i);
  });
});

describe("--question-categories' help", () => {
  it("lists each benchmark's answerable categories from its profile, not LoCoMo's by hand", () => {
    const help = EXPERIMENT_OPTIONS['question-categories'].help;
    const withSubset = benchmarkProfiles().filter((p) => p.overallNames.answerable !== null);
    expect(withSubset.length).toBeGreaterThan(1);
    for (const profile of withSubset) {
      const ids = profile.categories.filter((c) => !c.adversarial).map((c) => c.id);
      expect(help).toContain(`${profile.label} ${ids.join(',')}`);
    }
  });
});
