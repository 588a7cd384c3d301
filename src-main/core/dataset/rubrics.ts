import { WorkbenchError } from '../../../src-shared/errors';
import { datasetFileSha256, loadDatasetFile } from './load';

/** Where a question's rubric is kept: its sample and question index. */
export function rubricKey(sampleId: string, questionIndex: number): string {
  return JSON.stringify([sampleId, questionIndex]);
}

/**
 * The rubric of every question of a run's dataset (BEAM `QA.rubric`, as the loader stores it),
 * for a rubric judge: answers do not carry it. A dataset that changed since the run, or cannot be
 * read, is refused by name: judging against another rubric would not be the run's score.
 */
export async function datasetRubrics(
  dataset: { path: string; sha256: string | null },
  protocol: string,
): Promise<Map<string, readonly string[]>> {
  const refuse = (why: string): never => {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `judge ${protocol}: the rubrics are needed and ${why}`,
      {
        where: dataset.path,
      },
    );
  };
  let samples;
  try {
    if (dataset.sha256 !== null && (await datasetFileSha256(dataset.path)) !== dataset.sha256) {
      refuse(`the dataset ${dataset.path} changed since the run (sha256 differs)`);
    }
    ({ samples } = await loadDatasetFile(dataset.path));
  } catch (error) {
    if (error instanceof WorkbenchError && error.message.startsWith(`judge ${protocol}:`)) {
      throw error;
    }
    return refuse(
      `the dataset ${dataset.path} cannot be read (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const rubrics = new Map<string, readonly string[]>();
  for (const sample of samples) {
    for (const qa of sample.qa) {
      if (qa.rubric) rubrics.set(rubricKey(sample.sampleId, qa.index), qa.rubric);
    }
  }
  return rubrics;
}

/**
 * Each answer's rubric for a judge pass: read from the run's dataset when the judge is a rubric
 * judge (BEAM), never otherwise. The run's judge pass and a rescore both ask through this.
 */
export async function rubricLookupFor(
  dataset: { path: string; sha256: string | null },
  protocol: { name: string; rubric?: unknown },
): Promise<(answer: { sampleId: string; questionIndex: number }) => readonly string[] | undefined> {
  if (protocol.rubric === undefined) return () => undefined;
  const rubrics = await datasetRubrics(dataset, protocol.name);
  return (answer) => rubrics.get(rubricKey(answer.sampleId, answer.questionIndex));
}
