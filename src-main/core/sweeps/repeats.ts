import { hashedConfig, type ExperimentConfig } from '../../../src-shared/experiment';
import { SweepSpecSchema, expandSweep, type PackTag } from '../../../src-shared/sweeps';
import { canonicalJson, sha256Hex } from '../runs/manifest';
import { repeatSummary, type RepeatSummary } from '../../../src-shared/repeats';
import { runSweep, type SweepCellResult, type SweepRunOptions } from './run';
import type { LoadedSweep } from './spec';

/**
 * `experiment --repeats N` (issue 11 item 3): the whole experiment N times as a sweep with no axes,
 * so the N runs are grouped and tagged exactly like a sweep's repeats (`sweep status`, the Sweeps
 * view and resuming a half-done group all work on them). Repeat r runs with seed `seed + r`, so
 * the seeded parts (the category-5 option order) vary between repeats as in independent runs; each
 * run's manifest records its seed and its repeat.
 */

export const REPEAT_GROUP_NAME = 'repeats';

export function repeatSeed(baseSeed: number, repeat: number): number {
  return baseSeed + repeat;
}

export function repeatGroup(
  config: ExperimentConfig,
  repeats: number,
  what = '--repeats',
  name = REPEAT_GROUP_NAME,
  formerNames: readonly string[] = [],
  pack?: Omit<PackTag, 'repeats'>,
): LoadedSweep {
  const spec = SweepSpecSchema.parse({
    name,
    base: config as unknown as Record<string, unknown>,
    repeats,
  });
  const cells = expandSweep(spec, what).map((cell) => ({
    ...cell,
    config: { ...cell.config, seed: repeatSeed(config.seed, cell.repeat) },
  }));
  // The same config and count resume the same group (a completed repeat is not rerun).
  const hash = sha256Hex(canonicalJson(cells.map((c) => [c.key, hashedConfig(c.config)]))).slice(
    0,
    10,
  );
  const formerSweepIds = formerNames.map((former) => `${former}-${hash}`);
  // The tag is not part of the id: a pack row's group made before the tag existed resumes as itself.
  return {
    file: what,
    spec,
    sweepId: `${name}-${hash}`,
    cells,
    ...(formerSweepIds.length > 0 ? { formerSweepIds } : {}),
    ...(pack ? { pack: { ...pack, repeats } } : {}),
  };
}

export interface RepeatGroupOutcome {
  sweepId: string;
  cells: SweepCellResult[];
  /** Run ids of the complete repeats, in repeat order. */
  completed: string[];
  /** Mean ± std over the complete repeats. */
  summary: RepeatSummary;
}

/** Runs (or resumes) a repeat group and summarises its complete runs. */
export async function runRepeatGroup(
  group: LoadedSweep,
  options: SweepRunOptions,
): Promise<RepeatGroupOutcome> {
  const outcome = await runSweep(group, options);
  const completed = outcome.cells
    .filter((c) => c.status === 'completed' && c.runId !== null)
    .map((c) => c.runId as string);
  return {
    sweepId: group.sweepId,
    cells: outcome.cells,
    completed,
    summary: repeatSummary(completed.map((id) => options.store.summary(id))),
  };
}
