import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { RunStore } from '../runs/store';
import { runnableRows } from './packs';
import { preparePack, reproducePack, reproducePlan, reproduceRun } from './service';

/**
 * Issue 34 item 4: a reproduce pack is orchestrated once. `cli reproduce` and the Reproduce view's
 * handlers both load, plan and run a pack through this service; these cases hold the handlers to
 * what the shared entry (`preparePack`, `runPreparedPack`) plans and runs.
 */
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const root = mkdtempSync(join(tmpdir(), 'workbench-reproduce-service-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const prices = { inputPerMillion: 0.15, outputPerMillion: 0.6 };

describe('reproduce service', () => {
  it("plans the paper's setting as the shared entry plans it, prices included", async () => {
    const pack = await reproducePack('mem0-table1');
    const prepared = await preparePack(pack, {
      datasetPath: mini,
      samples: ['mini-1'],
      prices,
      endpoints: { baseUrl: 'http://127.0.0.1/v1' },
    });
    expect(prepared.offline).toBe(false);
    expect(prepared.repeats).toBe(pack.repeats);
    expect(prepared.groups.map((g) => g.row)).toEqual(runnableRows(pack, true).map((r) => r.id));
    expect(prepared.plan.answerCalls).toBeGreaterThan(0);
    expect(prepared.plan.cost).toBeGreaterThan(0);

    const api = await reproducePlan(
      { packId: pack.id, datasetId: 'mini', samples: ['mini-1'], prices },
      mini,
    );
    expect(api).toEqual({
      packId: pack.id,
      offline: false,
      setting: `the paper's setting: ${prepared.setting}`,
      repeats: pack.repeats,
      plan: prepared.plan,
    });
  });

  it('runs offline exactly the groups the shared entry plans, and compares every cell', async () => {
    const pack = await reproducePack('locomo-table2');
    const request = { datasetPath: mini, samples: ['mini-1'], repeats: 1 };
    const prepared = await preparePack(pack, request);
    expect(prepared.offline).toBe(true);
    expect(prepared.setting).toContain("NOT the paper's setting");
    const store = RunStore.open(join(root, 'runs.db'));
    try {
      const run = await reproduceRun(
        { packId: pack.id, datasetId: 'mini', samples: ['mini-1'], repeats: 1, prices },
        mini,
        { store, dataDir: root },
      );
      // Offline, prices change nothing: there are no calls to price.
      expect(run).toMatchObject({
        packId: pack.id,
        offline: true,
        setting: prepared.setting,
        repeats: 1,
        plan: prepared.plan,
        incomplete: 0,
        failures: [],
      });
      expect(Object.keys(run.groups ?? {})).toEqual(prepared.groups.map((g) => g.row));
      const ran = run.cells?.filter((c) => c.ours !== null).map((c) => c.row) ?? [];
      expect([...new Set(ran)]).toEqual(prepared.groups.map((g) => g.row));
    } finally {
      store.close();
    }
  }, 120_000);
});
