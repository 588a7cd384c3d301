/**
 * The contract between the CLI dispatcher (main.ts) and its commands. Kept apart from main.ts so
 * commands never import the entry point (which would be an import cycle).
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
  /** Receives the arguments after the command name; returns the exit code. */
  run(args: string[], io: CliIO): Promise<number>;
}

/** Bad command-line usage: the dispatcher prints it with a hint and exits with code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
