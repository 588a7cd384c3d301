import { realpathSync, statSync } from 'node:fs';
import { WorkbenchError } from '../../src-shared/errors';
import { fromSystemError } from '../core/system-errors';

/**
 * The `--dataset-dir` option of the commands that take configs from the network (`serve`, `worker`):
 * the folders whose files and unix sockets those configs may name (core/trust.ts). Repeatable.
 */
export const DATASET_DIR_OPTION = { type: 'string', multiple: true } as const;

/**
 * Each --dataset-dir as its real path, checked now so a typo fails at start, not on first use.
 * `command` starts the messages (`serve: --dataset-dir …`).
 */
export function datasetDirsFromArgs(
  dirs: readonly string[] | undefined,
  command: string,
): string[] {
  return (dirs ?? []).map((dir) => existingFolder(dir, command));
}

function existingFolder(dir: string, command: string): string {
  let real: string;
  try {
    real = realpathSync(dir);
  } catch (error) {
    throw fromSystemError(error, `${command}: --dataset-dir ${dir}`) ?? error;
  }
  if (!statSync(real).isDirectory()) {
    throw new WorkbenchError('INVALID_INPUT', `${command}: --dataset-dir ${dir} is not a folder`);
  }
  return real;
}
