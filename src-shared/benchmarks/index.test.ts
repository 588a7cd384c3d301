import { describe, expect, it } from 'vitest';
import { JUDGE_PROTOCOLS } from '../experiment';
import { isMetricId } from '../metrics';
import { TOYBENCH_PROFILE } from '../../tests/support/registry/toybench.profile';
import {
  DEFAULT_SCHEME,
  allReportFormats,
  validateBenchmarkProfile,
  type BenchmarkProfile,
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
    expect(allSchemeIds()).toEqual(expect.arrayContaining(['official', 'mem0']));
    expect(allSchemeIds()).not.toContain('paper');
    expect(isSchemeId('mem0')).toBe(true);
    expect(isSchemeId('official')).toBe(true);
    expect(isSchemeId('paper')).toBe(false);
    expect(isSchemeId(1)).toBe(false);
    const remove = registerBenchmarkProfile({
      ...TOYBENCH_PROFILE,
      id: 'test-bench',
      schemes: [
        { id: 'official', label: 'test official' },
        { id: 'paper', label: 'test paper' },
      ],
      categories: [{ id: 1, names: { official: 'one', paper: 'uno' }, adversarial: false }],
      reportFormats: [
        { ...TOYBENCH_PROFILE.reportFormats[0], id: 'test-bench', layout: toyLayout(['one']) },
      ],
    });
    try {
      expect(isSchemeId('paper')).toBe(true);
      expect(allSchemeIds()).toContain('paper');
      expect(allReportFormats().map((f) => f.id)).toContain('test-bench');
    } finally {
      remove();
    }
    expect(isSchemeId('paper')).toBe(false);
    expect(allReportFormats().map((f) => f.id)).not.toContain('test-bench');
  });
});

function toyLayout(groups: Array<string | null>, scheme = 'official') {
  return { scheme, groups, metrics: [{ id: 'officialF1', sub: null }], decimals: 1, caption: 'c' };
}

describe("a profile's rules, checked when it is registered", () => {
  const register = (profile: unknown) => () =>
    registerBenchmarkProfile(profile as BenchmarkProfile)();

  it("takes the README's example profile", () => {
    expect(() => validateBenchmarkProfile(TOYBENCH_PROFILE, benchmarkProfiles())).not.toThrow();
  });

  it('refuses a profile whose first scheme is not official, naming the profile and the rule', () => {
    const schemes = [{ id: 'paper', label: 'p' }, ...TOYBENCH_PROFILE.schemes];
    expect(register({ ...TOYBENCH_PROFILE, schemes })).toThrow(
      'benchmark profile "toybench": its first naming scheme must be "official" (got "paper")',
    );
    expect(isSchemeId('paper')).toBe(false);
  });

  it('refuses a profile with no report format', () => {
    expect(register({ ...TOYBENCH_PROFILE, reportFormats: [] })).toThrow(
      /"toybench": lays out no report format/,
    );
  });

  it('refuses a category unnamed in a scheme, or numbered twice', () => {
    const [first, ...rest] = TOYBENCH_PROFILE.categories;
    expect(
      register({
        ...TOYBENCH_PROFILE,
        categories: [{ ...first, names: { official: 'x' } }, ...rest],
      }),
    ).toThrow('category 10 has no name in scheme "short"');
    expect(register({ ...TOYBENCH_PROFILE, categories: [first, first, ...rest] })).toThrow(
      'category 10 is declared twice',
    );
  });

  it("refuses a report layout naming what the profile lacks, or another profile's format id", () => {
    const format = TOYBENCH_PROFILE.reportFormats[0];
    expect(
      register({
        ...TOYBENCH_PROFILE,
        reportFormats: [{ ...format, layout: toyLayout(['nope']) }],
      }),
    ).toThrow(
      'report format "toybench" has a column "nope" that is no category in scheme "official"',
    );
    expect(
      register({
        ...TOYBENCH_PROFILE,
        reportFormats: [{ ...format, layout: toyLayout([null], 'mem0') }],
      }),
    ).toThrow('names categories in scheme "mem0", which the profile does not declare');
    expect(register({ ...TOYBENCH_PROFILE, reportFormats: [{ ...format, id: 'locomo' }] })).toThrow(
      'report format "locomo" is already benchmark "locomo"\'s',
    );
    expect(benchmarkProfiles().map((p) => p.id)).not.toContain('toybench');
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
    // Its own rules were checked at registration; what it names in other registries is here.
    const others = benchmarkProfiles().filter((p) => p !== profile);
    expect(() => validateBenchmarkProfile(profile, others)).not.toThrow();
    expect(profile.schemes[0].id).toBe(DEFAULT_SCHEME);
    for (const category of profile.categories) {
      for (const metric of category.metrics ?? []) expect(isMetricId(metric), metric).toBe(true);
    }
    for (const format of profile.reportFormats) {
      for (const metric of format.layout.metrics)
        expect(isMetricId(metric.id), metric.id).toBe(true);
    }
    expect(JUDGE_PROTOCOLS).toContain(profile.defaultJudgeProtocol);
  });
});
