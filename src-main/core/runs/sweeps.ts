import { WorkbenchError } from '../../../src-shared/errors';
import type { RunSummary } from '../../../src-shared/experiment';
import { metricList } from '../../../src-shared/metrics';
import type {
  SweepCellRow,
  SweepDetail,
  SweepListItem,
  SweepMetric,
  SweepRunRow,
} from '../../../src-shared/sweeps';
import type { RunReader } from './reader';

/**
 * The Sweep view's reads: sweeps in a runs DB, and one sweep's cells with their scores. Pure
 * functions of a RunReader, so they run in the read worker (runs/queries.ts).
 */

export function listSweeps(reader: RunReader): SweepListItem[] {
  const bySweep = new Map<string, SweepListItem>();
  // Oldest first, so createdAt is the first run's and the list keeps the order sweeps began.
  for (const row of reader.sweepRuns().reverse()) {
    const item = bySweep.get(row.tag.sweepId) ?? {
      sweepId: row.tag.sweepId,
      name: row.tag.name,
      runs: 0,
      completed: 0,
      createdAt: reader.getRun(row.runId).createdAt,
    };
    item.runs++;
    if (row.status === 'completed') item.completed++;
    bySweep.set(row.tag.sweepId, item);
  }
  return [...bySweep.values()].reverse();
}

/** Every registered metric's overall mean over all questions. */
function metricsOf(summary: RunSummary): Record<SweepMetric, number | null> {
  const all = summary.overall.all;
  return Object.fromEntries(metricList().map((m) => [m.id, all[m.id]?.mean ?? null]));
}

/** A sweep's runs, refused as NOT_FOUND when it has none (the Sweep view, `sweep status`). */
export function requireSweepRuns(reader: RunReader, sweepId: string): SweepRunRow[] {
  const rows = reader.sweepRuns(sweepId);
  if (rows.length === 0) {
    throw new WorkbenchError('NOT_FOUND', `no runs of sweep ${sweepId} in the runs database`, {
      where: sweepId,
    });
  }
  return rows;
}

export function sweepDetail(reader: RunReader, sweepId: string): SweepDetail {
  // Newest run per cell: a cell restarted after an edit-free rerun keeps one row.
  const latest = new Map<string, SweepRunRow>();
  for (const row of requireSweepRuns(reader, sweepId)) {
    if (!latest.has(row.tag.cellKey)) latest.set(row.tag.cellKey, row);
  }
  const rows = [...latest.values()].sort((a, b) => a.tag.cellIndex - b.tag.cellIndex);
  // A sweep varies the config over one dataset, so its first cell's benchmark names them all
  // (requireSweepRuns refused a sweep without runs).
  const benchmark = reader.profileOf(rows[0]!.runId);
  const cells: SweepCellRow[] = rows.map((row) => {
    const summary = reader.summary(row.runId);
    return {
      runId: row.runId,
      status: row.status,
      cellKey: row.tag.cellKey,
      cellIndex: row.tag.cellIndex,
      values: row.tag.values,
      repeat: row.tag.repeat,
      metrics: metricsOf(summary),
      byCategory: Object.fromEntries(
        benchmark.categories.map(({ id }) => [
          String(id),
          summary.byCategory[id]?.officialF1?.mean ?? null,
        ]),
      ),
      questions: summary.questions,
    };
  });
  return {
    sweepId,
    name: rows[0]?.tag.name ?? sweepId,
    axes: Object.keys(rows[0]?.tag.values ?? {}),
    cells,
    benchmark,
  };
}
