import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * Issue 34: only the launcher (core/launch) starts or resumes a run. eslint.config.js refuses
 * `startExperiment`/`resumeExperiment` everywhere else, however they are reached (a named import, a
 * re-export, a namespace member, a dynamic import); tests and benchmark scripts use the one seam,
 * core/launch/testSeam.ts. Each case lints a snippet as if it were the file at `file`, with the
 * repository's own config.
 */
const eslint = new ESLint({ cwd: process.cwd() });

async function launcherErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: file });
  const fatal = (result?.messages ?? []).filter((m) => m.fatal);
  expect(fatal).toEqual([]);
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'no-restricted-syntax')
    .map((m) => m.message);
}

const named = (from: string, name = 'startExperiment') =>
  `import { ${name} } from '${from}';\nexport const go = ${name};\n`;

describe('launcher-only lint', () => {
  it.each([
    ['tests/integration/some-run.test.ts', named('../../src-main/core/pipeline/runner')],
    [
      'tests/integration/some-run.test.ts',
      named('../../src-main/core/pipeline/runner', 'resumeExperiment'),
    ],
    ['benchmarks/pipeline.ts', named('../src-main/core/pipeline/runner')],
    ['src-main/core/pipeline/runner.test.ts', named('./runner')],
    ['src-main/core/sweeps/run.ts', named('../pipeline/runner')],
    ['src-main/cli/commands/experiment.ts', named('../../core/pipeline/runner')],
    // Renaming at the import does not hide the name imported.
    [
      'src-main/core/service.ts',
      "import { startExperiment as begin } from './pipeline/runner';\nexport const go = begin;\n",
    ],
    ['src-main/core/pipeline/index.ts', "export { resumeExperiment as resume } from './runner';\n"],
    [
      'src-main/core/reproduce/run.ts',
      "import * as runner from '../pipeline/runner';\nexport const go = runner.startExperiment;\n",
    ],
    [
      'scripts/rerun.ts',
      "export async function go(): Promise<unknown> {\n  const { resumeExperiment } = await import('../src-main/core/pipeline/runner');\n  return resumeExperiment;\n}\n",
    ],
  ])('%s reaching the pipeline entry is refused', async (file, code) => {
    const errors = await launcherErrors(file, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('only core/launch starts or resumes a run');
  });

  it.each([
    ['src-main/core/launch/launch.ts', named('../pipeline/runner')],
    ['src-main/core/launch/launch.ts', named('../pipeline/runner', 'resumeExperiment')],
    [
      'tests/integration/some-run.test.ts',
      named('../../src-main/core/launch/testSeam', 'startRunBypassingLauncher'),
    ],
    [
      'benchmarks/pipeline.ts',
      named('../src-main/core/launch/testSeam', 'resumeRunBypassingLauncher'),
    ],
    ['src-main/core/sweeps/run.ts', named('../launch/launch', 'launchRun')],
  ])('%s is allowed: the launcher, its seam or its entry', async (file, code) => {
    expect(await launcherErrors(file, code)).toEqual([]);
  });
});
