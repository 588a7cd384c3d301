import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { WorkbenchError } from '../../src-shared/errors';
import { UsageError, positiveIntFlag } from './command';

/**
 * The judge flags `experiment` and `score` share, and the one place they become a judge config
 * (the schema checks it where it is used); `rescore` reads `--judge-protocol-file` here too.
 */
export const JUDGE_OPTIONS = {
  'judge-base-url': { type: 'string' },
  'judge-model': { type: 'string' },
  'judge-repeats': { type: 'string' },
  'judge-api-key-env': { type: 'string' },
  'judge-protocol': { type: 'string' },
  'judge-protocol-file': { type: 'string' },
} as const;

type JudgeFlagValues = Partial<Record<keyof typeof JUDGE_OPTIONS, string | undefined>>;

/** `--judge-protocol-file`: the template as a custom protocol named after the file. */
export function readJudgeProtocolFile(file: string): Record<string, unknown> {
  let template: string;
  try {
    template = readFileSync(file, 'utf8');
  } catch (error) {
    throw new WorkbenchError(
      'NOT_FOUND',
      `judge protocol file ${file}: cannot read it (${(error as Error).message})`,
      { where: file },
    );
  }
  const name = basename(file)
    .replace(/\.[^.]*$/, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 64);
  return { name: name === '' ? 'custom' : name, template };
}

/** `--judge-protocol` or `--judge-protocol-file` as the judge config's `protocol`. */
export function judgeProtocolFlags(
  name: string | undefined,
  file: string | undefined,
): { protocol?: unknown } {
  if (name !== undefined && file !== undefined) {
    throw new UsageError('give --judge-protocol or --judge-protocol-file, not both');
  }
  if (file !== undefined) return { protocol: readJudgeProtocolFile(file) };
  return name !== undefined ? { protocol: name } : {};
}

/**
 * The judge flags over `fromFile` (a config file's `judge`), or undefined when none is given:
 * endpoint, model and key variable, the protocol, and `--judge-repeats` as a positive integer.
 */
export function judgeFlags(
  values: JudgeFlagValues,
  fromFile: unknown,
): Record<string, unknown> | undefined {
  const flags: Array<[keyof JudgeFlagValues, string]> = [
    ['judge-base-url', 'baseUrl'],
    ['judge-model', 'model'],
    ['judge-api-key-env', 'apiKeyEnv'],
  ];
  const given = flags.filter(([flag]) => values[flag] !== undefined);
  const file = values['judge-protocol-file'];
  const protocolGiven = values['judge-protocol'] !== undefined || file !== undefined;
  if (given.length === 0 && values['judge-repeats'] === undefined && !protocolGiven) {
    return undefined;
  }
  const out: Record<string, unknown> =
    fromFile !== null && typeof fromFile === 'object' && !Array.isArray(fromFile)
      ? { ...fromFile }
      : {};
  for (const [flag, field] of given) out[field] = values[flag];
  Object.assign(out, judgeProtocolFlags(values['judge-protocol'], file));
  const repeats = positiveIntFlag('--judge-repeats', values['judge-repeats']);
  if (repeats !== undefined) out['repeats'] = repeats;
  return out;
}
