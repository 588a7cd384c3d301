import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ExperimentConfigSchema } from '../../../src-shared/experiment';
import type { Sample } from '../../../src-shared/dataset/types';
import { RecencyMemory } from '../../../tests/fixtures/experiment/test-presets';
import { ExtractiveAnswerer } from '../answer/extractive';
import { loadDatasetFile } from '../dataset/load';
import { packetCount } from '../dataset/packets';
import { planTests } from '../dataset/testPlan';
import { runSample } from './runSample';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const root = mkdtempSync(join(tmpdir(), 'workbench-runsample-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** mini-1's sessions forty times over: a sample long enough that a cancel lands mid-way. */
async function longSample(): Promise<Sample> {
  const { samples } = await loadDatasetFile(mini);
  const base = samples[0] as Sample;
  const sessions = Array.from({ length: 40 }, (_, copy) =>
    base.sessions.map((s) => ({ ...s, index: copy * 100 + s.index })),
  ).flat();
  return { ...base, sessions };
}

describe('runSample', () => {
  it('sees a cancel that arrives as an event-loop task between two packets of an offline sample', async () => {
    const sample = await longSample();
    const total = packetCount(sample);
    const CANCEL_AT = 5;
    const stop = new AbortController();
    let inserted = 0;
    let insertedAtCancel: number | null = null;
    const outcome = await runSample(
      {
        runId: 'r',
        sample,
        // No tests: the insert loop alone, which holds the thread when inserts never wait.
        plan: { ...planTests(sample), tests: [] },
        config: ExperimentConfigSchema.parse({
          datasetPath: mini,
          memory: { preset: 'test-recency' },
        }),
        benchmark: 'locomo',
        skipTests: new Set(),
        collectionDir: join(root, 'c'),
        apiKeys: {},
      },
      {
        emit: (event) => {
          if (event.type !== 'packet') return;
          inserted = event.inserted;
          // The worker's cancel is a message: a task of the event loop, not a microtask.
          if (inserted === CANCEL_AT) {
            setImmediate(() => {
              insertedAtCancel = inserted;
              stop.abort();
            });
          }
        },
        commitTest: () => undefined,
        recordCalls: () => undefined,
      },
      {
        createMemory: async (ctx) => new RecencyMemory(ctx),
        answerer: new ExtractiveAnswerer(),
        signal: stop.signal,
      },
    );
    expect(total).toBeGreaterThan(100);
    expect(outcome.status).toBe('cancelled');
    // Ordering, not time: the cancel ran before the next packet's insert.
    expect(insertedAtCancel).toBe(CANCEL_AT);
    expect(inserted - CANCEL_AT).toBeLessThanOrEqual(1);
  });
});
