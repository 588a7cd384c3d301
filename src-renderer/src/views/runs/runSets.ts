import type { RunSummary } from '@shared/experiment';
import { runName, type RunListItem } from '@shared/runs';
import { plural } from '../../lib/format';

/**
 * The run list at sweep scale: which sample set each run answered and whether it ran its course,
 * so a sort by score never puts a one-sample or cancelled run beside full runs unmarked. Pure:
 * tested under Node, the table only draws it.
 */

type ListedRun = Pick<
  RunListItem,
  'id' | 'name' | 'sweep' | 'status' | 'datasetPath' | 'datasetSha256' | 'sampleIds' | 'questions'
> & { summary: Pick<RunSummary, 'questions'> | null | undefined };

export interface RunMark {
  /** Same key: same dataset file and same samples, so their headline scores compare. */
  setKey: string;
  /** "10 samples", "1 sample: conv-26". */
  setLabel: string;
  /** Fewer samples than the widest set of its dataset in the list. */
  subset: boolean;
  /** Stopped before its end (cancelled, failed, interrupted, running) or answered fewer than planned. */
  partial: boolean;
  /** What the row's badge says ("partial", "1 sample"); null for a full run on the widest set. */
  badge: string | null;
  /** The badge's longer reason, for its title. */
  reason: string | null;
}

const FINISHED: ReadonlySet<RunListItem['status']> = new Set(['completed', 'degraded']);

export function samplesLabel(n: number): string {
  return plural(n, 'sample');
}

/** The dataset by its content (an uploaded copy and the file itself are one), else its path. */
function datasetOf(run: ListedRun): string {
  return run.datasetSha256 ?? run.datasetPath;
}

function setKeyOf(run: ListedRun): string {
  return `${datasetOf(run)}\u0000${[...run.sampleIds].sort().join('\u0000')}`;
}

/** Each run's mark, by run id; the widest set is per dataset (by sha256), as listed. */
export function runMarks(runs: readonly ListedRun[]): Map<string, RunMark> {
  const widest = new Map<string, number>();
  for (const run of runs) {
    widest.set(datasetOf(run), Math.max(widest.get(datasetOf(run)) ?? 0, run.sampleIds.length));
  }
  const marks = new Map<string, RunMark>();
  for (const run of runs) {
    const n = run.sampleIds.length;
    const subset = n < (widest.get(datasetOf(run)) ?? 0);
    const answered = run.summary?.questions;
    const short = answered !== undefined && answered < run.questions;
    const partial = !FINISHED.has(run.status) || short;
    const setLabel =
      n > 0 && n <= 2 ? `${samplesLabel(n)}: ${run.sampleIds.join(', ')}` : samplesLabel(n);
    const reasons = [
      partial
        ? `${run.status}${answered !== undefined ? `: ${answered} of ${run.questions} questions answered` : ''}`
        : null,
      subset
        ? `${setLabel}, of ${widest.get(datasetOf(run))} in the widest run of its dataset`
        : null,
    ].filter((r): r is string => r !== null);
    marks.set(run.id, {
      setKey: setKeyOf(run),
      setLabel,
      subset,
      partial,
      badge: partial ? 'partial' : subset ? samplesLabel(n) : null,
      reason: reasons.length > 0 ? reasons.join('; ') : null,
    });
  }
  return marks;
}

/**
 * Groups rows by sample set, keeping the order each group's rows came in (the table's sort): the
 * widest sets first, full runs before partial ones within a set, so the top of a sort by score is
 * always a comparable group.
 */
export function groupBySampleSet<T extends { id: string }>(
  rows: readonly T[],
  marks: ReadonlyMap<string, RunMark>,
  sizeOf: (row: T) => number,
): T[] {
  const rank = (row: T): [number, string, number] => {
    const mark = marks.get(row.id);
    return [-sizeOf(row), mark?.setKey ?? '', mark?.partial ? 1 : 0];
  };
  return rows
    .map((row, index) => ({ row, index, key: rank(row) }))
    .sort(
      (a, b) =>
        a.key[0] - b.key[0] ||
        (a.key[1] < b.key[1] ? -1 : a.key[1] > b.key[1] ? 1 : 0) ||
        a.key[2] - b.key[2] ||
        a.index - b.index,
    )
    .map((entry) => entry.row);
}

/** Every word the row is found by: its derived name, sweep id and name, grid point, samples. */
export function runHaystack(
  run: Pick<RunListItem, 'id' | 'name' | 'tags' | 'preset' | 'answerer'> &
    Partial<Pick<RunListItem, 'sweep' | 'status' | 'sampleIds'>>,
): string {
  return [
    run.id,
    runName(run),
    ...run.tags,
    run.preset,
    run.status ?? '',
    run.answerer ?? '',
    run.sweep?.sweepId ?? '',
    run.sweep?.cellKey ?? '',
    ...(run.sampleIds ?? []),
  ].join(' ');
}
