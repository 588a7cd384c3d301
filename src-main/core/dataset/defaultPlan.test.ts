import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ExperimentConfigSchema } from '../../../src-shared/experiment';
import { loadDatasetFile } from './load';
import { planTests } from './testPlan';

/** Issue 11 item 4: a run with the default config asks every question of the file. */
async function plannedByDefault(file: string): Promise<{ all: number; answerable: number }> {
  const config = ExperimentConfigSchema.parse({ datasetPath: file });
  const { samples } = await loadDatasetFile(file);
  let all = 0;
  let answerable = 0;
  for (const sample of samples) {
    const plan = planTests(sample, { includeNoEvidence: config.includeNoEvidence });
    all += plan.totalQuestions;
    for (const q of plan.questionOrder) if ((sample.qa[q]?.category ?? 5) !== 5) answerable++;
  }
  return { all, answerable };
}

// Beside the main checkout (../shared) or beside the worktrees' folder (../../shared).
const real =
  ['../../../../shared/datasets/locomo10.json', '../../../../../shared/datasets/locomo10.json']
    .map((path) => fileURLToPath(new URL(path, import.meta.url)))
    .find((path) => existsSync(path)) ?? 'locomo10.json (not found)';

describe('the default test plan', () => {
  it('asks the questions without usable evidence too (mini fixture: 8 of 8)', async () => {
    const mini = fileURLToPath(
      new URL('../../../tests/fixtures/locomo/mini.json', import.meta.url),
    );
    // mini-1 holds 8 questions, 2 of them with no usable evidence ("D" and []).
    expect((await plannedByDefault(mini)).all).toBe(8);
  });

  it.skipIf(!existsSync(real))(
    'asks all 1,986 LoCoMo questions, 1,540 in categories 1-4',
    async () => {
      expect(await plannedByDefault(real)).toEqual({ all: 1986, answerable: 1540 });
    },
  );
});
