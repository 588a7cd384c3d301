import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The core layering rule of eslint.config.js (http → scoring → dataset → collection → embed →
 * memory → answer → pipeline → runs → launch → sweeps → reproduce → the service files) fires on an
 * upward import and stays quiet on a downward one. Each case lints one import line as if it were a
 * file at `file`, with the repository's own config.
 */
const eslint = new ESLint({ cwd: process.cwd() });

async function layeringErrors(file: string, specifier: string): Promise<string[]> {
  const [result] = await eslint.lintText(
    `import type { X } from '${specifier}';\nexport type Y = X;\n`,
    {
      filePath: file,
    },
  );
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'no-restricted-imports')
    .map((m) => m.message);
}

describe('core layering lint', () => {
  it.each([
    ['src-main/core/memory/presets/stm.ts', '../../answer/types', 'core/memory'],
    ['src-main/core/memory/types.ts', '../pipeline/timeout', 'core/memory'],
    ['src-main/core/answer/judge.ts', '../pipeline/timeout', 'core/answer'],
    ['src-main/core/collection/types.ts', '../embed/types', 'core/collection'],
    ['src-main/core/dataset/load.ts', '../collection', 'core/dataset'],
    ['src-main/core/embed/openai.ts', '../memory/types', 'core/embed'],
    ['src-main/core/pipeline/runner.ts', '../runs/queries', 'core/pipeline'],
    ['src-main/core/memory/retrieval/service.ts', '../../designs/engine', 'core/memory/retrieval'],
    ['src-main/core/designs/engine.ts', '../memory/presets/stm', 'core/designs'],
    ['src-main/core/designs/engine.ts', '../memory/registry', 'core/designs'],
    // Every folder is ranked (issue 24 step 8), and the service files sit above them all.
    ['src-main/core/http/retry.ts', '../answer/llm-client', 'core/http'],
    ['src-main/core/scoring/punktModel.ts', '../dataset/load', 'core/scoring'],
    ['src-main/core/runs/queries.ts', '../sweeps/spec', 'core/runs'],
    ['src-main/core/launch/launch.ts', '../sweeps/run', 'core/launch'],
    ['src-main/core/sweeps/run.ts', '../reproduce/packs', 'core/sweeps'],
    ['src-main/core/pipeline/preflight.ts', '../models', 'core/pipeline'],
    ['src-main/core/reproduce/run.ts', '../experiments', 'core/reproduce'],
    ['src-main/core/keys.ts', './pipeline/runner', 'core/ leaf helpers'],
    // The launcher's test seam is for the tests below it, not their source.
    ['src-main/core/pipeline/runner.ts', '../launch/testSeam', 'core/pipeline'],
    ['src-main/core/pipeline/runner.test.ts', '../launch/launch', 'core/pipeline'],
    ['src-main/core/trust.ts', './service', 'core/ leaf helpers'],
  ])('%s importing %s is refused', async (file, specifier, layer) => {
    const errors = await layeringErrors(file, specifier);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`${layer} `);
    expect(errors[0]).toContain('(core layering)');
  });

  it.each([
    ['src-main/core/answer/judge.ts', '../memory/request'],
    ['src-main/core/memory/presets/stm.ts', '../request'],
    ['src-main/core/memory/presets/designed.ts', '../../designs/engine'],
    ['src-main/core/designs/engine.ts', '../memory/retrieval/service'],
    ['src-main/core/runs/readWorkers.ts', '../pipeline/protocol'],
    ['src-main/core/pipeline/runSample.ts', '../memory/registry'],
    ['src-main/core/embed/openai.ts', '../collection/embedder'],
    ['src-main/core/answer/llm-client.ts', '../http/pricing'],
    ['src-main/core/launch/launch.ts', '../pipeline/plan'],
    ['src-main/core/sweeps/run.ts', '../launch/launch'],
    ['src-main/core/reproduce/run.ts', '../sweeps/spec'],
    ['src-main/core/runs/queries.ts', '../keys'],
    // The named exceptions in eslint.config.js (LAYER_EXCEPTIONS), until those modules move.
    ['src-main/core/memory/types.ts', '../answer/llm-client'],
    ['src-main/core/pipeline/runner.ts', '../runs/store'],
    ['src-main/core/pipeline/runner.test.ts', '../runs/store'],
    // Tests below core/launch start runs through its one seam.
    ['src-main/core/pipeline/runner.test.ts', '../launch/testSeam'],
    ['src-main/core/runs/export.test.ts', '../launch/testSeam'],
  ])('%s importing %s is allowed', async (file, specifier) => {
    expect(await layeringErrors(file, specifier)).toEqual([]);
  });

  it('keeps the engine-wide rules in layered folders (no electron in core)', async () => {
    const errors = await layeringErrors('src-main/core/memory/types.ts', 'electron');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('only src-main/app may import electron');
  });
});
