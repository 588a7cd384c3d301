import { CATEGORY_IDS } from '../../../src-shared/dataset';
import type { RunSummary } from '../../../src-shared/experiment';
import type {
  SweepCellRow,
  SweepDetail,
  SweepListItem,
  SweepMetric,
} from '../../../src-shared/sweeps';
import type { RunStore } from '../runs/store';
import { requireSweepRuns, sweepRuns } from './run';

/** The Sweep view's reads: sweeps in a runs DB, and one sweep's cells with their scores. */

export function listSweeps(store: RunStore): SweepListItem[] {
  const bySweep = new Map<string, SweepListItem>();
  // Oldest first, so createdAt is the first run's and the list keeps the order sweeps began.
  for (const row of sweepRuns(store).reverse()) {
    const item = bySweep.get(row.tag.sweepId) ?? {
      sweepId: row.tag.sweepId,
      name: row.tag.name,
      runs: 0,
      completed: 0,
      createdAt: store.getRun(row.runId).createdAt,
    };
    item.runs++;
    if (row.status === 'completed') item.completed++;
    bySweep.set(row.tag.sweepId, item);
  }
  return [...bySweep.values()].reverse();
}

function metricsOf(summary: RunSummary): Record<SweepMetric, number | null> {
  const all = summary.overall.all;
  return {
    officialF1: all.officialF1.mean,
    judge: all.judge.mean,
    setF1: all.setF1.mean,
    bleu1: all.bleu1.mean,
    evidenceRecall: all.evidenceRecall.mean,
  };
}

export function sweepDetail(store: RunStore, sweepId: string): SweepDetail {
  // Newest run per cell: a cell restarted after an edit-free rerun keeps one row.
  const latest = new Map<string, ReturnType<typeof sweepRuns>[number]>();
  for (const row of requireSweepRuns(store, sweepId)) {
    if (!latest.has(row.tag.cellKey)) latest.set(row.tag.cellKey, row);
  }
  const rows = [...latest.values()].sort((a, b) => a.tag.cellIndex - b.tag.cellIndex);
  const cells: SweepCellRow[] = rows.map((row) => {
    const summary = store.summary(row.runId);
    return {
      runId: row.runId,
      status: row.status,
      cellKey: row.tag.cellKey,
      cellIndex: row.tag.cellIndex,
      values: row.tag.values,
      repeat: row.tag.repeat,
      metrics: metricsOf(summary),
      byCategory: Object.fromEntries(
        CATEGORY_IDS.map((c) => [String(c), summary.byCategory[c].officialF1.mean]),
      ),
      questions: summary.questions,
    };
  });
  return {
    sweepId,
    name: rows[0]?.tag.name ?? sweepId,
    axes: Object.keys(rows[0]?.tag.values ?? {}),
    cells,
  };
}
