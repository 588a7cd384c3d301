import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { RecencyMemory } from '../../../tests/fixtures/experiment/test-presets';
import { startFakeOpenAIServer } from '../../../tests/support/fake-openai-server';
import { ApiKeySource } from '../keys';
import { inlineExecutor } from '../pipeline/executors';
import { RunStore } from '../runs/store';
import { launchRun } from './launch';

// Here, not beside pipeline/preflight.ts: the launcher decides when a preflight runs, and a
// pipeline test may not import the layer above it.
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const root = mkdtempSync(join(tmpdir(), 'workbench-launch-preflight-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const llm = (baseUrl: string) => ({ kind: 'llm' as const, baseUrl, model: 'fake-chat' });

describe('a launch preflight', () => {
  it("files the launch's preflight requests in the run's ledger as 'preflight': the ledger counts every request the server received", async () => {
    const counting = await startFakeOpenAIServer();
    const store = RunStore.open(join(root, 'counted.db'));
    try {
      const handle = await launchRun(
        {
          config: {
            datasetPath: mini,
            memory: { preset: 'test-recency' },
            answerer: llm(counting.url),
          },
          estimate: null,
        },
        {
          store,
          dataDir: join(root, 'counted'),
          executor: inlineExecutor({ createMemory: async (ctx) => new RecencyMemory(ctx) }),
          apiKeys: new ApiKeySource({ env: {} }),
          mayStartProcesses: false,
        },
      );
      expect((await handle.done).status).toBe('completed');
      const ledger = store.callLedger(handle.runId);
      const total = ledger.reduce((sum, r) => sum + r.calls, 0);
      expect(total).toBe(counting.requests.length);
      expect(ledger.find((r) => r.role === 'preflight')).toMatchObject({
        model: 'fake-chat',
        calls: 1,
        failures: 0,
      });
      expect(ledger.find((r) => r.role === 'answer')?.calls).toBe(counting.requests.length - 1);
      const usage = store.getRun(handle.runId).manifest.usage;
      expect(usage?.preflight?.calls).toBe(1);
      expect((usage?.answer.calls ?? 0) + (usage?.preflight?.calls ?? 0)).toBe(
        counting.requests.length,
      );
    } finally {
      store.close();
      await counting.close();
    }
  });
});
