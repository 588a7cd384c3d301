import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WorkbenchError } from '../../src-shared/errors';
import { errnoCode, errnoReason, fromSystemError } from '../core/system-errors';
import type { CliCommand, CliIO } from './command';
import { terminalSafe } from './output';
import { UsageError } from './command';
import { serveCommand } from './commands/serve';
import { compareCommand } from './commands/compare';
import { experimentCommand } from './commands/experiment';
import { exportCommand } from './commands/export';
import { judgeAuditCommand } from './commands/judge-audit';
import { memoryCheckCommand } from './commands/memory-check';
import { reportCommand } from './commands/report';
import { reproduceCommand } from './commands/reproduce';
import { rescoreCommand } from './commands/rescore';
import { resumeCommand } from './commands/resume';
import { retrieveCommand } from './commands/retrieve';
import { runsCommand } from './commands/runs';
import { scoreCommand } from './commands/score';
import { statsCommand } from './commands/stats';
import { sweepCommand } from './commands/sweep';
import { workerCommand } from './commands/worker';
import { installPunktModel } from '../core/scoring/punktModel';

/**
 * Headless entry point: `npm run -s cli -- <command> [options]`. Commands live in the map below (the
 * contract is in command.ts); adding one (retrieve, experiment, serve, ...) is one import and one
 * entry.
 */

export const commands: Readonly<Record<string, CliCommand>> = {
  stats: statsCommand,
  experiment: experimentCommand,
  retrieve: retrieveCommand,
  runs: runsCommand,
  resume: resumeCommand,
  export: exportCommand,
  report: reportCommand,
  compare: compareCommand,
  reproduce: reproduceCommand,
  rescore: rescoreCommand,
  'judge-audit': judgeAuditCommand,
  score: scoreCommand,
  serve: serveCommand,
  sweep: sweepCommand,
  worker: workerCommand,
  'memory-check': memoryCheckCommand,
};

const PROGRAM = 'cli';

function help(): string {
  const width = Math.max(...Object.keys(commands).map((n) => n.length));
  const list = Object.entries(commands)
    .map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`)
    .join('\n');
  return [
    'Memory Workbench command line',
    '',
    `usage: npm run -s cli -- <command> [options]`,
    '',
    'commands:',
    list,
    '',
    `Run "${PROGRAM} <command> --help" for a command's options.`,
    '',
  ].join('\n');
}

/** node:util parseArgs throws TypeErrors with ERR_PARSE_ARGS_* codes for bad options. */
function isParseArgsError(error: unknown): error is Error {
  return (
    error instanceof Error &&
    'code' in error &&
    typeof error.code === 'string' &&
    error.code.startsWith('ERR_PARSE_ARGS_')
  );
}

/** "export: write /x/out.csv" from a Node system error's syscall and path, for its one line. */
function systemWhat(command: string, error: unknown): string {
  const { syscall, path } = error as { syscall?: unknown; path?: unknown };
  const op = typeof syscall === 'string' ? syscall : 'system call';
  return `${command}: ${op}${typeof path === 'string' ? ` ${path}` : ''} failed`;
}

export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  // Mem0's BLEU-1 tokenises like nltk.word_tokenize when NLTK's English Punkt model is installed.
  installPunktModel();
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr(help());
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout(help());
    return 0;
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) {
    io.stderr(`error: unknown command "${name}" (commands: ${Object.keys(commands).join(', ')})\n`);
    io.stderr(`Run "${PROGRAM} --help" for usage.\n`);
    return 2;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      io.stderr(`error: ${error.message}\n`);
      io.stderr(`Run "${PROGRAM} ${name} --help" for usage.\n`);
      return 2;
    }
    // The environment failed (a full disk, a busy port): one coded line, like any input error.
    const coded =
      error instanceof WorkbenchError ? error : fromSystemError(error, systemWhat(name, error));
    if (coded) {
      io.stderr(`error ${coded.code}: ${coded.message}\n`);
      return 1;
    }
    // A bug, not bad input: still no raw stack unless asked for, but say it is unexpected.
    const message = error instanceof Error ? error.message : String(error);
    if (process.env['WORKBENCH_DEBUG'] && error instanceof Error && error.stack) {
      io.stderr(`error INTERNAL: unexpected failure: ${message}\n${error.stack}\n`);
    } else {
      io.stderr(
        `error INTERNAL: unexpected failure: ${message} (WORKBENCH_DEBUG=1 shows the stack trace)\n`,
      );
    }
    return 1;
  }
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  // `cli export … | head -1`: once the reader has gone, stop printing and finish quietly with the
  // command's own exit status, like other Unix tools (Node ignores SIGPIPE and reports EPIPE).
  const closed = { stdout: false, stderr: false };
  const watch = (name: 'stdout' | 'stderr'): void => {
    process[name].on('error', (error: unknown) => {
      closed[name] = true;
      const code = errnoCode(error) ?? (error as { code?: unknown }).code;
      if (code !== 'EPIPE' && code !== 'ERR_STREAM_DESTROYED' && name === 'stdout') {
        const reason = typeof code === 'string' ? errnoReason(code) : String(error);
        if (!closed.stderr) process.stderr.write(`error IO: cannot write the output: ${reason}\n`);
        process.exitCode = 1;
      }
    });
  };
  watch('stdout');
  watch('stderr');
  const io: CliIO = {
    stdout: (text) => void (closed.stdout || process.stdout.write(terminalSafe(text))),
    stderr: (text) => void (closed.stderr || process.stderr.write(terminalSafe(text))),
  };
  // exitCode, not exit(): lets piped stdout drain (a large --json would otherwise be cut off).
  const code = await runCli(process.argv.slice(2), io);
  // An output failure reported above outranks the command's success.
  if (process.exitCode === undefined || process.exitCode === 0) process.exitCode = code;
}
