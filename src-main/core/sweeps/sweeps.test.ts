import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { RecencyMemory } from '../../../tests/fixtures/experiment/test-presets';
import { WorkbenchError } from '../../../src-shared/errors';
import { loadDatasetFile } from '../dataset/load';
import { planTests } from '../dataset/testPlan';
import { inlineExecutor } from '../pipeline/executors';
import { RunStore } from '../runs/store';
import { planSweep } from '../pipeline/plan';
import { displayRedisUrl, parseRedisUrl } from './distributed';
import { listSweeps, sweepDetail } from '../runs/sweeps';
import { runSweep } from './run';
import { loadSweep, readSweepFile } from './spec';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const root = mkdtempSync(join(tmpdir(), 'workbench-sweeps-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;

function write(name: string, text: string): string {
  const file = join(root, name);
  writeFileSync(file, text);
  return file;
}

const recency = () => inlineExecutor({ createMemory: async (ctx) => new RecencyMemory(ctx, {}) });

describe('sweep spec files', () => {
  it('reads YAML, resolves the dataset path against the spec file and names the sweep by content', () => {
    const file = write(
      'a.yaml',
      'name: topk\nbase:\n  datasetPath: data/mini.json\naxes:\n  retrieval.topK: [5, 10]\n',
    );
    const sweep = readSweepFile(file);
    expect(sweep.cells.map((c) => c.config.datasetPath)).toEqual([
      join(root, 'data/mini.json'),
      join(root, 'data/mini.json'),
    ]);
    expect(sweep.sweepId).toMatch(/^topk-[0-9a-f]{10}$/);
    // Same content, same id (a rerun resumes); an edit makes a new sweep.
    expect(readSweepFile(write('b.yaml', readFileText(file))).sweepId).toBe(sweep.sweepId);
    const edited = write('c.yaml', readFileText(file).replace('[5, 10]', '[5, 20]'));
    expect(readSweepFile(edited).sweepId).not.toBe(sweep.sweepId);
  });

  it('reads JSON too, and says where YAML is broken', () => {
    const json = write('s.json', JSON.stringify({ name: 'j', base: { datasetPath: mini } }));
    expect(readSweepFile(json).cells).toHaveLength(1);
    const bad = write('bad.yaml', 'name: x\nbase:\n  datasetPath: [unclosed\n');
    expect(() => readSweepFile(bad)).toThrow(
      new RegExp(`^sweep spec ${bad}:\\d+:\\d+: not valid YAML`),
    );
  });

  it('names the file and the path of a bad field', () => {
    const file = write('bad-field.yaml', 'name: x\nbase: {datasetPath: d.json}\nrepeats: 0\n');
    try {
      readSweepFile(file);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(WorkbenchError);
      expect((error as WorkbenchError).path).toEqual(['repeats']);
      expect((error as WorkbenchError).message).toMatch(/^sweep spec .*bad-field\.yaml: repeats: /);
    }
  });
});

const readFileText = (file: string): string => readFileSync(file, 'utf8');

describe('sweep plan', () => {
  it('counts one answer call per question per test for LLM answerers, judge calls times repeats', async () => {
    const sweep = loadSweep(
      {
        name: 'p',
        base: {
          datasetPath: mini,
          judge: {
            baseUrl: 'http://127.0.0.1:9/v1',
            model: 'j',
            repeats: 3,
            prices: { inputPerMillion: 1, outputPerMillion: 2 },
          },
        },
        axes: {
          answerer: [
            { kind: 'extractive' },
            {
              kind: 'llm',
              baseUrl: 'http://127.0.0.1:9/v1',
              model: 'a',
              prices: { inputPerMillion: 1, outputPerMillion: 2 },
            },
          ],
        },
      },
      'p.yaml',
      root,
    );
    const plan = await planSweep(sweep.cells);
    const { samples } = await loadDatasetFile(mini);
    let asked = 0;
    let judgeable = 0;
    for (const s of samples) {
      const cat = new Map(s.qa.map((q) => [q.index, q.category]));
      // The cells' configs ask every question (includeNoEvidence defaults to true).
      for (const t of planTests(s, { includeNoEvidence: true }).tests) {
        asked += t.questionIndices.length;
        judgeable += t.questionIndices.filter((i) => cat.get(i) !== 5).length;
      }
    }
    const [extractive, llm] = plan.cells;
    expect(extractive).toMatchObject({
      questions: asked,
      answerCalls: 0,
      judgeCalls: judgeable * 3,
    });
    expect(llm).toMatchObject({ questions: asked, answerCalls: asked, judgeCalls: judgeable * 3 });
    expect(llm?.cost).toBeGreaterThan(extractive?.cost ?? Infinity);
    expect(plan.totals.answerCalls).toBe(asked);
  });
});

describe('local sweep executor', () => {
  it('runs each cell as a tagged run, and a rerun skips completed cells and resumes the rest', async () => {
    const store = RunStore.open(join(root, `runs-${++counter}.db`));
    const dataDir = join(root, `data-${counter}`);
    const sweep = loadSweep(
      {
        name: 'local',
        base: { datasetPath: mini, memory: { preset: 'test-recency' } },
        axes: { 'retrieval.topK': [1, 5, 10] },
      },
      'local.yaml',
      root,
    );
    // Cancel once the first cell is done: the second is cancelled, the third never starts.
    const controller = new AbortController();
    const first = await runSweep(sweep, {
      store,
      dataDir,
      executor: recency(),
      signal: controller.signal,
      onProgress: (cell, event) => {
        if (cell.index === 1 && event.type === 'test-committed') controller.abort();
      },
    });
    expect(first.cells.map((c) => c.status)).toEqual(['completed', 'cancelled', 'not-run']);
    expect(store.sweepRuns(sweep.sweepId)).toHaveLength(2);

    const second = await runSweep(sweep, { store, dataDir, executor: recency() });
    expect(second.cells.map((c) => [c.action, c.status])).toEqual([
      ['skipped', 'completed'],
      ['resumed', 'completed'],
      ['started', 'completed'],
    ]);
    // One run per cell, never a duplicate; each carries its place in the grid.
    const runs = store.sweepRuns(sweep.sweepId);
    expect(runs).toHaveLength(3);
    expect(new Set(runs.map((r) => r.runId))).toEqual(new Set(second.cells.map((c) => c.runId)));
    const tagged = store.getRun(second.cells[2]?.runId ?? '').manifest;
    expect(tagged.sweep).toEqual({
      sweepId: sweep.sweepId,
      name: 'local',
      cellKey: 'retrieval.topK=10 #0',
      cellIndex: 2,
      values: { 'retrieval.topK': 10 },
      repeat: 0,
    });
    expect(tagged.config.retrieval.topK).toBe(10);
    // The resumed cell's answers are complete: every planned question at the final test.
    const { samples } = await loadDatasetFile(mini);
    const total = samples.reduce(
      (n, s) => n + planTests(s, { includeNoEvidence: true }).totalQuestions,
      0,
    );
    expect(store.finalAnswers(second.cells[1]?.runId ?? '')).toHaveLength(total);

    // What the Sweep view reads: one row per cell, in grid order, with the run's scores.
    expect(listSweeps(store)).toEqual([
      expect.objectContaining({ sweepId: sweep.sweepId, name: 'local', runs: 3, completed: 3 }),
    ]);
    const detail = sweepDetail(store, sweep.sweepId);
    expect(detail.axes).toEqual(['retrieval.topK']);
    expect(detail.cells.map((c) => c.runId)).toEqual(second.cells.map((c) => c.runId));
    expect(detail.cells[2]?.metrics.officialF1).toBe(
      store.summary(second.cells[2]?.runId ?? '').overall.all.officialF1.mean,
    );
    expect(() => sweepDetail(store, 'nope')).toThrow(/no runs of sweep nope/);
    store.close();
  });
});

describe('sweep detail', () => {
  it("keys each cell's per-category scores by the dataset's benchmark: LongMemEval's question types", async () => {
    const store = RunStore.open(join(root, `runs-${++counter}.db`));
    const sweep = loadSweep(
      {
        name: 'lme',
        base: {
          datasetPath: join(repo, 'tests/fixtures/longmemeval/longmemeval_s.json'),
          memory: { preset: 'test-recency' },
        },
        axes: { 'retrieval.topK': [5] },
      },
      'lme.yaml',
      root,
    );
    await runSweep(sweep, { store, dataDir: join(root, `data-${counter}`), executor: recency() });
    const detail = sweepDetail(store, sweep.sweepId);
    expect(detail.benchmark.id).toBe('longmemeval');
    expect(Object.keys(detail.cells[0]?.byCategory ?? {})).toEqual(
      detail.benchmark.categories.map((c) => String(c.id)),
    );
    expect(Object.keys(detail.cells[0]?.byCategory ?? {})).toContain('12');
    store.close();
  });
});

describe('Redis URLs', () => {
  it('accepts redis:// and rediss:// only, and never prints a password', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
    expect(() => parseRedisUrl('http://127.0.0.1:6379')).toThrow(
      '--redis: must be a redis:// or rediss:// URL (got http:)',
    );
    expect(() => parseRedisUrl('s3cret host')).toThrow(/^--redis: not a URL \(expected/);
    expect(displayRedisUrl('redis://:s3cret@127.0.0.1:6379/0')).toBe(
      'redis://:***@127.0.0.1:6379/0',
    );
    expect(displayRedisUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
  });
});
