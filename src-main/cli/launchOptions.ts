import type { LaunchCallChoices } from '../core/launch/launch';
import { UsageError } from './command';

/**
 * The flags `experiment` and `resume` share, and the one place they become the launch request's
 * call choices; what each choice then means is the launcher's policy (core/launch/launch.ts).
 */
export const LAUNCH_OPTIONS = {
  'keep-collections': { type: 'boolean', default: false },
  'no-preflight': { type: 'boolean', default: false },
  'no-cache': { type: 'boolean', default: false },
  'cache-only': { type: 'boolean', default: false },
} as const;

type LaunchFlags = Record<keyof typeof LAUNCH_OPTIONS, boolean | undefined>;

/** `--no-preflight`, `--no-cache` and `--cache-only` as the launch's call choices. */
export function launchCallsFromFlags(values: LaunchFlags): Required<LaunchCallChoices> {
  const noCache = values['no-cache'] === true;
  const cacheOnly = values['cache-only'] === true;
  if (noCache && cacheOnly)
    throw new UsageError('--no-cache and --cache-only contradict each other');
  return {
    preflight: values['no-preflight'] !== true,
    responseCache: noCache ? 'off' : cacheOnly ? 'only' : 'on',
  };
}
