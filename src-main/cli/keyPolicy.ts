import { API_KEY_ENV_PATTERN } from '../../src-shared/models';
import { KeyEnvPolicy } from '../core/keys';
import { UsageError } from './command';

/** The `--allow-key-env` option every command that reads API keys takes (repeatable). */
export const ALLOW_KEY_ENV_OPTION = { type: 'string', multiple: true } as const;

/**
 * The key policy for a command: key-like names, plus the ones declared with `--allow-key-env`.
 * `verb` starts the hint in errors ("start serve with --allow-key-env HOME").
 */
export function keyPolicyFromArgs(
  declared: readonly string[] | undefined,
  verb: string,
): KeyEnvPolicy {
  for (const name of declared ?? []) {
    if (!API_KEY_ENV_PATTERN.test(name)) {
      throw new UsageError(
        `--allow-key-env ${JSON.stringify(name)}: must be an environment variable name (A-Z, 0-9 and _)`,
      );
    }
  }
  return new KeyEnvPolicy({
    allow: declared ?? [],
    howToAllow: (name) => `${verb} --allow-key-env ${name}`,
  });
}
