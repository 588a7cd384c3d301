import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * Issue 34 item 3, "no silent LoCoMo": where rules differ by benchmark, a function takes the
 * profile as a required argument and each caller passes the run's own. The repository's lint
 * config refuses a parameter or destructured prop that defaults to a benchmark profile constant
 * (`LOCOMO_PROFILE`, `LONGMEMEVAL_PROFILE`, `BEAM_PROFILE`, any `*_PROFILE`) in non-test source.
 */
const eslint = new ESLint({ cwd: process.cwd() });

async function restricted(file: string, text: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: file });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'no-restricted-syntax')
    .map((m) => m.message);
}

const header =
  "import { LOCOMO_PROFILE, BEAM_PROFILE, type BenchmarkProfile } from './benchmarks';\n";

describe('no benchmark profile as a default', () => {
  it.each([
    [
      'a parameter',
      'src-shared/sample.ts',
      'export function f(profile: BenchmarkProfile = LOCOMO_PROFILE): string {\n  return profile.id;\n}\n',
    ],
    [
      "another benchmark's profile",
      'src-main/core/runs/sample.ts',
      'export const f = (p: BenchmarkProfile = BEAM_PROFILE): string => p.id;\n',
    ],
    [
      'a destructured prop',
      'src-renderer/src/views/sample.tsx',
      'export function F({ profile = LOCOMO_PROFILE }: { profile?: BenchmarkProfile }): string {\n  return profile.id;\n}\n',
    ],
  ])('refuses %s', async (_what, file, body) => {
    const errors = await restricted(file, header + body);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('a benchmark profile is a required argument');
  });

  it('lets a function take the profile as a required argument, and a test use a default', async () => {
    const required =
      'export function f(profile: BenchmarkProfile): string {\n  return profile.id;\n}\n';
    expect(await restricted('src-shared/sample.ts', header + required)).toEqual([]);
    const defaulted =
      'export function f(profile: BenchmarkProfile = LOCOMO_PROFILE): string {\n  return profile.id;\n}\n';
    expect(await restricted('src-shared/sample.test.ts', header + defaulted)).toEqual([]);
  });
});
