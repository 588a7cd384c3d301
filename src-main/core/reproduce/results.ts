import { repeatSummary, type RepeatSummary } from '../../../src-shared/repeats';
import {
  comparePack,
  comparePackTable2,
  packCommand,
  type PackResults,
  type PackRow,
  type PackRowResult,
  type PackStored,
  type PackTable2,
  type ReproducePack,
} from '../../../src-shared/reproduce';
import type { SweepRunRow, SweepTag } from '../../../src-shared/sweeps';
import type { RunReader } from '../runs/reader';
import { runnableRows } from './packs';
import { packGroupName, rowTable2 } from './run';

/**
 * A pack's stored results (issue 38 item 1): what the Reproduce view, `cli reproduce --show` and
 * the API show, read from the runs DB whichever surface made the runs. A pack row's runs are the
 * cells of its repeat group, tagged with the row (`SweepTag.pack`); runs made before that tag carry
 * the row only in the group's name (or a name the row had before, `formerIds`), and are read by
 * it. Per row the figures are over the repeat group with the newest complete run: its complete
 * runs only, never a cancelled run's partial answers, with the group's sample set and, when it is
 * partial, which repeats did not complete.
 */

/**
 * The file a run's dataset was given as: the path or name the user gave, where the dataset was
 * stored as an upload's content-addressed copy; else the path the run recorded.
 */
export type DatasetFileOf = (dataset: { path: string; sha256: string | null }) => string;

function playsRow(tag: SweepTag, pack: ReproducePack, row: PackRow): boolean {
  return tag.pack
    ? tag.pack.packId === pack.id && tag.pack.rowId === row.id
    : [row.id, ...(row.formerIds ?? [])].some((id) => tag.name === packGroupName(pack.id, id));
}

/**
 * Which of the pack's rows have stored runs, and the newest of those runs: from the run tags
 * alone (`sweepRuns` reads no answers), so the pack list can say it for every pack.
 */
export function packStored(tagged: readonly SweepRunRow[], pack: ReproducePack): PackStored {
  let rows = 0;
  let newestRunId: string | null = null;
  const runnable = runnableRows(pack);
  for (const row of runnable) {
    const runs = tagged.filter((r) => playsRow(r.tag, pack, row));
    if (runs.length === 0) continue;
    rows += 1;
    for (const { runId } of runs)
      if (newestRunId === null || runId > newestRunId) newestRunId = runId;
  }
  return { rows, runnableRows: runnable.length, newestRunId };
}

/** The latest run of each repeat of a group, by repeat (runs arrive newest first). */
function latestPerRepeat(runs: readonly SweepRunRow[]): SweepRunRow[] {
  const latest = new Map<string, SweepRunRow>();
  for (const run of runs) if (!latest.has(run.tag.cellKey)) latest.set(run.tag.cellKey, run);
  return [...latest.values()].sort((a, b) => a.tag.repeat - b.tag.repeat);
}

function rowResult(
  reader: RunReader,
  pack: ReproducePack,
  row: PackRow,
  runs: readonly SweepRunRow[],
  fileOf: DatasetFileOf,
): PackRowResult | null {
  // The newest complete run's group; a row none of whose runs completed shows its newest group.
  const chosen = runs.find((r) => r.status === 'completed') ?? runs[0];
  if (!chosen) return null;
  const group = latestPerRepeat(runs.filter((r) => r.tag.sweepId === chosen.tag.sweepId));
  const completed = group.filter((r) => r.status === 'completed');
  const unfinished = group
    .filter((r) => r.status !== 'completed')
    .map((r) => ({ runId: r.runId, repeat: r.tag.repeat, status: r.status }));
  const asked = chosen.tag.pack?.repeats ?? null;
  // Run ids sort by creation time.
  const newestComplete = reader.getRun(
    completed
      .map((r) => r.runId)
      .sort()
      .at(-1) ?? chosen.runId,
  );
  const { config, dataset } = newestComplete.manifest;
  const samples = config.samples && config.samples.length > 0 ? [...config.samples] : null;
  const answerer = config.answerer;
  const file = fileOf({ path: dataset.path, sha256: dataset.sha256 });
  const paperModel = row.model ?? pack.answerer.model;
  return {
    row: row.id,
    sweepId: chosen.tag.sweepId,
    status:
      unfinished.length === 0 && (asked === null || completed.length >= asked)
        ? 'complete'
        : 'partial',
    completed: completed.map((r) => r.runId),
    asked,
    unfinished,
    samples,
    questions: completed.length > 0 ? newestComplete.questions : 0,
    offline: answerer.kind !== 'llm',
    dataset: { file, sha256: dataset.sha256 },
    endedAt: completed.length > 0 ? newestComplete.endedAt : null,
    command: packCommand(
      pack.id,
      file,
      answerer.kind === 'llm'
        ? {
            baseUrl: answerer.baseUrl,
            model: answerer.model,
            ...(answerer.apiKeyEnv ? { apiKeyEnv: answerer.apiKeyEnv } : {}),
          }
        : null,
      answerer.kind === 'llm' && answerer.model !== paperModel,
      { samples, repeats: asked !== null && asked !== pack.repeats ? asked : null },
    ),
  };
}

/** Paper vs ours for every row of the pack that has stored runs. */
export function packResults(
  reader: RunReader,
  pack: ReproducePack,
  fileOf: DatasetFileOf,
): PackResults {
  const tagged = reader.sweepRuns();
  const rows: PackRowResult[] = [];
  const summaries = new Map<string, RepeatSummary>();
  const table2 = new Map<string, PackTable2>();
  for (const row of pack.rows) {
    if (row.preset === null) continue;
    const result = rowResult(
      reader,
      pack,
      row,
      tagged.filter((r) => playsRow(r.tag, pack, row)),
      fileOf,
    );
    if (!result) continue;
    rows.push(result);
    if (result.completed.length === 0) continue;
    summaries.set(row.id, repeatSummary(result.completed.map((id) => reader.summary(id))));
    table2.set(row.id, rowTable2(reader, result.completed));
  }
  return {
    packId: pack.id,
    rows,
    cells: comparePack(pack, summaries),
    table2: comparePackTable2(pack, table2),
  };
}
