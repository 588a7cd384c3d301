import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerBenchmarkProfile, LOCOMO_PROFILE } from '../../src-shared/benchmarks';
import { compareRuns } from '../../src-shared/compare';
import {
  ExperimentConfigSchema,
  answerScores,
  type AnswerRecord,
} from '../../src-shared/experiment';
import { isMetricId, registerMetric } from '../../src-shared/metrics';
import { judgeable } from '../../src-main/core/answer/judge';
import { buildAnswerPrompt } from '../../src-main/core/answer/prompts';
import { exportColumns, exportRun } from '../../src-main/core/runs/export';
import type { RunManifest } from '../../src-main/core/runs/manifest';
import { summaryTable } from '../../src-main/core/runs/report';
import { RunStore } from '../../src-main/core/runs/store';
import { exactMatchMetric } from '../support/registry/exactMatch.metric';
import { TOYBENCH_PROFILE } from '../support/registry/toybench.profile';

/**
 * The registries' promise: a metric is one definition and a benchmark is one profile. Each is
 * registered here from its own file, then followed through scoring, the runs DB, the CLI table,
 * the exports and a comparison, with no other code knowing either exists.
 */

const dir = mkdtempSync(join(tmpdir(), 'workbench-registry-'));
const unregister: Array<() => void> = [];
beforeAll(() => {
  unregister.push(registerMetric(exactMatchMetric), registerBenchmarkProfile(TOYBENCH_PROFILE));
});
afterAll(() => {
  for (const undo of unregister) undo();
  rmSync(dir, { recursive: true, force: true });
});

const manifest = (runId: string): RunManifest => ({
  manifestVersion: 1,
  runId,
  config: ExperimentConfigSchema.parse({ datasetPath: 'toy.json' }),
  configHash: 'h',
  dataset: { path: 'toy.json', sha256: null, bytes: null, format: TOYBENCH_PROFILE.id },
  samples: ['t1'],
  app: { version: '0', gitCommit: null },
  memory: { preset: 'p', notes: [] },
  embedder: null,
  answerer: { kind: 'extractive', name: 'extractive-v1' },
  seed: 1,
  parallel: 1,
  host: { platform: 'linux', arch: 'x64', node: 'v20', cores: 1 },
  startedAt: '2025-01-01T00:00:00.000Z',
  endedAt: null,
  errors: { insert: 0, answer: 0 },
});

/** question index, category, gold, prediction */
const QUESTIONS: Array<[number, number, string | null, string]> = [
  [0, 10, 'Paris', 'paris'],
  [1, 10, 'Lyon', 'Paris'],
  [2, 20, 'red, blue', 'blue, red'],
  [3, 30, null, 'Not mentioned in the conversation'],
];

function answers(predict: (gold: string | null, prediction: string) => string): AnswerRecord[] {
  return QUESTIONS.map(([questionIndex, category, gold, raw]) => {
    const prediction = predict(gold, raw);
    return {
      sampleId: 't1',
      testIndex: 0,
      questionIndex,
      category,
      question: `q${questionIndex}`,
      gold,
      prediction,
      retrieved: [{ id: 'm1', diaId: 'D1:1', score: 1 }],
      scores: answerScores(
        { prediction, gold, category, evidence: ['D1:1'], retrieved: ['D1:1'] },
        TOYBENCH_PROFILE,
      ),
      retrieveMs: 1,
      answerMs: 1,
      error: null,
      judge: null,
      usage: null,
    };
  });
}

function storeRun(store: RunStore, runId: string, list: AnswerRecord[]): void {
  store.createRun(manifest(runId), [
    { sampleId: 't1', totalPackets: 1, totalQuestions: 4, threshold: 1, plannedTests: 1 },
  ]);
  store.commitTest(runId, {
    sampleId: 't1',
    testIndex: 0,
    packetIdx: 0,
    dialogsInserted: 2,
    visibleCount: 4,
    questionIndices: list.map((a) => a.questionIndex),
    answers: list,
  });
  store.finishRun(runId, 'completed');
}

