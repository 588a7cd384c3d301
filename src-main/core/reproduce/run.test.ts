import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import '../pipeline/loadPresets';
import { RunStore } from '../runs/store';
import { loadPack } from './packs';
import { packGroups, runPack } from './run';

/**
 * A row whose run cannot start (here: the dataset file is gone) is reported with its error, so
 * the CLI can say why instead of only counting an incomplete row.
 */
const root = mkdtempSync(join(tmpdir(), 'workbench-reproduce-run-'));
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
});
