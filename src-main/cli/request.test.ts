import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { UsageError } from './command';
import { LAUNCH_OPTIONS } from './options';
import { launchCallsFromFlags } from './request';

const calls = (args: string[]) =>
  launchCallsFromFlags(parseArgs({ args, options: LAUNCH_OPTIONS, strict: true }).values);

describe('launch flags', () => {
  it('leave the launch policy its defaults: preflight, response cache on', () => {
    expect(calls([])).toEqual({ preflight: true, responseCache: 'on' });
  });

  it('turn --no-preflight, --no-cache and --cache-only into the call choices', () => {
    expect(calls(['--no-preflight'])).toEqual({ preflight: false, responseCache: 'on' });
    expect(calls(['--no-cache'])).toEqual({ preflight: true, responseCache: 'off' });
    // Asked for, the preflight still is; the launcher leaves it out of a replay.
    expect(calls(['--cache-only'])).toEqual({ preflight: true, responseCache: 'only' });
  });

  it('refuse --no-cache with --cache-only as a usage error', () => {
    expect(() => calls(['--no-cache', '--cache-only'])).toThrow(
      new UsageError('--no-cache and --cache-only contradict each other'),
    );
  });
});
