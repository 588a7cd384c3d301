import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import '../pipeline/loadPresets';
import { RunStore } from '../runs/store';
import { repeatGroup, runRepeatGroup } from '../sweeps/repeats';
import { loadPack, rowConfig } from './packs';
import { packGroups, runPack } from './run';

/**
 * A row whose run cannot start (here: the dataset file is gone) is reported with its error, so
 * the CLI can say why instead of only counting an incomplete row.
 */
const root = mkdtempSync(join(tmpdir(), 'workbench-reproduce-run-'));
const MINI = fileURLToPath(new URL('../../../tests/fixtures/locomo/mini.json', import.meta.url));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('runPack', () => {
  it('reports each row whose run did not start, with the error', async () => {
    const pack = loadPack('locomo-table2');
    const missing = join(root, 'gone.json');
    const groups = packGroups(pack, { datasetPath: missing }, 1);
    const store = RunStore.open(join(root, 'runs.db'));
    try {
      const result = await runPack(pack, groups, {
        store,
        dataDir: root,
        mayStartProcesses: false,
      });
      expect(result.incomplete).toBe(5);
      expect(result.failures.map((f) => [f.row, f.repeat, f.runId])).toEqual(
        groups.map((g) => [g.row, 0, null]),
      );
      for (const f of result.failures) expect(f.error).toContain('gone.json');
    } finally {
      store.close();
    }
  });

  it("resumes a renamed row's group stored under its former id, in a runs DB made with it", async () => {
    const pack = loadPack('mem0-table1');
    const settings = { datasetPath: MINI, samples: ['mini-1'] };
    const row = pack.rows.find((r) => (r.formerIds ?? []).length > 0);
    if (!row) throw new Error('mem0-table1 has a renamed row');
    const former = `${pack.id}.${(row.formerIds ?? [])[0]}`;
    // The runs DB as the pack made it before the rename: the same group under the former id.
    const file = join(root, 'renamed.db');
    const before = RunStore.open(file);
    const old = repeatGroup(rowConfig(pack, row, settings), 1, `reproduce ${pack.id}`, former);
    let oldRun: string;
    try {
      const made = await runRepeatGroup(old, { store: before, dataDir: root });
      expect(made.completed).toHaveLength(1);
      oldRun = made.completed[0] as string;
    } finally {
      before.close();
    }
    const group = packGroups(pack, settings, 1).find((g) => g.row === row.id);
    if (!group) throw new Error(`${row.id} runs offline`);
    expect(group.group.sweepId).not.toBe(old.sweepId);
    const store = RunStore.open(file);
    try {
      const outcome = await runRepeatGroup(group.group, { store, dataDir: root });
      // Its stored run is the row's, not rerun under the new name.
      expect(outcome.cells.map((c) => [c.action, c.runId])).toEqual([['skipped', oldRun]]);
      expect(outcome.completed).toEqual([oldRun]);
      expect(store.sweepRuns().map((r) => r.runId)).toEqual([oldRun]);
    } finally {
      store.close();
    }
  }, 60_000);
});
