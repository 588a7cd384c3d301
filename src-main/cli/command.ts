import { parseArgs } from 'node:util';
import { helpList } from './helpList';

/**
 * The contract between the CLI dispatcher (main.ts) and its commands, the one place a command's
 * arguments are parsed, and the one place its `--help` is written: from the option declarations,
 * so a default or a list in help is the one the engine uses. Kept apart from main.ts so commands
 * never import the entry point (which would be an import cycle).
 */

/** Where a command writes; injected so tests can capture output without spawning a process. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** A default shown in help, read where the engine reads it (a constant, the config schema). */
type Shown = string | number;

/**
 * One option: what node:util parseArgs parses (type, multiple, short, default) and what `--help`
 * says of it. Help never types a default or a registry's names: `absent` and `choices` carry them.
 */
export interface CliOption {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
  /** parseArgs' own default: the parser fills it in, and help shows it (strings) as the default. */
  default?: string | boolean;
  /** The value's placeholder, `<file>`; absent for booleans, `<a|b>` from `choices` when short. */
  value?: string;
  /** What the flag does, wrapped under the description column. Names no default and no list. */
  help: string;
  /** What the engine does without the flag: a constant it uses, or `configDefault(path)`. */
  absent?: Shown | (() => Shown);
  /** The registry whose names the flag takes: listed in help, never typed. */
  choices?: () => readonly string[];
  /** The ExperimentConfig field (dotted path) the flag sets: its help default is the schema's. */
  config?: string;
  /** Accepted so old scripts keep working; not advertised. */
  hidden?: true;
  /**
   * An old name of the flag named here: still read, as that flag, with a warning on stderr that
   * says so (its help should say so too).
   */
  deprecatedFor?: string;
}

export type OptionsDecl = Readonly<Record<string, CliOption>>;

export interface CliCommand {
  /** One line for the command list. */
  summary: string;
  /** Full help text for `<command> --help`, generated from the declarations on demand. */
  readonly usage: string;
  /** Every option it takes, by long name (`-h/--help` included). */
  flags: readonly string[];
  /** Its option declarations (`help` included), for the tests that hold help to them. */
  options: OptionsDecl;
  /** Receives the arguments after the command name; returns the exit code. */
  run(args: string[], io: CliIO): Promise<number>;
}

/** Bad command-line usage: the dispatcher prints it with a hint and exits with code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** `-h/--help`: every command takes it and answers with its usage. */
const HELP_OPTION = {
  help: { type: 'boolean', short: 'h', default: false, help: 'show this help' },
} as const satisfies OptionsDecl;

/** A flag's value as a positive integer; a bad one is a usage error naming the flag. */
export function positiveIntFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`${flag} must be a positive integer (got "${value}")`);
  return n;
}

type ParserConfig<O extends OptionsDecl> = {
  args: string[];
  allowPositionals: true;
  strict: true;
  options: O & typeof HELP_OPTION;
};

/** What a command's `run` receives: node:util parseArgs' values (typed by its options) and positionals. */
export type ParsedArgs<O extends OptionsDecl> = ReturnType<typeof parseArgs<ParserConfig<O>>>;

/** The values a command with options O receives (request.ts reads option groups through it). */
export type FlagValues<O extends OptionsDecl> = Omit<ParsedArgs<O>['values'], 'help'>;

export interface CommandSpec<O extends OptionsDecl> {
  summary: string;
  /** The usage lines: `usage: npm run -s cli -- <name> ...` (more forms on their own lines). */
  usage: string;
  /** What the command does, in prose; names no default and no list (the options carry them). */
  description: string;
  /** The command's options; `-h/--help` is added. Unknown options are usage errors (strict). */
  options: O;
  /** The heading over the options; default "options". */
  optionsHeading?: string;
  /** Prose after the options: exit codes, an example. */
  epilogue?: string;
  /** false: any positional argument is a usage error (parseArgs' own message); default true. */
  positionals?: boolean;
  run(parsed: ParsedArgs<O>, io: CliIO): Promise<number>;
}

/** The help column: options' text starts here, as every command's help always had it. */
const COLUMN = 28;
const WIDTH = 100;

/** Words wrapped to lines of at most `width`, the first `first` columns shorter. */
function wrap(text: string, width: number, first = width): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const limit = lines.length === 0 ? first : width;
    if (line !== '' && line.length + 1 + word.length > limit) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** The default help shows for an option, if it has one. */
export function shownDefault(option: CliOption): string | undefined {
  const { absent } = option;
  if (absent !== undefined) return String(typeof absent === 'function' ? absent() : absent);
  return option.type === 'string' && typeof option.default === 'string'
    ? option.default
    : undefined;
}

