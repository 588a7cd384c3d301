import type { Sample } from '../../../src-shared/dataset/types';
import { WorkbenchError, type ErrorPath } from '../../../src-shared/errors';

/**
 * The sample with this id, or an INVALID_INPUT error that names the dataset's samples. `where`
 * starts the message (`samples[2]`, `retrieve`); `path` points at the offending input.
 */
export function sampleById<T extends Pick<Sample, 'sampleId'>>(
  all: readonly T[],
  id: string,
  where: string,
  path: ErrorPath,
): T {
  const sample = all.find((s) => s.sampleId === id);
  if (sample) return sample;
  throw new WorkbenchError(
    'INVALID_INPUT',
    `${where}: no sample "${id}" in the dataset (samples: ${all.map((s) => s.sampleId).join(', ')})`,
    { path },
  );
}
