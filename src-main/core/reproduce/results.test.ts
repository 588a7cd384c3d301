import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ExperimentConfigSchema } from '../../../src-shared/experiment';
import { RunStore } from '../runs/store';
import { repeatGroup, runRepeatGroup } from '../sweeps/repeats';
import { runnableRows } from './packs';
import { packResults, packStored } from './results';
import { packGroupName } from './run';
import { preparePack, reproducePack, runPreparedPack } from './service';

/**
 * Issue 38 item 1: a pack's stored results are read back from a real runs DB, whichever surface
 * made the runs: rows run through the shared entry (as `cli reproduce` and the view run them),
 * rows whose runs predate the pack tag, and a row whose group did not complete.
 */
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const root = mkdtempSync(join(tmpdir(), 'workbench-reproduce-results-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const asRecorded = (d: { path: string }) => d.path;

describe('packResults', () => {
  it("reads each row's complete runs back, paper vs ours as the run compared them, naming the user's file", async () => {
    const dataDir = join(root, 'cli');
    // The dataset as a browser upload is read: a content-addressed copy, which the data folder's
    // record names by the user's file (datasets.ts recordedUserFiles; its own test).
    mkdirSync(join(dataDir, 'datasets'), { recursive: true });
    const upload = { path: join(dataDir, 'datasets', 'f00d.json'), sha256: 'f00d' };
    copyFileSync(mini, upload.path);
    const userFileOf = (d: { path: string }) =>
      d.path === upload.path ? 'my-locomo.json' : d.path;
    const pack = await reproducePack('locomo-table2');
    const store = RunStore.open(join(dataDir, 'runs.db'));
    try {
      expect(packResults(store, pack, asRecorded).rows).toEqual([]);
      const canRun = runnableRows(pack).length;
      expect(packStored(store.sweepRuns(), pack)).toEqual({
        rows: 0,
        runnableRows: canRun,
        newestRunId: null,
      });
      const prepared = await preparePack(pack, {
        datasetPath: upload.path,
        samples: ['mini-1'],
        repeats: 1,
      });
      const run = await runPreparedPack(prepared, { store, dataDir });
      expect(run.incomplete).toBe(0);

      const results = packResults(store, pack, userFileOf);
      const offlineRows = runnableRows(pack, false).map((r) => r.id);
      expect(results.rows.map((r) => r.row)).toEqual(offlineRows);
      for (const row of results.rows) {
        expect(row).toMatchObject({
          status: 'complete',
          asked: 1,
          unfinished: [],
          samples: ['mini-1'],
          offline: true,
          dataset: { file: 'my-locomo.json' },
        });
        expect(row.completed).toEqual([store.sweepRuns(run.groups[row.row])[0]!.runId]);
        expect(row.questions).toBeGreaterThan(0);
        // The pack's paper count is 1: the command asks for no other.
        expect(row.command).toBe(
          `npm run -s cli -- reproduce locomo-table2 --data my-locomo.json --samples mini-1`,
        );
      }
      // The pack list's summary counts the same rows, newest run last made.
      const runIds = results.rows.flatMap((r) => r.completed).sort();
      expect(packStored(store.sweepRuns(), pack)).toEqual({
        rows: offlineRows.length,
        runnableRows: canRun,
        newestRunId: runIds.at(-1),
      });
      const other = await reproducePack('mem0-table1');
      expect(packStored(store.sweepRuns(), other)).toMatchObject({ rows: 0, newestRunId: null });
      // The stored read compares exactly as the run did: every cell, ours filled in every row.
      expect(results.cells).toEqual(run.cells);
      expect(results.table2).toEqual(run.table2);
      const filled = new Set(results.cells.filter((c) => c.ours !== null).map((c) => c.row));
      expect([...filled]).toEqual(offlineRows);
      // The pack's paper-only rows keep their figures beside no ours.
      expect(results.cells.some((c) => c.row === 'human' && c.ours === null)).toBe(true);
    } finally {
      store.close();
    }
  }, 180_000);

  it('reads a row whose runs carry it only in their group name (made before the pack tag)', async () => {
    const pack = await reproducePack('locomo-table2');
    const store = RunStore.open(join(root, 'legacy.db'));
    try {
      const prepared = await preparePack(pack, { datasetPath: mini, samples: ['mini-2'] });
      const row = prepared.groups[0]!;
      // The group as pack runs were made before: the same name and config, no pack tag.
      const legacy = repeatGroup(
        ExperimentConfigSchema.parse(row.group.cells[0]!.config),
        1,
        `reproduce ${pack.id}`,
        packGroupName(pack.id, row.row),
      );
      expect(legacy.pack).toBeUndefined();
      const outcome = await runRepeatGroup(legacy, { store, dataDir: root });
      expect(store.getRun(outcome.completed[0]!).manifest.sweep?.pack).toBeUndefined();

      const results = packResults(store, pack, asRecorded);
      expect(results.rows).toHaveLength(1);
      expect(results.rows[0]).toMatchObject({
        row: row.row,
        status: 'complete',
        asked: null,
        completed: outcome.completed,
        samples: ['mini-2'],
        dataset: { file: mini },
      });
      const ours = results.cells.filter((c) => c.row === row.row && c.ours !== null);
      expect(ours.length).toBeGreaterThan(0);
    } finally {
      store.close();
    }
  }, 180_000);

  it('marks a row partial, with the repeat that did not complete and its status', async () => {
    const pack = await reproducePack('locomo-table2');
    const store = RunStore.open(join(root, 'partial.db'));
    try {
      const prepared = await preparePack(pack, {
        datasetPath: mini,
        samples: ['mini-1'],
        repeats: 2,
      });
      const first = { ...prepared, groups: prepared.groups.slice(0, 1) };
      const stop = new AbortController();
      await runPreparedPack(first, {
        store,
        dataDir: root,
        signal: stop.signal,
        // The second repeat is cancelled as soon as it starts.
        onCell: (_row, event) => {
          if (event.cell.repeat === 1 && event.action === 'started') stop.abort();
        },
      });
      const results = packResults(store, pack, asRecorded);
      const [row] = results.rows;
      expect(row).toMatchObject({ status: 'partial', asked: 2 });
      expect(row!.completed).toHaveLength(1);
      expect(row!.unfinished).toEqual([
        { runId: expect.any(String), repeat: 1, status: 'cancelled' },
      ]);
      expect(store.getRun(row!.unfinished[0]!.runId).status).toBe('cancelled');
      // Ours is over the complete run only, and the command asks for the row's two runs.
      expect(results.cells.some((c) => c.row === row!.row && c.ours !== null)).toBe(true);
      expect(row!.command).toContain('--repeats 2');
    } finally {
      store.close();
    }
  }, 180_000);
});