describe('a metric and a benchmark profile added in one file each', () => {
  it('scores with the new metric where the profile says it applies', () => {
    const [paris, lyon, listing, trap] = answers((_, p) => p);
    expect(paris?.scores).toMatchObject({ exactMatch: 1, officialF1: 1, evidenceRecall: 1 });
    expect(lyon?.scores['exactMatch']).toBe(0);
    // The profile's rule for category 20 is LoCoMo's multi-answer F1: order does not matter.
    expect(listing?.scores).toMatchObject({ exactMatch: 0, officialF1: 1 });
    // Category 30 is adversarial: "answerable" metrics skip it, official F1 checks the abstention.
    expect(trap?.scores).toMatchObject({ exactMatch: null, setF1: null, officialF1: 1 });
  });

  it('stores the new metric in the runs DB, summarises, prints and exports it by the profile', () => {
    const store = RunStore.open(join(dir, 'runs.db'));
    try {
      storeRun(
        store,
        'toy-a',
        answers((_, p) => p),
      );
      const stored = store
        .finalAnswers('toy-a')
        .map((a) => [a.questionIndex, a.scores['exactMatch']]);
      expect(stored).toEqual([
        [0, 1],
        [1, 0],
        [2, 0],
        [3, null],
      ]);
      expect(
        store.db
          .prepare("SELECT count(*) AS n FROM answer_scores WHERE metric = 'exactMatch'")
          .get(),
      ).toEqual({ n: 4 });

      const summary = store.summary('toy-a');
      expect(Object.keys(summary.byCategory)).toEqual(['10', '20', '30']);
      expect(summary.byCategory[10]?.['exactMatch']).toEqual({ mean: 0.5, n: 2 });
      expect(summary.overall.answerable!['exactMatch']).toEqual({ mean: 1 / 3, n: 3 });
      expect(summary.overall.answerable!['officialF1']?.n).toBe(3);

      const table = summaryTable(summary, 'official', TOYBENCH_PROFILE);
      expect(table).toContain('Final answers, categories named by toy paper scheme');
      expect(table.split('\n')[1]).toMatch(/official F1 +n .* exact match +n$/);
      expect(table).toMatch(/^10 lookup .* 0\.500 +2$/m);
      expect(table).toMatch(/^30 trap /m);
      expect(table).toMatch(/^overall \(categories 10, 20\) .* 0\.333 +3$/m);

      const json = JSON.parse(exportRun(store, 'toy-a', 'json')) as {
        answers: Array<Record<string, unknown>>;
      };
      expect(json.answers.map((a) => a['exactMatch'])).toEqual([1, 0, 0, null]);
      const csv = exportRun(store, 'toy-a', 'csv').split('\r\n');
      // The added metric is a column of its own, after the original ones; where columns added
      // later (memoryTokens) go is not this test's business.
      const header = csv[0]?.split(',') ?? [];
      const column = header.indexOf('exactMatch');
      expect(column).toBeGreaterThan(header.indexOf('completionTokens'));
      expect(csv[1]?.split(',')[column]).toBe('1');
    } finally {
      store.close();
    }
  });

  it('compares runs by the new metric, over the categories the profile has', () => {
    const store = RunStore.open(join(dir, 'compare.db'));
    try {
      storeRun(
        store,
        'toy-b',
        answers((_, p) => p),
      );
      // The candidate copies every gold: it gains on question 1 and 2.
      storeRun(
        store,
        'toy-c',
        answers((gold, p) => gold ?? p),
      );
      expect(isMetricId('exactMatch')).toBe(true);
      const result = compareRuns(
        [
          { runId: 'toy-b', label: 'B', answers: store.finalAnswers('toy-b') },
          { runId: 'toy-c', label: 'C', answers: store.finalAnswers('toy-c') },
        ],
        { metric: 'exactMatch', resamples: 50 },
      );
      expect(result.flipCounts[1]).toMatchObject({ improved: 2, regressed: 0 });
      expect(result.categories.map((c) => c.category)).toEqual([null, 10, 20]);
    } finally {
      store.close();
    }
  });
});

describe("the profile's adversarial flag, not LoCoMo's number 5", () => {
  const request = (category: number, adversarial: boolean) => ({
    sampleId: 't1',
    benchmark: 'locomo',
    questionIndex: 3,
    question: 'Where did Bob move?',
    category,
    speakers: ['Ann', 'Bob'] as const,
    memories: [],
    seed: 1,
    adversarialAnswer: 'Lyon',
    adversarial,
  });

  it('turns an adversarial category of another benchmark into the two-option question', () => {
    expect(buildAnswerPrompt('locomo', request(30, true)).options).not.toBeNull();
    expect(buildAnswerPrompt('locomo', request(5, false)).options).toBeNull();
  });

  it('leaves the adversarial category out of the judge pass', () => {
    const answer = (category: number) => ({ category, gold: 'Paris' });
    expect(judgeable(answer(10), TOYBENCH_PROFILE)).toBe(true);
    expect(judgeable(answer(30), TOYBENCH_PROFILE)).toBe(false);
  });
});

describe('without the registration', () => {
  it('knows neither: the export has no such column and the profile is refused by id', () => {
    for (const undo of unregister.splice(0)) undo();
    expect(exportColumns(LOCOMO_PROFILE)).not.toContain('exactMatch');
    expect(isMetricId('exactMatch')).toBe(false);
    expect(() =>
      answerScores({ prediction: 'x', gold: 'x', category: 10 }, LOCOMO_PROFILE),
    ).toThrow('benchmark locomo: no category 10 (it has 1, 2, 3, 4, 5)');
  });
});
