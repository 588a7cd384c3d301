import { WorkbenchError } from '../../../src-shared/errors';
import type { RunStore } from './store';
import { runSamples } from './rescore';

/** Where a question's rubric is kept: its sample and question index. */
export function rubricKey(sampleId: string, questionIndex: number): string {
  return JSON.stringify([sampleId, questionIndex]);
}

/**
 * The rubric of every question of a run (BEAM `QA.rubric`), read from the run's dataset as the
 * loader stores it, for a rubric judge (answers do not carry it). A dataset that changed since
 * the run, or cannot be read, is refused by name: judging against another rubric would not be
 * the run's score.
 */
export async function runRubrics(
  store: RunStore,
  runId: string,
  protocol: string,
): Promise<Map<string, readonly string[]>> {
  const { dataset } = store.getRun(runId).manifest;
  const loaded = await runSamples(dataset.path, dataset.sha256);
  if ('problem' in loaded) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `judge ${protocol}: the rubrics are needed and ${loaded.problem}`,
      { where: dataset.path },
    );
  }
  const rubrics = new Map<string, readonly string[]>();
  for (const [sampleId, sample] of loaded.samples) {
    for (const qa of sample.qa) {
      if (qa.rubric) rubrics.set(rubricKey(sampleId, qa.index), qa.rubric);
    }
  }
  return rubrics;
}
