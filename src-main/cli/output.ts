import { writeFileSync } from 'node:fs';
import { fromSystemError } from '../core/system-errors';
import type { CliIO } from './command';

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
