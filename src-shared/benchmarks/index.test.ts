import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SCHEME,
  LOCOMO_PROFILE,
  LONGMEMEVAL_PROFILE,
  allSchemeIds,
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
    expect(allSchemeIds()).toEqual(['official', 'mem0']);
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
      expect(allSchemeIds()).toEqual(['official', 'mem0', 'paper']);
    } finally {
      remove();
    }
    expect(isSchemeId('paper')).toBe(false);
  });
});
