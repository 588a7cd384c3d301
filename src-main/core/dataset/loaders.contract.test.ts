import { describe, expect, it } from 'vitest';
import { benchmarkProfile } from '../../../src-shared/benchmarks';
import { createDefaultRegistry } from './load';

/**
 * The loader registry's contract, walked over whatever `createDefaultRegistry` registers: a
 * loader's `name` is the `format` a run's manifest records and names the benchmark profile that
 * scores and names its categories, so every loader needs one; and it says what it reads.
 */
describe('dataset loader registry', () => {
  const loaders = createDefaultRegistry().list();

  it('registers LoCoMo, each loader once by its name', () => {
    expect(loaders.map((l) => l.name)).toContain('locomo');
    expect(new Set(loaders.map((l) => l.name)).size).toBe(loaders.length);
  });

  it.each(loaders.map((l) => [l.name, l] as const))(
    '%s has a profile and a description',
    (name, loader) => {
      expect(benchmarkProfile(name).id).toBe(name);
      expect(loader.description.trim()).not.toBe('');
      // A loader's sniff must not claim what is plainly no dataset.
      expect(loader.detect({})).toBe(false);
    },
  );
});
