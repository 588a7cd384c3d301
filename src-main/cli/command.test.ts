import { describe, expect, it } from 'vitest';
import { defineCommand, type CliIO } from './command';
import { JSON_OPTION, RUNS_DB_OPTIONS } from './options';

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
