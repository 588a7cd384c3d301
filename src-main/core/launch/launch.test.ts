import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiKeySource } from '../keys';
import type { SampleExecutor } from '../pipeline/executors';
import { RunStore } from '../runs/store';
import { launchRun } from './launch';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const root = mkdtempSync(join(tmpdir(), 'workbench-launch-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Stands in for the BullMQ executor: its samples run on other machines, never here. */
const distributed: SampleExecutor = {
  kind: 'distributed',
  prepare: async () => undefined,
  run: () => Promise.reject(new Error('a refused launch runs no sample')),
};

describe('the launch policy on a distributed executor', () => {
  it('refuses a cache-only replay before anything runs: its workers have no cache of this machine', async () => {
    const store = RunStore.open(join(root, 'runs.db'));
    try {
      const launch = launchRun(
        {
          config: {
            datasetPath: mini,
            memory: { preset: 'test-recency' },
            answerer: { kind: 'llm', baseUrl: 'http://127.0.0.1:9/v1', model: 'fake-chat' },
          },
          responseCache: 'only',
          estimate: null,
        },
        {
          store,
          dataDir: root,
          executor: distributed,
          apiKeys: new ApiKeySource({ env: {} }),
          mayStartProcesses: false,
        },
      );
      await expect(launch).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        message:
          'launch: a replay from the response cache (cache-only) cannot run on a distributed executor: its workers have no cache of this machine; replay without --redis',
        path: ['responseCache'],
      });
      expect(store.listRuns()).toEqual([]);
    } finally {
      store.close();
    }
  });
});
