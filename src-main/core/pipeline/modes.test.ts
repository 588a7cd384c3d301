import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ExperimentConfigSchema, type ExperimentConfigInput } from '../../../src-shared/experiment';
import { loadDatasetFile } from '../dataset/load';
import { createMemoryService } from '../memory/registry';
import '../memory/presets';
import { RunStore } from '../runs/store';
import { inlineExecutor } from './executors';
import { startRunBypassingLauncher } from '../launch/testSeam';

/**
 * Protocol modes (issue 12 item 5) through the real runner and runs database: `ingest-all` asks
 * every question once after the last packet; `stream` re-asks as the conversation grows, and its
 * final test runs after the last packet too. Retrieval changes no memory state, so both modes
 * give every question the same final answer.
 */
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const root = mkdtempSync(join(tmpdir(), 'workbench-modes-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;

/** memoryos where heat decides what is read: any heat raised by asking would show. */
const MEMORYOS = { shortTermCapacity: 2, segmentThreshold: 0.3, heatWeight: 50, topSegments: 1 };

async function run(config: ExperimentConfigInput) {
  const store = RunStore.open(join(root, `runs-${++counter}.db`));
  const executor = inlineExecutor({
    createMemory: (ctx) =>
      createMemoryService(config.memory?.preset ?? 'memoryos', config.memory?.config ?? {}, ctx),
  });
  const handle = await startRunBypassingLauncher(config, {
    store,
    dataDir: join(root, `w${counter}`),
    executor,
  });
  const outcome = await handle.done;
  expect(outcome.status).toBe('completed');
  return { store, runId: handle.runId };
}

const finals = (store: RunStore, runId: string) =>
  store
    .finalAnswers(runId)
    .map((a) => ({
      key: `${a.sampleId}#${a.questionIndex}`,
      prediction: a.prediction,
      retrieved: a.retrieved,
    }))
    .sort((a, b) => a.key.localeCompare(b.key));

describe('protocol modes', () => {
  it('accepts --mode values and refuses others, naming them', () => {
    expect(ExperimentConfigSchema.parse({ datasetPath: 'x' }).mode).toBeUndefined();
    expect(ExperimentConfigSchema.parse({ datasetPath: 'x', mode: 'ingest-all' }).mode).toBe(
      'ingest-all',
    );
    const bad = ExperimentConfigSchema.safeParse({ datasetPath: 'x', mode: 'batch' });
    expect(bad.error?.issues[0]?.message).toBe('must be one of stream, ingest-all');
  });

  it('ingest-all asks each question once; stream ends with the same final answers (memoryos)', async () => {
    const memory = { preset: 'memoryos', config: MEMORYOS };
    const all = await run({
      datasetPath: mini,
      memory,
      mode: 'ingest-all',
      retrieval: { topK: 3 },
    });
    const stream = await run({ datasetPath: mini, memory, retrieval: { topK: 3 } });
    const { samples } = await loadDatasetFile(mini);
    let streamTests = 0;
    for (const sample of samples) {
      expect(all.store.committedTests(all.runId, sample.sampleId)).toEqual([0]);
      streamTests += stream.store.committedTests(stream.runId, sample.sampleId).length;
    }
    // Stream re-asked questions along the way: the same question met memory several times.
    expect(streamTests).toBeGreaterThan(samples.length);
    expect(all.store.getRun(all.runId).manifest.config.mode).toBe('ingest-all');
    expect(finals(stream.store, stream.runId)).toEqual(finals(all.store, all.runId));
  });
});
