import { parseArgs, type ParseArgsConfig } from 'node:util';

/**
 * The contract between the CLI dispatcher (main.ts) and its commands, and the one place a command's
 * arguments are parsed. Kept apart from main.ts so commands never import the entry point (which
 * would be an import cycle).
 */

/** Where a command writes; injected so tests can capture output without spawning a process. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
}

export interface CliCommand {
  /** One line for the command list. */
  summary: string;
  /** Full help text for `<command> --help`. */
  usage: string;
  /** Every option it takes, by long name (`-h/--help` included), so a test can hold usage to them. */
  flags: readonly string[];
  /** Receives the arguments after the command name; returns the exit code. */
  run(args: string[], io: CliIO): Promise<number>;
}

/** Bad command-line usage: the dispatcher prints it with a hint and exits with code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

/** `-h/--help`: every command takes it and answers with its usage. */
const HELP_OPTION = { help: { type: 'boolean', short: 'h', default: false } } as const;

/** A flag's value as a positive integer; a bad one is a usage error naming the flag. */
export function positiveIntFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`${flag} must be a positive integer (got "${value}")`);
  return n;
}

type ParserConfig<O extends OptionsConfig> = {
  args: string[];
  allowPositionals: true;
  strict: true;
  options: O & typeof HELP_OPTION;
};

/** What a command's `run` receives: node:util parseArgs' values (typed by its options) and positionals. */
export type ParsedArgs<O extends OptionsConfig> = ReturnType<typeof parseArgs<ParserConfig<O>>>;

/** The values a command with options O receives (request.ts reads option groups through it). */
export type FlagValues<O extends OptionsConfig> = Omit<ParsedArgs<O>['values'], 'help'>;

export interface CommandSpec<O extends OptionsConfig> {
  summary: string;
  usage: string;
  /** The command's options; `-h/--help` is added. Unknown options are usage errors (strict). */
  options: O;
  /** false: any positional argument is a usage error (parseArgs' own message); default true. */
  positionals?: boolean;
  run(parsed: ParsedArgs<O>, io: CliIO): Promise<number>;
}

/**
 * A command whose arguments are parsed strictly (positionals allowed) and whose `--help` prints its
 * usage, so each command holds only what is its own: options, checks and output.
 */
export function defineCommand<const O extends OptionsConfig>(spec: CommandSpec<O>): CliCommand {
  return {
    summary: spec.summary,
    usage: spec.usage,
    flags: Object.keys({ ...spec.options, ...HELP_OPTION }),
    async run(args, io) {
      const config: ParserConfig<O> = {
        args,
        allowPositionals: true,
        strict: true,
        options: { ...spec.options, ...HELP_OPTION },
      };
      const parsed = parseArgs(config);
      const [extra] = parsed.positionals;
      // In the words of parseArgs' own refusal (allowPositionals: false), before --help as it is.
      if (spec.positionals === false && extra !== undefined)
        throw new UsageError(
          `Unexpected argument '${extra}'. This command does not take positional arguments`,
        );
      if ((parsed.values as { help?: boolean }).help === true) {
        io.stdout(spec.usage);
        return 0;
      }
      return spec.run(parsed, io);
    },
  };
}
