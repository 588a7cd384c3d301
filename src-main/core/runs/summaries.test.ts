import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ExperimentConfigSchema } from '../../../src-shared/experiment';
import type { RunManifest } from './manifest';
import { RunStore } from './store';

const dir = mkdtempSync(join(tmpdir(), 'workbench-summaries-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const manifest = (runId: string): RunManifest => ({
  manifestVersion: 1,
  runId,
  config: ExperimentConfigSchema.parse({ datasetPath: 'd.json' }),
  configHash: 'h',
  dataset: { path: 'd.json', sha256: 'x', bytes: 1, format: 'locomo' },
  samples: ['s'],
  app: { version: '0', gitCommit: null },
  memory: { preset: 'p', notes: [] },
  embedder: null,
  answerer: { kind: 'extractive', name: 'extractive-v1' },
  seed: 42,
  parallel: 1,
  host: { platform: 'linux', arch: 'x64', node: 'v20', cores: 2 },
  startedAt: '2025-01-01T00:00:00.000Z',
  endedAt: null,
  errors: { insert: 0, answer: 0 },
});

const answer = (questionIndex: number, category: number, officialF1: number) => ({
  sampleId: 's',
  testIndex: 0,
  questionIndex,
  category,
  question: 'q',
  gold: 'g',
  prediction: 'g',
  retrieved: [],
  scores: { officialF1 },
  retrieveMs: 1,
  answerMs: 1,
  error: null,
  judge: null,
  usage: null,
});

describe('stored run summaries', () => {
  it("reads a summary stored before the one `answerable` key: LoCoMo's `categories1to4` is it", () => {
    const store = RunStore.open(join(dir, 'runs.db'));
    store.createRun(manifest('r'), [
      { sampleId: 's', totalPackets: 1, totalQuestions: 2, threshold: 1, plannedTests: 1 },
    ]);
    store.commitTest('r', {
      sampleId: 's',
      testIndex: 0,
      packetIdx: 0,
      dialogsInserted: 1,
      visibleCount: 2,
      questionIndices: [0, 1],
      // Category 1 answered right, adversarial category 5 wrong: the headline subset is 1 of 1.
      answers: [answer(0, 1, 1), answer(1, 5, 0)],
    });
    store.finishRun('r', 'completed');
    const current = store.summary('r');
    expect(current.overall.answerable).toMatchObject({ officialF1: { mean: 1, n: 1 } });

    // The same summary as a build before the key was one word for every benchmark stored it.
    const { answerable, ...rest } = current.overall;
    const old = { ...current, overall: { ...rest, categories1to4: answerable } };
    store.db.prepare("UPDATE runs SET summary = ? WHERE id = 'r'").run(JSON.stringify(old));
    // With the answers gone only the stored JSON can answer: nothing is recomputed.
    store.db.prepare("DELETE FROM answers WHERE run_id = 'r'").run();

    const read = store.summary('r');
    expect(read).toEqual(current);
    expect(read.overall).not.toHaveProperty('categories1to4');
    expect(store.listRuns()[0]?.summary).toEqual(current);
    store.close();
  });
});
