import { writeFileSync } from 'node:fs';
import { fromSystemError } from '../core/system-errors';
import type { CliIO } from './command';

/**
 * Every string the CLI prints passes here: control characters (ESC, CR, DEL, C1, bidi overrides)
 * from a run name, a dataset, a service's reply or a runs DB are shown as `\u001b`, never sent to
 * the terminal. `printable` is for one value in a line or a table cell (newline and tab escaped
 * too, so a value cannot forge a line); `terminalSafe` is for whole output (main.ts applies it to
 * stdout and stderr), which keeps its own newlines, tabs and CRLF line ends (CSV).
 */
const CELL_CONTROLS = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
const STREAM_CONTROLS = /(?!\r\n|\n|\t)[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

// `\u001b` is also how JSON escapes it, so --json output stays valid JSON.
const escaped = (c: string): string =>
  `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`;

export function printable(text: string): string {
  return text.replace(CELL_CONTROLS, escaped);
}

export function terminalSafe(text: string): string {
  return text.replace(STREAM_CONTROLS, escaped);
}

/** A command's document (`--out <file>`), or stdout without --out; `command` starts the messages. */
export function writeOutput(io: CliIO, out: string | undefined, text: string, command: string) {
  if (out === undefined) {
    io.stdout(text);
    return;
  }
  try {
    writeFileSync(out, text);
  } catch (error) {
    throw fromSystemError(error, `${command}: cannot write ${out}`) ?? error;
  }
  io.stderr(`wrote ${out}\n`);
}
