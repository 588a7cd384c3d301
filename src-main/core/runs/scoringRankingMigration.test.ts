import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixtureManifest } from '../../../tests/support/runs-fixture';
import { rankingDepthMark, type RunSummary } from '../../../src-shared/experiment';
import { metricOf } from '../../../src-shared/metrics';
import { openRunsDb } from './db';
import { MIGRATIONS } from './migrations';
import { RunStore } from './store';
import { parseStoredSummary } from './summaries';

const dir = mkdtempSync(join(tmpdir(), 'workbench-ranking-migration-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Found by what it adds, not by number: the lead renumbers migrations at merge.
const index = MIGRATIONS.findIndex((m) => m.up.includes('ADD COLUMN scoring_ranking'));
const migration = MIGRATIONS[index]!;
const before = MIGRATIONS[index - 1]!;

const lmeManifest = (runId: string) => {
  const manifest = fixtureManifest(runId);
  return { ...manifest, dataset: { ...manifest.dataset, format: 'longmemeval' } };
};

describe('the scoring-ranking migration', () => {
  it("keeps a LongMemEval run's old answers readable, their ranking depth not recorded", () => {
    expect(index).toBeGreaterThan(0);
    const file = join(dir, 'runs.db');
    const old = openRunsDb(file, { targetVersion: before.version });
    old
      .prepare(
        "INSERT INTO runs (id, status, created_at, started_at, preset, config_hash, manifest) VALUES ('r1', 'completed', 't', 't', 'hybrid', 'h', ?)",
      )
      .run(JSON.stringify(lmeManifest('r1')));
    old
      .prepare(
        "INSERT INTO run_samples (run_id, sample_id, position, status, total_packets, total_questions, threshold, planned_tests) VALUES ('r1', 'q1', 0, 'completed', 1, 1, 1, 1)",
      )
      .run();
    old
      .prepare(
        "INSERT INTO tests (run_id, sample_id, test_index, packet_idx, dialogs_inserted, visible_count, question_indices, committed_at) VALUES ('r1', 'q1', 0, 0, 2, 1, '[0]', 't')",
      )
      .run();
    old
      .prepare(
        `INSERT INTO answers (run_id, sample_id, test_index, question_index, category, question, gold, prediction, retrieved, retrieve_ms, answer_ms, error)
         VALUES ('r1', 'q1', 0, 0, 1, 'q', 'a', 'a', '[{"id":"0","diaId":"D1:2","score":1}]', 3, 5, NULL)`,
      )
      .run();
    old
      .prepare(
        "INSERT INTO answer_scores (run_id, sample_id, test_index, question_index, metric, value) VALUES ('r1', 'q1', 0, 0, 'lmeTurnRecall', 0)",
      )
      .run();
    // The summary an older run stored: no rankingDepth key.
    const oldSummary = JSON.stringify({
      byCategory: {},
      overall: { all: { judge: { mean: null, n: 0, std: null, repeats: 0 } } },
      questions: 1,
      errors: 0,
    });
    old.prepare("UPDATE runs SET summary = ? WHERE id = 'r1'").run(oldSummary);
    old.close();

    openRunsDb(file, { targetVersion: migration.version }).close();
    const store = RunStore.open(file);
    try {
      const [answer] = store.finalAnswers('r1');
      expect(answer?.prediction).toBe('a');
      expect(answer?.retrieved.map((r) => r.diaId)).toEqual(['D1:2']);
      expect(answer?.scoringRanking).toBeNull();
      // Stored and recomputed, the summary says the depth is not recorded, and tables mark it.
      const stored = parseStoredSummary(file, 'r1', oldSummary) as RunSummary;
      expect(stored.rankingDepth).toBeUndefined();
      expect(store.summary('r1').rankingDepth).toBeUndefined();
      store.db.prepare("UPDATE runs SET summary = NULL WHERE id = 'r1'").run();
      expect(store.summary('r1').rankingDepth).toBeUndefined();
      expect(rankingDepthMark(metricOf('lmeTurnRecall'), stored)?.mark).toBe('?');
    } finally {
      store.close();
    }
  });

  it("stores a new answer's ranking and counts its lower bound in the summary", () => {
    const file = join(dir, 'new.db');
    const store = RunStore.open(file);
    try {
      store.db
        .prepare(
          "INSERT INTO runs (id, status, created_at, started_at, preset, config_hash, manifest) VALUES ('r2', 'completed', 't', 't', 'hybrid', 'h', ?)",
        )
        .run(JSON.stringify(lmeManifest('r2')));
      store.db
        .prepare(
          "INSERT INTO run_samples (run_id, sample_id, position, status, total_packets, total_questions, threshold, planned_tests) VALUES ('r2', 'q1', 0, 'completed', 1, 2, 1, 1)",
        )
        .run();
      const answer = (questionIndex: number, reached: boolean) => ({
        sampleId: 'q1',
        testIndex: 0,
        questionIndex,
        category: 1,
        question: 'q',
        gold: 'a',
        prediction: 'a',
        retrieved: [],
        scores: { lmeTurnRecall: 0 },
        judge: null,
        usage: null,
        scoringRanking: { turns: ['D1:1', 'D1:3'], reached },
        retrieveMs: 1,
        answerMs: 1,
        error: null,
      });
      store.commitTest('r2', {
        sampleId: 'q1',
        testIndex: 0,
        packetIdx: 0,
        dialogsInserted: 2,
        visibleCount: 2,
        questionIndices: [0, 1],
        answers: [answer(0, true), answer(1, false)],
      });
      const stored = store.finalAnswers('r2');
      expect(stored.map((a) => a.scoringRanking)).toEqual([
        { turns: ['D1:1', 'D1:3'], reached: true },
        { turns: ['D1:1', 'D1:3'], reached: false },
      ]);
      const summary = store.writeSummary('r2');
      expect(summary.rankingDepth).toEqual({ scored: 2, lowerBound: 1 });
      expect(rankingDepthMark(metricOf('lmeTurnRecall'), summary)?.note).toMatch(
        /^lower bound: 1 of 2 questions/,
      );
      // A stored count larger than its total is refused on read.
      expect(() =>
        parseStoredSummary(
          file,
          'r2',
          JSON.stringify({ ...summary, rankingDepth: { scored: 1, lowerBound: 2 } }),
        ),
      ).toThrow(/lowerBound/);
    } finally {
      store.close();
    }
  });
});
