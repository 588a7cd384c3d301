import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from './command';
import { EXPERIMENT_OPTIONS, LAUNCH_OPTIONS } from './options';
import { experimentRequestFromFlags, launchCallsFromFlags } from './request';

const calls = (args: string[]) =>
  launchCallsFromFlags(parseArgs({ args, options: LAUNCH_OPTIONS, strict: true }).values);

describe('launch flags', () => {
  it('leave the launch policy its defaults: no flag, no choice of their own', () => {
    expect(calls([])).toEqual({});
  });

  it('turn --no-preflight, --no-cache and --cache-only into the call choices', () => {
    expect(calls(['--no-preflight'])).toEqual({ preflight: false });
    expect(calls(['--no-cache'])).toEqual({ responseCache: 'off' });
    // The launcher leaves the preflight out of a replay.
    expect(calls(['--cache-only'])).toEqual({ responseCache: 'only' });
    expect(calls(['--no-preflight', '--no-cache'])).toEqual({
      preflight: false,
      responseCache: 'off',
    });
  });

  it('refuse --no-cache with --cache-only as a usage error', () => {
    expect(() => calls(['--no-cache', '--cache-only'])).toThrow(
      new UsageError('--no-cache and --cache-only contradict each other'),
    );
  });
});

describe('experiment flags', () => {
  const dir = mkdtempSync(join(tmpdir(), 'workbench-request-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const request = (args: string[]) =>
    experimentRequestFromFlags(
      parseArgs({ args, options: EXPERIMENT_OPTIONS, strict: true }).values,
    );

  it('override a --config file field by field, and a new --preset starts from its defaults', () => {
    const file = join(dir, 'config.json');
    writeFileSync(
      file,
      JSON.stringify({
        datasetPath: 'data.json',
        seed: 7,
        retrieval: { topK: 5, contextWords: 100 },
        memory: { preset: 'text', config: { bogus: true } },
      }),
    );
    const { config, identity } = request([
      '--config',
      file,
      '--top-k',
      '3',
      '--preset',
      'hybrid',
      '--tag',
      'a',
      '--tag',
      'b',
    ]);
    expect(config.datasetPath).toBe(resolve('data.json'));
    expect(config.seed).toBe(7);
    expect(config.retrieval).toMatchObject({ topK: 3, contextWords: 100 });
    // text's config would not validate as hybrid's: the flag drops it.
    expect(config.memory.preset).toBe('hybrid');
    expect(identity).toMatchObject({ tags: ['a', 'b'] });
  });

  it('name the flag a bad value came from', () => {
    expect(() => request(['--data', 'd.json', '--question-categories', '1,x'])).toThrow(
      new UsageError(
        '--question-categories must be positive category numbers separated by commas (got "1,x")',
      ),
    );
    expect(() => request(['--data', 'd.json', '--model', 'm'])).toThrow(
      new UsageError('--model needs --answerer llm'),
    );
    expect(() => request([])).toThrow(new UsageError('experiment needs --data <file>'));
  });
});
