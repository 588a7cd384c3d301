import { describe, expect, it } from 'vitest';
import { JUDGE_PROTOCOLS } from '../experiment';
import { isMetricId } from '../metrics';
import {
  DEFAULT_SCHEME,
  LOCOMO_PROFILE,
  LONGMEMEVAL_PROFILE,
  allSchemeIds,
  benchmarkProfile,
  benchmarkProfiles,
  isSchemeId,
  registerBenchmarkProfile,
  schemeOptions,
} from './index';

describe('naming schemes from the profile', () => {
  it('offers LoCoMo its two schemes and LongMemEval only its own', () => {
    expect(schemeOptions(LOCOMO_PROFILE)).toEqual([
      { value: 'official', label: 'official LoCoMo' },
      { value: 'mem0', label: 'Mem0 paper' },
    ]);
    expect(schemeOptions(LONGMEMEVAL_PROFILE)).toEqual([
      { value: 'official', label: 'LongMemEval paper' },
    ]);
    expect(DEFAULT_SCHEME).toBe(LOCOMO_PROFILE.schemes[0]!.id);
    expect(DEFAULT_SCHEME).toBe(LONGMEMEVAL_PROFILE.schemes[0]!.id);
  });

  it('accepts a scheme any registered profile declares, and only those', () => {
    // Built-ins first, in registration order; a later profile's schemes may follow.
    expect(allSchemeIds().slice(0, 2)).toEqual(['official', 'mem0']);
    expect(allSchemeIds()).not.toContain('paper');
    expect(isSchemeId('mem0')).toBe(true);
    expect(isSchemeId('official')).toBe(true);
    expect(isSchemeId('paper')).toBe(false);
    expect(isSchemeId(1)).toBe(false);
    const remove = registerBenchmarkProfile({
      id: 'test-bench',
      label: 'Test bench',
      schemes: [{ id: 'paper', label: 'test paper' }],
      categories: [{ id: 1, names: { paper: 'one' }, adversarial: false }],
      defaultJudgeProtocol: 'mem0',
      reportFormats: [],
    });
    try {
      expect(isSchemeId('paper')).toBe(true);
      expect(allSchemeIds()).toContain('paper');
    } finally {
      remove();
    }
    expect(isSchemeId('paper')).toBe(false);
  });
});

/**
 * The profile registry's contract: every registered profile is complete enough for what reads it
 * (category names in every scheme, the judge it defaults to, its metrics, its reports). Tests about
 * one profile assert that profile; this one walks them all.
 */
describe('benchmark profile registry', () => {
  it('holds LoCoMo first, then every profile once by its id', () => {
    const all = benchmarkProfiles();
    expect(all[0]).toBe(LOCOMO_PROFILE);
    expect(all).toContain(LONGMEMEVAL_PROFILE);
    expect(new Set(all.map((p) => p.id)).size).toBe(all.length);
    for (const p of all) expect(benchmarkProfile(p.id)).toBe(p);
  });

  it.each(benchmarkProfiles().map((p) => [p.id, p] as const))('%s is complete', (_, profile) => {
    expect(profile.label.trim()).not.toBe('');
    // Views open on DEFAULT_SCHEME before they know the dataset: every profile's first scheme.
    expect(profile.schemes[0]?.id).toBe(DEFAULT_SCHEME);
    expect(profile.categories.length).toBeGreaterThan(0);
    const ids = profile.categories.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const category of profile.categories) {
      for (const scheme of profile.schemes) {
        expect(category.names[scheme.id]?.trim(), `${category.id} in ${scheme.id}`).toBeTruthy();
      }
      for (const metric of category.metrics ?? []) expect(isMetricId(metric), metric).toBe(true);
    }
    expect(JUDGE_PROTOCOLS).toContain(profile.defaultJudgeProtocol);
    expect(profile.reportFormats.length).toBeGreaterThan(0);
  });
});
