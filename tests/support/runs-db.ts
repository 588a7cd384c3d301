import { randomBytes } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import { ExperimentConfigSchema, type AnswerRecord } from '../../src-shared/experiment';
import { openSqlite, type SqliteDatabase } from '../../src-main/core/sqlite';
import type { RunManifest } from '../../src-main/core/runs/manifest';
import { RunStore } from '../../src-main/core/runs/store';
import { createLabelSession, saveLabel } from '../../src-main/core/runs/labels';

/**
 * Real runs databases: for corruption tests, several complete runs and a way to damage one page;
 * for migration tests, a run written into an older schema.
 */

export const RUNS = ['run-a', 'run-b', 'run-c'];
const SAMPLES = ['s1', 's2'];
const TESTS = 3;
const QUESTIONS = 40;

const manifest = (runId: string): RunManifest => ({
  manifestVersion: 1,
  runId,
  config: ExperimentConfigSchema.parse({ datasetPath: 'd.json' }),
  configHash: 'h',
  dataset: { path: 'd.json', sha256: 'x', bytes: 1, format: 'locomo' },
  samples: SAMPLES,
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

function answer(sampleId: string, testIndex: number, questionIndex: number): AnswerRecord {
  return {
    sampleId,
    testIndex,
    questionIndex,
    category: 4,
    question: `question ${questionIndex} about a long conversation, padded so rows fill pages`,
    gold: 'gold',
    prediction: 'prediction',
    retrieved: Array.from({ length: 10 }, (_, k) => ({
      id: `D1:${k}`,
      diaId: `D1:${k}`,
      score: k,
    })),
    scores: {
      officialF1: 0.5,
      evidenceRecall: 1,
      setF1: 0.5,
      bleu1: 0.5,
    },
    retrieveMs: 1,
    answerMs: 1,
    error: null,
    judge: null,
    usage: null,
  };
}

/** A real runs DB with several complete runs, closed (checkpointed) like a finished process. */
export function buildDb(file: string): number {
  const store = RunStore.open(file);
  let answers = 0;
  for (const runId of RUNS) {
    store.createRun(
      manifest(runId),
      SAMPLES.map((sampleId) => ({
        sampleId,
        totalPackets: 1,
        totalQuestions: QUESTIONS,
        threshold: 4,
        plannedTests: TESTS,
      })),
    );
    for (const sampleId of SAMPLES) {
      for (let t = 0; t < TESTS; t++) {
        const questionIndices = Array.from({ length: QUESTIONS }, (_, q) => q);
        store.commitTest(runId, {
          sampleId,
          testIndex: t,
          packetIdx: t,
          dialogsInserted: 2 * t,
          visibleCount: QUESTIONS,
          questionIndices,
          answers: questionIndices.map((q) => answer(sampleId, t, q)),
        });
        answers += QUESTIONS;
        // Every table holds rows, so a repair that leaves one out is seen.
        store.saveProtocolJudgeScores(
          runId,
          { protocol: 'mem0', model: 'judge-model', origin: '', repeats: 1, promptSha256: 'p' },
          questionIndices.map((questionIndex) => ({
            sampleId,
            testIndex: t,
            questionIndex,
            judge: { mean: 1, std: 0, labels: [1], error: null },
          })),
        );
      }
      store.markSample(runId, sampleId, { status: 'completed' });
    }
    for (const role of ['answer', 'judge'] as const) {
      store.recordCalls(runId, {
        role,
        model: `${role}-model`,
        calls: 120,
        failures: 0,
        promptTokens: 1000,
        completionTokens: 100,
        cacheHits: 7,
        shapes: [{ step: role, params: { model: `${role}-model`, temperature: 0 } }],
      });
    }
    store.judgeCache().put(`key-${runId}`, {
      model: 'judge-model',
      promptSha256: 'p',
      repeat: 0,
      verdict: { label: 'CORRECT', reason: 'r' },
      usage: null,
    });
    store.finishRun(runId, 'completed');
    // Human labels (their sample and one label), so the label tables hold rows too.
    const [first] = createLabelSession(store, runId, { perCategory: 2, seed: 0 }).items;
    if (first) saveLabel(store, { runId, key: first, labeller: 'ann', label: 'correct' });
  }
  // The judge audit's tables (core/runs/judgeAudit.ts): one set, one item, one verdict.
  store.db
    .prepare(
      "INSERT INTO judge_audit_sets VALUES ('audit-1', 't', 'locomo', 'd.json', 'x', 0, 1, 1)",
    )
    .run();
  store.db
    .prepare(
      "INSERT INTO judge_audit_items VALUES ('audit-1', 0, 'conv', 0, 4, 'gold', 'q', 'g', 'g', 'correct')",
    )
    .run();
  store.db
    .prepare(
      "INSERT INTO judge_audit_verdicts VALUES ('audit-1', 0, 'mem0', 'judge-model', 'http://127.0.0.1', 'p', 1, '[1]', NULL, 't')",
    )
    .run();
  store.close();
  return answers;
}

/** Rows per table of the schema, read from an intact file. */
export function tableCounts(file: string): Record<string, number> {
  const db = openSqlite(file, { readonly: true });
  try {
    const names = (
      db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .all() as Array<{ name: string }>
    ).map((r) => r.name);
    return Object.fromEntries(
      names.map((name) => [
        name,
        (db.prepare(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n,
      ]),
    );
  } finally {
    db.close();
  }
}

/** Overwrites one leaf page of the answers table (found with dbstat) with random bytes. */
export function corruptAnswersPage(file: string): void {
  corruptLeafPage(file, 'answers');
}

/**
 * Overwrites the leaf page in the middle of a table's b-tree (found with dbstat) with random
 * bytes; returns how many rows that page held.
 */
export function corruptLeafPage(file: string, table: string): number {
  const db = openSqlite(file, { readonly: true });
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const leaves = db
    .prepare("SELECT pageno, ncell FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY path")
    .all(table) as Array<{ pageno: number; ncell: number }>;
  db.close();
  const victim = leaves[Math.floor(leaves.length / 2)];
  // Never the header page: the damage must be inside the data, where only a check finds it.
  if (victim === undefined || victim.pageno <= 1)
    throw new Error(`no ${table} leaf page to damage`);
  const fd = openSync(file, 'r+');
  writeSync(fd, randomBytes(pageSize), 0, pageSize, (victim.pageno - 1) * pageSize);
  closeSync(fd);
  return victim.ncell;
}

/** Overwrites the 100-byte database header (magic string, page size, schema cookie…). */
export function corruptHeader(file: string): void {
  const fd = openSync(file, 'r+');
  writeSync(fd, randomBytes(100), 0, 100, 0);
  closeSync(fd);
}

/** One final answer of a run written by hand into an older schema (sample `s`, category 4). */
export interface OldSchemaAnswer {
  question: string;
  gold: string;
  prediction: string;
}

/**
 * Writes a completed run into a runs DB opened at an older schema version (6 or later: scores in
 * `answer_scores`, none on the answer row), by raw SQL, because the store writes only the current
 * schema: the run's row (id and preset from the manifest), its one sample `s`, one test that asks
 * every answer's question, and the answers (indices 0..n-1, category 4), as an older build left
 * them. Migration tests then open the file with a newer build and read the run back.
 */
export function insertOldSchemaRun(
  db: SqliteDatabase,
  manifest: RunManifest,
  answers: readonly OldSchemaAnswer[] = [{ question: 'q', gold: 'a', prediction: 'a' }],
): void {
  const runId = manifest.runId;
  const indices = answers.map((_, i) => i);
  db.prepare(
    `INSERT INTO runs (id, status, created_at, started_at, preset, config_hash, manifest)
     VALUES (?, 'completed', 't', 't', ?, 'h', ?)`,
  ).run(runId, manifest.memory.preset, JSON.stringify(manifest));
  db.prepare(
    `INSERT INTO run_samples (run_id, sample_id, position, status, total_packets, total_questions, threshold, planned_tests)
     VALUES (?, 's', 0, 'completed', 1, ?, 1, 1)`,
  ).run(runId, answers.length);
  db.prepare(
    `INSERT INTO tests (run_id, sample_id, test_index, packet_idx, dialogs_inserted, visible_count, question_indices, committed_at)
     VALUES (?, 's', 0, 0, 2, ?, ?, 't')`,
  ).run(runId, answers.length, JSON.stringify(indices));
  const insert = db.prepare(
    `INSERT INTO answers (run_id, sample_id, test_index, question_index, category, question, gold, prediction, retrieved, retrieve_ms, answer_ms, error)
     VALUES (?, 's', 0, ?, 4, ?, ?, ?, '[]', 3, 5, NULL)`,
  );
  answers.forEach((a, i) => insert.run(runId, i, a.question, a.gold, a.prediction));
}
