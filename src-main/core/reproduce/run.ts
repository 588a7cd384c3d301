import { table2Columns } from '../../../src-shared/compare';
import { WINK_EMBEDDER, embedderName } from '../../../src-shared/embedders';
import type { ExperimentConfig } from '../../../src-shared/experiment';
import type { RepeatSummary } from '../../../src-shared/repeats';
import {
  comparePack,
  comparePackTable2,
  packTable2Ours,
  type PackCell,
  type PackFailure,
  type PackTable2,
  type PackTable2Cell,
  type ReproducePack,
} from '../../../src-shared/reproduce';
import type { RunReader } from '../runs/reader';
import { repeatGroup, runRepeatGroup } from '../sweeps/repeats';
import type { SweepRunOptions } from '../sweeps/run';
import type { LoadedSweep } from '../sweeps/spec';
import { rowConfig, runnableRows, type PackRunSettings } from './packs';

/**
 * Running a loaded pack, for the CLI and the Reproduce view alike: one repeat group per row that
 * has a workbench preset, planned (calls, tokens, cost) before anything runs, then paper vs ours.
 */

export interface Prices {
  inputPerMillion: number;
  outputPerMillion: number;
}

export interface PackGroup {
  row: string;
  group: LoadedSweep;
}

function withPrices(config: ExperimentConfig, prices: Prices | undefined): ExperimentConfig {
  if (!prices) return config;
  return {
    ...config,
    answerer: config.answerer.kind === 'llm' ? { ...config.answerer, prices } : config.answerer,
    judge: config.judge ? { ...config.judge, prices } : config.judge,
  };
}

/**
 * A pack row's repeat group name. Runs made before the pack tag (`SweepTag.pack`) name their row
 * only here, so the stored-results read (results.ts) matches on it too.
 */
export function packGroupName(packId: string, rowId: string): string {
  return `${packId}.${rowId}`;
}

export function packGroups(
  pack: ReproducePack,
  settings: PackRunSettings,
  repeats: number,
  prices?: Prices,
): PackGroup[] {
  return runnableRows(pack, settings.endpoints !== undefined).map((row) => ({
    row: row.id,
    group: repeatGroup(
      withPrices(rowConfig(pack, row, settings), prices),
      repeats,
      `reproduce ${pack.id}`,
      packGroupName(pack.id, row.id),
      (row.formerIds ?? []).map((former) => packGroupName(pack.id, former)),
      { packId: pack.id, rowId: row.id },
    ),
  }));
}

/** What the run is, in one sentence: offline says that it is not the paper's setting. */
export function settingOf(pack: ReproducePack, settings: PackRunSettings): string {
  const e = settings.endpoints;
  const models = [
    ...new Set([
      pack.answerer.model,
      ...runnableRows(pack, e !== undefined).flatMap((r) => r.model ?? []),
    ]),
  ];
  const paper = `${pack.answerer.protocol} protocol with ${models.join(' / ')}${pack.judge ? `, ${pack.judge.protocol} judge with ${pack.judge.model}` : ''}`;
  const embedder = embedderNote(pack, settings);
  if (!e)
    return `OFFLINE: extractive answerer, no judge. This is NOT the paper's setting (paper: ${paper}); its numbers only show that the pipeline runs.${embedder ? ` The ${embedder}.` : ''}`;
  return `answerer ${e.model ?? models.join(' / ')} (${pack.answerer.protocol} protocol)${pack.judge ? `, judge ${e.judgeModel ?? pack.judge.model} (${pack.judge.protocol})` : ''}${embedder ? `; ${embedder}` : ''}`;
}

/** Which embedder the rows that embed as their paper did ran with; empty when none runs. */
function embedderNote(pack: ReproducePack, settings: PackRunSettings): string {
  const rows = runnableRows(pack, settings.endpoints !== undefined).filter(
    (r) => r.takesEmbedder === true,
  );
  if (rows.length === 0) return '';
  const used = embedderName(settings.embedder ?? WINK_EMBEDDER);
  const ids = rows.map((r) => r.id).join(', ');
  return settings.embedder
    ? `embedder of ${ids}: ${used}`
    : `embedder of ${ids}: ${used}, the offline word vectors, not the paper's API embedder`;
}

/**
 * A row's Table 2 figures over its complete runs: each run's latency percentiles and mean memory
 * tokens per question from its final answers (none on runs from before they were stored).
 */
export function rowTable2(store: RunReader, runIds: readonly string[]): PackTable2 {
  return packTable2Ours(
    runIds.map((id) =>
      table2Columns(store.getRun(id).manifest.usage?.memory, store.finalAnswers(id)),
    ),
  );
}

export async function runPack(
  pack: ReproducePack,
  groups: readonly PackGroup[],
  options: Omit<SweepRunOptions, 'onCell'> & {
    onCell?: (row: string, event: Parameters<NonNullable<SweepRunOptions['onCell']>>[0]) => void;
  },
): Promise<{
  cells: PackCell[];
  table2: PackTable2Cell[];
  groups: Record<string, string>;
  incomplete: number;
  failures: PackFailure[];
}> {
  const results = new Map<string, RepeatSummary>();
  const table2 = new Map<string, PackTable2>();
  const groupIds: Record<string, string> = {};
  const failures: PackFailure[] = [];
  let incomplete = 0;
  for (const { row, group } of groups) {
    const { onCell, ...rest } = options;
    const outcome = await runRepeatGroup(group, {
      ...rest,
      ...(onCell ? { onCell: (event) => onCell(row, event) } : {}),
    });
    groupIds[row] = outcome.sweepId;
    if (outcome.completed.length < group.spec.repeats) incomplete++;
    // A run that could not start has no run id and no cell event: only its error says why.
    for (const cell of outcome.cells)
      if (cell.status !== 'completed' && cell.error !== null)
        failures.push({ row, repeat: cell.index, runId: cell.runId, error: cell.error });
    results.set(row, outcome.summary);
    if (outcome.completed.length > 0) table2.set(row, rowTable2(options.store, outcome.completed));
  }
  return {
    cells: comparePack(pack, results),
    table2: comparePackTable2(pack, table2),
    groups: groupIds,
    incomplete,
    failures,
  };
}
