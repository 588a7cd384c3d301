import { describe, expect, it } from 'vitest';
import {
  ExperimentConfigSchema,
  PROMPT_STYLES,
  answerProtocolOf,
} from '../../src-shared/experiment';
import { shownDefault, type CliOption } from './command';
import { commands } from './main';
import { experimentRequestFromFlags } from './request';

/**
 * `--help` is written from the option declarations (command.ts): these hold every command's
 * declarations, so a new command or flag is covered without editing this file.
 */

const endpoint = { baseUrl: 'http://127.0.0.1:9/v1', model: 'model' };
/** The schema's defaults, computed here as a run would get them (the oracle, not options.ts's). */
const configs = [
  ExperimentConfigSchema.parse({ datasetPath: 'dataset.json' }),
  ExperimentConfigSchema.parse({
    datasetPath: 'dataset.json',
    answerer: { kind: 'llm', ...endpoint },
    judge: endpoint,
  }),
];
const at = (value: unknown, path: string): unknown =>
  path
    .split('.')
    .reduce<unknown>(
      (v, key) =>
        v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined,
      value,
    );
const schemaDefault = (path: string): unknown =>
  configs.map((c) => at(c, path)).find((v) => v !== undefined);

/** Help as one line: wrapping may break a default across lines. */
const flat = (text: string): string => text.replace(/\s+/g, ' ');

const declared = Object.entries(commands).flatMap(([command, c]) =>
  Object.entries(c.options).map(([flag, option]) => ({ command, flag, option })),
);

describe('CLI help from the option declarations', () => {
  it('shows, for every flag that sets a config field, the config schema default', () => {
    const configFlags = declared.filter((d) => d.option.config !== undefined);
    expect(configFlags.length).toBeGreaterThan(0);
    for (const { command, flag, option } of configFlags) {
      const expected = schemaDefault(option.config as string);
      expect(expected, `${command} --${flag}: ${option.config} has no schema default`).not.toBe(
        undefined,
      );
      expect(shownDefault(option), `${command} --${flag}`).toBe(String(expected));
      expect(flat(commands[command]!.usage), `${command} --${flag}`).toContain(
        `(default: ${String(expected)})`,
      );
    }
  });

  it("sets, for each experiment flag declared with a config field, that field (the declaration's path is the flag's)", () => {
    const options = commands['experiment']!.options;
    for (const [flag, option] of Object.entries(options)) {
      if (option.config === undefined) continue;
      const value = otherValue(option);
      const extra = option.config.startsWith('answerer.')
        ? { answerer: 'llm', 'base-url': endpoint.baseUrl, model: endpoint.model }
        : option.config.startsWith('judge.')
          ? { 'judge-base-url': endpoint.baseUrl, 'judge-model': endpoint.model }
          : {};
      const { config } = experimentRequestFromFlags({
        'memory-allow-remote': false,
        'exclude-no-evidence': false,
        'include-no-evidence': false,
        'skip-invalid': false,
        data: 'd.json',
        ...extra,
        [flag]: value,
      });
      expect(String(at(config, option.config)), `--${flag} ${value}`).toBe(value);
    }
  });

  it('names a default only where a declaration carries one: no help line or prose types it', () => {
    for (const [name, command] of Object.entries(commands)) {
      const shown = Object.values(command.options).filter(
        (o) => o.hidden !== true && shownDefault(o) !== undefined,
      );
      const mentions = command.usage.match(/\bdefault/gi) ?? [];
      expect(mentions.length, `${name} --help: a "default" not from a declaration`).toBe(
        shown.length,
      );
      for (const o of shown)
        expect(flat(command.usage), name).toContain(flat(`(default: ${shownDefault(o)})`));
    }
  });

  it("lists each flag's registry names in help", () => {
    for (const { command, flag, option } of declared) {
      const names = option.choices?.() ?? [];
      const usage = commands[command]!.usage;
      const section = usage.slice(usage.indexOf(`\n  --${flag} `) + 1).split(/\n {2}-/)[0]!;
      for (const name of names) expect(section, `${command} --${flag}`).toContain(name);
    }
  });

  it('names in help every flag a command parses, except the ones kept only for old scripts', () => {
    for (const [name, command] of Object.entries(commands)) {
      expect(command.flags, name).toEqual(Object.keys(command.options));
      for (const [flag, option] of Object.entries(command.options)) {
        expect(new RegExp(`--${flag}\\b`).test(command.usage), `${name} --${flag}`).toBe(
          option.hidden !== true,
        );
      }
    }
  });
});

/** A valid value for the flag other than its default. */
function otherValue(option: CliOption): string {
  const shown = shownDefault(option) as string;
  const choice = option.choices?.().find((c) => c !== shown);
  if (choice !== undefined) return choice;
  const n = Number(shown);
  return Number.isFinite(n) && shown !== '' ? String(n + 1) : `${shown}-other`;
}

describe('--prompt-style, the older name', () => {
  it("says which protocol each style selects, and that mem0's is not Mem0's own prompt", () => {
    const help = flat(commands.experiment.options['prompt-style'].help);
    for (const style of PROMPT_STYLES) {
      const selected = answerProtocolOf({ promptStyle: style });
      expect(selected).toBe(`workbench-${style}`);
      expect(help).toContain('workbench-<style>');
    }
    expect(answerProtocolOf({ promptStyle: 'mem0' })).not.toBe('mem0');
    expect(help).toContain("--prompt-style mem0 is workbench-mem0, not Mem0's own prompt");
    expect(help).toContain('--answer-protocol mem0');
  });
});
