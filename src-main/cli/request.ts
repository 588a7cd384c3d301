import { readFileSync } from 'node:fs';
import {
  DEFAULT_SCHEME,
  allSchemeIds,
  isSchemeId,
  type SchemeId,
} from '../../src-shared/benchmarks';
import { WorkbenchError } from '../../src-shared/errors';
import { UsageError } from './command';

/** `--scheme`: the category naming scheme, official LoCoMo's by default. */
export function parseScheme(value: string | undefined): SchemeId {
  const scheme = value ?? DEFAULT_SCHEME;
  if (!isSchemeId(scheme)) {
    throw new UsageError(`--scheme must be one of ${allSchemeIds().join(', ')} (got "${scheme}")`);
  }
  return scheme;
}

/** A JSON file a flag names; `what` starts the error messages ("config file", "predictions file"). */
export function readJsonFile(file: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new WorkbenchError(
      'NOT_FOUND',
      `${what} ${file}: cannot read it (${(error as Error).message})`,
      { where: file },
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `${what} ${file}: not valid JSON (${(error as Error).message})`,
      { where: file },
    );
  }
}

/** Reads a config file; a bad one fails naming the file and the field. */
export function readConfigFile(file: string): Record<string, unknown> {
  const value = readJsonFile(file, 'config file');
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new WorkbenchError('INVALID_INPUT', `config file ${file}: must hold a JSON object`, {
      where: file,
    });
  }
  return value as Record<string, unknown>;
}