/** `--name <value>` as help writes it (`-h, --help` for a short one). */
function flagColumn(name: string, option: CliOption): string {
  const short = option.short !== undefined ? `-${option.short}, ` : '';
  if (option.type === 'boolean') return `${short}--${name}`;
  const names = option.choices?.();
  const value =
    option.value ??
    (names !== undefined && names.join('|').length <= 24 ? `<${names.join('|')}>` : '<value>');
  return `${short}--${name} ${value}`;
}

/** One option's help: its flag, its line, its default and, when long, its registry's names. */
export function optionHelp(name: string, option: CliOption): string {
  const flag = `  ${flagColumn(name, option)}`;
  const shown = shownDefault(option);
  const text = `${option.help}${shown !== undefined ? ` (default: ${shown})` : ''}`;
  const names = option.choices?.();
  const listed = names !== undefined && !flag.includes(`<${names.join('|')}>`);
  const full = listed ? `${text}; one of:` : text;
  // A long flag starts its text two spaces after it, as the hand-written help did.
  const start = flag.length + 2 > COLUMN ? flag.length + 2 : COLUMN;
  const [head = '', ...rest] = wrap(full, WIDTH - COLUMN, WIDTH - start);
  const pad = ' '.repeat(COLUMN);
  const lines = [`${flag.padEnd(start - 2)}  ${head}`, ...rest.map((l) => pad + l)];
  if (listed) lines.push(helpList(names, COLUMN, WIDTH));
  return lines.join('\n');
}

/** What a command's help is written from. */
type HelpSpec = Pick<
  CommandSpec<OptionsDecl>,
  'usage' | 'description' | 'options' | 'optionsHeading' | 'epilogue'
>;

/** A command's `--help`: usage, description, each advertised option, then the epilogue. */
export function renderUsage(spec: HelpSpec): string {
  const all: OptionsDecl = { ...spec.options, ...HELP_OPTION };
  const options = Object.entries(all)
    .filter(([, option]) => option.hidden !== true)
    .map(([name, option]) => optionHelp(name, option));
  const parts = [
    spec.usage.trimEnd(),
    spec.description.replace(/^\n+|\s+$/g, ''),
    `${spec.optionsHeading ?? 'options'}:\n${options.join('\n')}`,
    ...(spec.epilogue !== undefined ? [spec.epilogue.replace(/^\n+|\s+$/g, '')] : []),
  ];
  return `${parts.join('\n\n')}\n`;
}

/** The declarations as parseArgs takes them: its own fields only. */
function parserOptions(
  options: OptionsDecl,
): NonNullable<Parameters<typeof parseArgs>[0]>['options'] {
  return Object.fromEntries(
    Object.entries(options).map(([name, o]) => [
      name,
      {
        type: o.type,
        ...(o.multiple !== undefined ? { multiple: o.multiple } : {}),
        ...(o.short !== undefined ? { short: o.short } : {}),
        ...(o.default !== undefined ? { default: o.default } : {}),
      },
    ]),
  );
}

/** Each old flag name given reads as its current one (`deprecatedFor`), with a warning. */
function readDeprecatedNames(
  options: OptionsDecl,
  values: Record<string, unknown>,
  io: CliIO,
): void {
  for (const [name, option] of Object.entries(options)) {
    const current = option.deprecatedFor;
    if (current === undefined || values[name] === undefined) continue;
    if (values[current] !== undefined)
      throw new UsageError(`--${name} is the old name of --${current}: give one of them`);
    io.stderr(`warning: --${name} is deprecated: use --${current}\n`);
    values[current] = values[name];
    delete values[name];
  }
}

/**
 * A command whose arguments are parsed strictly (positionals allowed) and whose `--help` prints its
 * usage, so each command holds only what is its own: options, checks and output.
 */
export function defineCommand<const O extends OptionsDecl>(spec: CommandSpec<O>): CliCommand {
  const all = { ...spec.options, ...HELP_OPTION };
  return {
    summary: spec.summary,
    get usage() {
      return renderUsage(spec);
    },
    flags: Object.keys(all),
    options: all,
    async run(args, io) {
      const parsed = parseArgs({
        args,
        allowPositionals: true,
        strict: true,
        options: parserOptions(all),
      }) as ParsedArgs<O>;
      const [extra] = parsed.positionals;
      // In the words of parseArgs' own refusal (allowPositionals: false), before --help as it is.
      if (spec.positionals === false && extra !== undefined)
        throw new UsageError(
          `Unexpected argument '${extra}'. This command does not take positional arguments`,
        );
      if ((parsed.values as { help?: boolean }).help === true) {
        io.stdout(renderUsage(spec));
        return 0;
      }
      readDeprecatedNames(all, parsed.values as Record<string, unknown>, io);
      return spec.run(parsed, io);
    },
  };
}
