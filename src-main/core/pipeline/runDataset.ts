import type {
  DatasetInfo,
  DatasetLoadResult,
  DatasetProblem,
  Sample,
  TestPlan,
} from '../../../src-shared/dataset';
import { WorkbenchError } from '../../../src-shared/errors';
import type { ExperimentConfig } from '../../../src-shared/experiment';
import type { SkippedSample } from '../../../src-shared/runs';
import { datasetFileSha256, loadDatasetFile } from '../dataset/load';
import {
  LongMemEvalFileReader,
  indexLongMemEvalFile,
  streamsDataset,
} from '../dataset/longmemevalFile';
import { packetCount } from '../dataset/packets';
import { sampleById } from '../dataset/select';
import { planTests } from '../dataset/testPlan';

/**
 * The dataset as a run sees it: each valid sample's id, size and test plan up front, and the
 * sample itself only when the run reaches it. A file within the whole-file limit is loaded whole;
 * a LongMemEval file over it (M: ~2.7 GB) is streamed: an index pass validates, hashes and plans
 * every question, then each question is read again from the file when its turn comes, so the run
 * holds one haystack per lane, never the file.
 */

/** One valid sample of the file, without its conversation. */
export interface SampleEntry {
  sampleId: string;
  /** Its place among the file's valid samples: a streamed file is read in this order. */
  position: number;
  questions: number;
  /** Questions of categories the config does not ask (`questionCategories`). */
  otherCategories: number;
  packets: number;
  plan: TestPlan;
}

export interface RunDataset {
  info: DatasetInfo;
  problems: DatasetProblem[];
  entries: SampleEntry[];
  /** Every sample when the file was loaded whole (errata resolve against them); null when streamed. */
  samples: Sample[] | null;
  /** The sample itself; a streamed file reads it now, so ask in `position` order. */
  sample(sampleId: string): Promise<Sample>;
  close(): Promise<void>;
}

export function testPlanOf(sample: Sample, config: ExperimentConfig): TestPlan {
  return planTests(sample, {
    includeNoEvidence: config.includeNoEvidence,
    ...(config.mode ? { mode: config.mode } : {}),
    ...(config.haystackCurvePoints !== undefined
      ? { haystackCurvePoints: config.haystackCurvePoints }
      : {}),
    ...(config.questionCategories ? { questionCategories: config.questionCategories } : {}),
  });
}

function entryOf(sample: Sample, position: number, config: ExperimentConfig): SampleEntry {
  return {
    sampleId: sample.sampleId,
    position,
    questions: sample.qa.length,
    otherCategories: config.questionCategories
      ? sample.qa.filter((qa) => !config.questionCategories!.includes(qa.category)).length
      : 0,
    packets: packetCount(sample),
    plan: testPlanOf(sample, config),
  };
}

function wholeDataset(loaded: DatasetLoadResult, config: ExperimentConfig): RunDataset {
  return {
    info: loaded.info,
    problems: loaded.problems,
    entries: loaded.samples.map((s, i) => entryOf(s, i, config)),
    samples: loaded.samples,
    sample: async (sampleId) => sampleById(loaded.samples, sampleId, 'run', ['samples']),
    close: async () => undefined,
  };
}

async function streamedDataset(path: string, config: ExperimentConfig): Promise<RunDataset> {
  const entries: SampleEntry[] = [];
  const index = await indexLongMemEvalFile(path, (sample) => {
    entries.push(entryOf(sample, entries.length, config));
  });
  const reader = new LongMemEvalFileReader(path, index);
  return {
    info: index.info,
    problems: index.problems,
    entries,
    samples: null,
    sample: (sampleId) => reader.take(sampleId),
    close: () => reader.close(),
  };
}

function changedSinceOpened(
  path: string,
  now: string | null,
  opened: string | null,
): WorkbenchError {
  return new WorkbenchError(
    'DATASET_INVALID',
    `${path}: the file changed on disk since it was opened (sha256 now ${now ?? 'unknown'}, opened as ${opened ?? 'unknown'}); open it again to run it`,
    { where: path },
  );
}

/**
 * The run's dataset: the caller's parsed copy when it still matches the file (a file changed on
 * disk since it was opened is refused: the run would record one sha256 and run another file's
 * samples), else the file streamed or loaded whole. `openedSha256`: the sha256 the caller saw
 * when it opened a file it kept no parsed copy of (a streamed file); checked against the bytes
 * this pass reads, so no extra pass over the file.
 */
export async function runDatasetFor(
  path: string,
  config: ExperimentConfig,
  given?: DatasetLoadResult,
  openedSha256?: string,
): Promise<RunDataset> {
  if (given) {
    const onDisk = await datasetFileSha256(path);
    if (given.info.sha256 === null || onDisk !== given.info.sha256) {
      throw changedSinceOpened(path, onDisk, given.info.sha256);
    }
    return wholeDataset(given, config);
  }
  const dataset = (await streamsDataset(path))
    ? await streamedDataset(path, config)
    : wholeDataset(await loadDatasetFile(path), config);
  if (openedSha256 !== undefined && dataset.info.sha256 !== openedSha256) {
    await dataset.close();
    throw changedSinceOpened(path, dataset.info.sha256, openedSha256);
  }
  return dataset;
}

/** The file's samples that failed validation, with the loader's messages, in file order. */
function invalidSamples(problems: readonly DatasetProblem[]): SkippedSample[] {
  const byIndex = new Map<number, SkippedSample>();
  for (const p of problems) {
    if (p.severity !== 'error' || p.sampleIndex === null) continue;
    const entry = byIndex.get(p.sampleIndex) ?? {
      sampleIndex: p.sampleIndex,
      sampleId: p.sampleId,
      problems: [],
    };
    entry.problems.push(p.message);
    byIndex.set(p.sampleIndex, entry);
  }
  return [...byIndex.values()].sort((a, b) => a.sampleIndex - b.sampleIndex);
}

function describeInvalid(s: SkippedSample): string {
  const name = s.sampleId === null ? `#${s.sampleIndex}` : `"${s.sampleId}" (#${s.sampleIndex})`;
  return `sample ${name}: ${s.problems.join('; ')}`;
}

/**
 * The samples a run takes. Invalid samples are never dropped silently: a named one is refused as
 * invalid (not as absent), and running "all" of a file with invalid samples needs `skipInvalid`,
 * which the manifest then records.
 */
export function selectFrom<T extends { sampleId: string }>(
  all: readonly T[],
  problems: readonly DatasetProblem[],
  config: ExperimentConfig,
): { samples: T[]; skipped: SkippedSample[] } {
  const invalid = invalidSamples(problems);
  const ids = config.samples;
  if (!ids) {
    if (invalid.length > 0 && config.skipInvalid !== true) {
      throw new WorkbenchError(
        'DATASET_INVALID',
        `${config.datasetPath}: ${invalid.length} invalid sample(s), so the run was not started ` +
          `(skipInvalid / --skip-invalid runs the ${all.length} valid one(s) and records what was skipped): ` +
          invalid.map(describeInvalid).join(' | '),
        { where: config.datasetPath },
      );
    }
    return { samples: [...all], skipped: invalid };
  }
  const samples = ids.map((id, i) => {
    const bad = invalid.find((s) => s.sampleId === id);
    if (bad) {
      throw new WorkbenchError(
        'INVALID_INPUT',
        `samples[${i}]: sample ${id} is invalid: ${bad.problems.join('; ')}`,
        { path: ['samples', i] },
      );
    }
    return sampleById(all, id, `samples[${i}]`, ['samples', i]);
  });
  return { samples, skipped: [] };
}
