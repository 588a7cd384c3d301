import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { RecencyMemory } from '../../../tests/fixtures/experiment/test-presets';
import { MAX_DATASET_BYTES_ENV } from '../dataset/load';
import { RunStore } from '../runs/store';
import { inlineExecutor, type SampleExecutor } from './executors';
import { startRunBypassingLauncher } from '../launch/testSeam';

/**
 * A run over a LongMemEval file above the whole-file limit (lowered here through its environment
 * variable): the runner streams the file, one question per lane, on the same executor path.
 */
const FIXTURE = fileURLToPath(
  new URL('../../../tests/fixtures/longmemeval/longmemeval_s.json', import.meta.url),
);
const root = mkdtempSync(join(tmpdir(), 'workbench-lme-streamed-'));
const before = process.env[MAX_DATASET_BYTES_ENV];
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => {
  if (before === undefined) delete process.env[MAX_DATASET_BYTES_ENV];
  else process.env[MAX_DATASET_BYTES_ENV] = before;
});
const streamAbove = (file: string): void => {
  process.env[MAX_DATASET_BYTES_ENV] = String(statSync(file).size - 1);
};

let counter = 0;
async function run(datasetPath: string, executor: SampleExecutor, parallel = 1) {
  counter++;
  const store = RunStore.open(join(root, `runs-${counter}.db`));
  const handle = await startRunBypassingLauncher(
    { datasetPath, parallel, memory: { preset: 'test-recency' } },
    { store, dataDir: join(root, `data-${counter}`), executor },
  );
  const outcome = await handle.done;
  const finals = store
    .finalAnswers(handle.runId)
    .map((a) => [a.sampleId, a.testIndex, a.prediction, a.scores]);
  const { manifest } = store.getRun(handle.runId);
  store.close();
  return { outcome, finals, manifest };
}

const recency = (opened: string[] = []) =>
  inlineExecutor({
    createMemory: async (ctx) => {
      opened.push(ctx.sample.sampleId);
      return new RecencyMemory(ctx, {});
    },
  });

describe('a run over a streamed LongMemEval file', () => {
  it('answers as the same file loaded whole, each question in its own memory', async () => {
    const whole = await run(FIXTURE, recency());
    streamAbove(FIXTURE);
    const opened: string[] = [];
    const streamed = await run(FIXTURE, recency(opened), 2);
    expect(streamed.outcome.status).toBe('completed');
    expect(streamed.finals).toEqual(whole.finals);
    expect(streamed.outcome.summary).toEqual(whole.outcome.summary);
    expect(streamed.manifest.dataset).toEqual(whole.manifest.dataset);
    expect([...opened].sort()).toEqual([...whole.manifest.samples].sort());
  });

  it('hands an all-at-once executor no more samples than parallel or cores', async () => {
    // 40 questions: more than any machine running this has cores.
    const [first] = JSON.parse(readFileSync(FIXTURE, 'utf8')) as [Record<string, unknown>];
    const file = join(root, 'forty.json');
    writeFileSync(
      file,
      JSON.stringify(Array.from({ length: 40 }, (_, i) => ({ ...first, question_id: `q${i}` }))),
    );
    const inner = recency();
    let inFlight = 0;
    let most = 0;
    const allAtOnce: SampleExecutor = {
      kind: 'distributed',
      parallelFor: (_requested, samples) => samples,
      prepare: async () => undefined,
      run: async (job, hooks, signal) => {
        inFlight++;
        most = Math.max(most, inFlight);
        try {
          await sleep(5);
          return await inner.run(job, hooks, signal);
        } finally {
          inFlight--;
        }
      },
    };
    const whole = await run(file, allAtOnce);
    expect(whole.manifest.parallel).toBe(40);
    most = 0;
    streamAbove(file);
    const streamed = await run(file, allAtOnce);
    const cap = Math.max(1, availableParallelism());
    expect(streamed.outcome.status).toBe('completed');
    expect(streamed.manifest.parallel).toBe(cap);
    expect(most).toBeLessThanOrEqual(cap);
    expect(streamed.finals).toEqual(whole.finals);
  });
});
