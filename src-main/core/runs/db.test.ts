import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../sqlite';
import { RUNS_APPLICATION_ID, openRunsDb } from './db';
import { MIGRATIONS, RUNS_SCHEMA_VERSION } from './migrations';
import { ExperimentConfigSchema, type RunSummary } from '../../../src-shared/experiment';
import type { RunManifest } from './manifest';
import { RunStore } from './store';
import { computeRunSummary } from './summaries';
import { table2Columns } from '../../../src-shared/compare';
import { LOCOMO_PROFILE } from '../../../src-shared/benchmarks';
import { metricsOf } from '../../../src-shared/metrics';
import { insertOldSchemaRun } from '../../../tests/support/runs-db';

const dir = mkdtempSync(join(tmpdir(), 'workbench-runsdb-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
const file = (): string => join(dir, `runs-${++counter}.db`);

function columns(db: ReturnType<typeof openSqlite>, table: string): string[] {
  return (db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map(
    (c) => c.name,
  );
}

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

describe('runs DB migrations', () => {
  it('migration 1 creates runs, run_samples, tests, answers and stamps the file', () => {
    const db = openRunsDb(file(), { targetVersion: 1 });
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    expect(db.pragma('application_id', { simple: true })).toBe(RUNS_APPLICATION_ID);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(columns(db, 'answers')).toContain('official_f1');
    expect(columns(db, 'runs')).not.toContain('pid');
    db.close();
  });

  it('migration 2 adds the owner pid, the resume count and the final-answer index', () => {
    const db = openRunsDb(file(), { targetVersion: 2 });
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    expect(columns(db, 'runs')).toEqual(expect.arrayContaining(['pid', 'resumes']));
    const indexes = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index'")
      .all() as Array<{ name: string }>;
    expect(indexes.map((i) => i.name)).toContain('answers_by_question');
    db.close();
  });

  it('migration 3 adds Mem0-style metrics, judge verdicts and tokens per answer, and the judge cache', () => {
    const db = openRunsDb(file(), { targetVersion: 3 });
    expect(db.pragma('user_version', { simple: true })).toBe(3);
    expect(columns(db, 'answers')).toEqual(
      expect.arrayContaining([
        'set_f1',
        'bleu1',
        'judge_mean',
        'judge_std',
        'judge_labels',
        'judge_error',
        'prompt_tokens',
        'completion_tokens',
      ]),
    );
    expect(columns(db, 'judge_cache')).toEqual([
      'key',
      'model',
      'prompt_sha256',
      'repeat',
      'label',
      'reason',
      'prompt_tokens',
      'completion_tokens',
      'created_at',
    ]);
    db.close();
  });

  it('fills set F1 and BLEU-1 of answers recorded before migration 3 from their rows', () => {
    const f = file();
    const old = openRunsDb(f, { targetVersion: 2 });
    old
      .prepare(
        "INSERT INTO runs (id, status, created_at, started_at, preset, config_hash, manifest) VALUES ('r2', 'completed', 't', 't', 'p', 'h', ?)",
      )
      .run(JSON.stringify(manifest('r2')));
    old
      .prepare(
        "INSERT INTO run_samples (run_id, sample_id, position, status, total_packets, total_questions, threshold, planned_tests) VALUES ('r2', 's', 0, 'completed', 1, 2, 1, 1)",
      )
      .run();
    old
      .prepare(
        "INSERT INTO tests (run_id, sample_id, test_index, packet_idx, dialogs_inserted, visible_count, question_indices, committed_at) VALUES ('r2', 's', 0, 0, 2, 2, '[0,1]', 't')",
      )
      .run();
    const answer = old.prepare(
      `INSERT INTO answers (run_id, sample_id, test_index, question_index, category, question, gold, prediction, retrieved, official_f1, evidence_recall, retrieve_ms, answer_ms, error)
       VALUES ('r2', 's', 0, ?, ?, 'q', ?, ?, '[]', 0, NULL, 0, 0, NULL)`,
    );
    answer.run(0, 4, 'Paris', 'Paris');
    answer.run(1, 5, null, 'Not mentioned');
    old.close();
    const store = RunStore.open(f);
    const [single, adversarial] = store.finalAnswers('r2');
    expect(single).toMatchObject({ scores: { setF1: 1, bleu1: 1 }, judge: null, usage: null });
    expect(adversarial).toMatchObject({ scores: { setF1: null, bleu1: null }, judge: null });
    store.close();
  });

  it('migrations 5 and 6 move every score column into answer_scores, one row per metric, and drops the columns', () => {
    const f = file();
    const old = openRunsDb(f, { targetVersion: 3 });
    old
      .prepare(
        "INSERT INTO runs (id, status, created_at, started_at, preset, config_hash, manifest) VALUES ('r3', 'completed', 't', 't', 'p', 'h', ?)",
      )
      .run(JSON.stringify(manifest('r3')));
    old
      .prepare(
        "INSERT INTO run_samples (run_id, sample_id, position, status, total_packets, total_questions, threshold, planned_tests) VALUES ('r3', 's', 0, 'completed', 1, 3, 1, 1)",
      )
      .run();
    old
      .prepare(
        "INSERT INTO tests (run_id, sample_id, test_index, packet_idx, dialogs_inserted, visible_count, question_indices, committed_at) VALUES ('r3', 's', 0, 0, 2, 3, '[0,1,2]', 't')",
      )
      .run();
    const answer = old.prepare(
      `INSERT INTO answers (run_id, sample_id, test_index, question_index, category, question, gold, prediction, retrieved,
         official_f1, evidence_recall, retrieve_ms, answer_ms, error,
         set_f1, bleu1, judge_mean, judge_std, judge_labels, judge_error, prompt_tokens, completion_tokens)
       VALUES ('r3', 's', 0, ?, ?, 'q', ?, 'p', '[]', ?, ?, 1, 2, NULL, ?, ?, ?, ?, ?, ?, 5, 1)`,
    );
    // Judged, with evidence; a judge error, no evidence; adversarial, never judged.
    answer.run(0, 4, 'g', 0.25, 0.5, 0.125, 0.0625, 0.5, 0.7071, '[1,0]', null);
    answer.run(1, 2, 'g', 0.75, null, 0.375, 0.1875, null, null, null, 'judge: UPSTREAM');
    answer.run(2, 5, null, 1, 1, null, null, null, null, null, null);
    old.close();

    const v5 = openRunsDb(f, { targetVersion: 5 });
    expect(v5.pragma('user_version', { simple: true })).toBe(5);
    expect(columns(v5, 'answers')).not.toEqual(
      expect.arrayContaining(['official_f1', 'evidence_recall', 'set_f1', 'bleu1', 'judge_mean']),
    );
    expect(columns(v5, 'answers')).toEqual(
      expect.arrayContaining(['judge_std', 'judge_labels', 'judge_error', 'prompt_tokens']),
    );
    const rows = v5
      .prepare(
        'SELECT question_index AS q, metric, value FROM answer_scores ORDER BY question_index, metric',
      )
      .all();
    expect(rows).toEqual([
      { q: 0, metric: 'bleu1', value: 0.0625 },
      { q: 0, metric: 'evidenceRecall', value: 0.5 },
      { q: 0, metric: 'judge', value: 0.5 },
      { q: 0, metric: 'officialF1', value: 0.25 },
      { q: 0, metric: 'setF1', value: 0.125 },
      { q: 1, metric: 'bleu1', value: 0.1875 },
      { q: 1, metric: 'evidenceRecall', value: null },
      { q: 1, metric: 'judge', value: null },
      { q: 1, metric: 'officialF1', value: 0.75 },
      { q: 1, metric: 'setF1', value: 0.375 },
      { q: 2, metric: 'evidenceRecall', value: 1 },
      { q: 2, metric: 'officialF1', value: 1 },
    ]);
    v5.close();

    // Migration 6 keeps the stored (simple_tokenize) BLEU-1 as the variant; 'bleu1' is recomputed.
    const store = RunStore.open(f);
    expect(store.db.pragma('user_version', { simple: true })).toBe(RUNS_SCHEMA_VERSION);
    const [judged, failed, adversarial] = store.finalAnswers('r3');
    expect(judged).toMatchObject({
      scores: {
        officialF1: 0.25,
        evidenceRecall: 0.5,
        setF1: 0.125,
        bleu1Simple: 0.0625,
        bleu1: 0,
        judge: 0.5,
      },
      judge: { mean: 0.5, std: 0.7071, labels: [1, 0], error: null },
      usage: { promptTokens: 5, completionTokens: 1 },
    });
    expect(failed).toMatchObject({
      scores: { officialF1: 0.75, evidenceRecall: null, judge: null },
      judge: { mean: null, labels: [], error: 'judge: UPSTREAM' },
    });
    // Added after the row was stored: a retrieval metric is never guessed. The adversarial
    // answer has its stored scores and no other: every other metric LoCoMo carries is null.
    expect(adversarial?.scores).toMatchObject({
      officialF1: 1,
      evidenceRecall: 1,
      locomoRecall: null,
    });
    for (const metric of metricsOf(LOCOMO_PROFILE)) {
      expect(adversarial?.scores, metric.id).toHaveProperty(metric.id);
      if (metric.id !== 'officialF1' && metric.id !== 'evidenceRecall') {
        expect(adversarial?.scores[metric.id], metric.id).toBeNull();
      }
    }
    expect(adversarial?.judge).toBeNull();
    // Deleting the run takes its score rows with it.
    expect(store.deleteRun('r3')).toBe(true);
    expect(store.db.prepare('SELECT count(*) AS n FROM answer_scores').get()).toEqual({ n: 0 });
    store.close();
  });

  it('migration 7 gives every run a name, tags and notes (empty for runs made before), kept by the store', () => {
    const f = file();
    const v6 = openRunsDb(f, { targetVersion: 6 });
    v6.prepare(
      "INSERT INTO runs (id, status, created_at, started_at, preset, config_hash, manifest) VALUES ('old', 'completed', 't', 't', 'p', 'h', ?)",
    ).run(JSON.stringify(manifest('old')));
    v6.prepare(
      "INSERT INTO run_samples (run_id, sample_id, position, status, total_packets, total_questions, threshold, planned_tests) VALUES ('old', 's', 0, 'completed', 1, 3, 1, 1)",
    ).run();
    v6.close();

    const v7 = openRunsDb(f, { targetVersion: 7 });
    expect(v7.pragma('user_version', { simple: true })).toBe(7);
    expect(columns(v7, 'runs')).toEqual(expect.arrayContaining(['name', 'tags', 'notes']));
    v7.close();

    const store = RunStore.open(f);
    // The run made before keeps its data and lists with an empty identity and its settings.
    expect(store.listRuns()).toEqual([
      expect.objectContaining({
        id: 'old',
        name: '',
        tags: [],
        notes: '',
        topK: 10,
        seed: 42,
        answerer: 'extractive-v1',
        judgeProtocol: null,
        questions: 3,
      }),
    ]);
    expect(store.setRunIdentity('old', { name: 'window 13', tags: ['stm', 'ablation'] })).toEqual({
      name: 'window 13',
      tags: ['stm', 'ablation'],
      notes: '',
    });
    // A later edit of one field leaves the others.
    store.setRunIdentity('old', { notes: 'loses the first facts' });
    expect(store.getRun('old')).toMatchObject({
      name: 'window 13',
      tags: ['stm', 'ablation'],
      notes: 'loses the first facts',
    });
    expect(() => store.setRunIdentity('missing', { name: 'x' })).toThrow(/no run missing/);
    store.close();
  });

  it("migration 9 lets a run be 'paused', keeping a v8 file's runs whole", () => {
    const f = file();
    const v8 = openRunsDb(f, { targetVersion: 8 });
    v8.prepare(
      `INSERT INTO runs (id, status, created_at, started_at, preset, config_hash, manifest, name, tags, notes)
       VALUES ('r1', 'failed', 't0', 't0', 'hybrid', 'h', '{}', 'window 13', '["stm"]', 'n')`,
    ).run();
    expect(() => v8.prepare("UPDATE runs SET status = 'paused' WHERE id = 'r1'").run()).toThrow(
      /CHECK constraint failed/,
    );
    const before = v8.prepare('SELECT * FROM runs').all();
    const runColumns = columns(v8, 'runs');
    v8.close();
    const db = openRunsDb(f, { targetVersion: 9 });
    expect(db.pragma('user_version', { simple: true })).toBe(9);
    expect(columns(db, 'runs')).toEqual(runColumns);
    expect(db.prepare('SELECT * FROM runs').all()).toEqual(before);
    db.prepare("UPDATE runs SET status = 'paused' WHERE id = 'r1'").run();
    expect(db.prepare("SELECT status FROM runs WHERE id = 'r1'").get()).toEqual({
      status: 'paused',
    });
    expect(() => db.prepare("UPDATE runs SET status = 'asleep' WHERE id = 'r1'").run()).toThrow(
      /CHECK constraint failed/,
    );
    db.close();
  });

  it("migration 11 lets the call ledger hold role 'preflight', keeping a v10 file's ledger and its cascade", () => {
    const f = file();
    const v10 = openRunsDb(f, { targetVersion: 10 });
    v10
      .prepare(
        `INSERT INTO runs (id, status, created_at, started_at, preset, config_hash, manifest)
       VALUES ('r1', 'completed', 't0', 't0', 'hybrid', 'h', '{}')`,
      )
      .run();
    v10
      .prepare(
        `INSERT INTO llm_calls (run_id, role, model, calls, failures, prompt_tokens, completion_tokens)
       VALUES ('r1', 'answer', 'gpt', 3, 1, 30, 6), ('r1', 'embedder', 'emb', 2, 0, 8, 0)`,
      )
      .run();
    const preflightRow =
      "INSERT INTO llm_calls (run_id, role, model, calls) VALUES ('r1', 'preflight', 'gpt', 1)";
    expect(() => v10.prepare(preflightRow).run()).toThrow(/CHECK constraint failed/);
    const before = v10.prepare('SELECT * FROM llm_calls ORDER BY role').all();
    const ledgerColumns = columns(v10, 'llm_calls');
    v10.close();
    const db = openRunsDb(f, { targetVersion: 11 });
    expect(db.pragma('user_version', { simple: true })).toBe(11);
    expect(columns(db, 'llm_calls')).toEqual(ledgerColumns);
    expect(db.prepare('SELECT * FROM llm_calls ORDER BY role').all()).toEqual(before);
    db.prepare(preflightRow).run();
    expect(() =>
      db
        .prepare("INSERT INTO llm_calls (run_id, role, model) VALUES ('r1', 'warmup', 'gpt')")
        .run(),
    ).toThrow(/CHECK constraint failed/);
    // The rebuilt table still belongs to its run.
    db.prepare("DELETE FROM runs WHERE id = 'r1'").run();
    expect(db.prepare('SELECT count(*) AS n FROM llm_calls').get()).toEqual({ n: 0 });
    db.close();
  });

  it("migration 12 adds answers' memory tokens: a v11 file's answers read as unknown (null), not 0", () => {
    const f = file();
    const v11 = openRunsDb(f, { targetVersion: 11 });
    insertOldSchemaRun(v11, manifest('r1'));
    expect(columns(v11, 'answers')).not.toContain('memory_tokens');
    v11.close();

    const db = openRunsDb(f, { targetVersion: 12 });
    expect(db.pragma('user_version', { simple: true })).toBe(12);
    expect(db.prepare('SELECT memory_tokens FROM answers').get()).toEqual({ memory_tokens: null });
    db.close();
    const store = RunStore.open(f);
    const answers = store.finalAnswers('r1');
    expect(answers.map((a) => a.memoryTokens)).toEqual([null]);
    expect(table2Columns(null, answers).memoryTokens).toBeNull();
    store.close();
  });

  it("the ledger-cache migration keeps a file's ledger rows, reads their cache counts as 0 and files request shapes once", () => {
    // Found by what it creates, not by number: the lead renumbers migrations at merge.
    const mine = MIGRATIONS.find((m) => m.up.includes('llm_request_shapes'));
    if (!mine) throw new Error('no migration creates llm_request_shapes');
    const f = file();
    const before = openRunsDb(f, { targetVersion: mine.version - 1 });
    before
      .prepare(
        "INSERT INTO runs (id, status, created_at, started_at, preset, config_hash, manifest) VALUES ('r1', 'completed', 't', 't', 'p', 'h', ?)",
      )
      .run(JSON.stringify(manifest('r1')));
    before
      .prepare(
        "INSERT INTO llm_calls (run_id, role, model, calls, failures, prompt_tokens, completion_tokens) VALUES ('r1', 'answer', 'm', 7, 1, 70, 14)",
      )
      .run();
    before.close();
    openRunsDb(f, { targetVersion: mine.version }).close();
    const store = RunStore.open(f);
    expect(store.callLedger('r1')).toEqual([
      {
        role: 'answer',
        model: 'm',
        calls: 7,
        failures: 1,
        promptTokens: 70,
        completionTokens: 14,
        cacheHits: 0,
        cacheMisses: 0,
      },
    ]);
    const shape = { step: 'answer', params: { max_tokens: 800, model: 'm', temperature: 0 } };
    const delta = { role: 'answer' as const, model: 'm', calls: 0, failures: 0 };
    const none = { promptTokens: 0, completionTokens: 0 };
    store.recordCallBatch('r1', [{ ...delta, ...none, cacheHits: 2, shapes: [shape] }]);
    store.recordCallBatch('r1', [{ ...delta, ...none, cacheMisses: 3, shapes: [shape] }]);
    expect(store.callLedger('r1')[0]).toMatchObject({ calls: 7, cacheHits: 2, cacheMisses: 3 });
    expect(store.requestShapes('r1')).toEqual([{ role: 'answer', ...shape }]);
    store.close();
  });

  it('the by-judge migration keeps every protocol verdict of an older file, readable with its model, its repeats from its labels and its origin unknown', () => {
    // The number is the list's, not this test's: the lead renumbers migrations at merge.
    const at = MIGRATIONS.findIndex((m) => m.up.includes('protocol_judge_scores_by_judge'));
    expect(at).toBeGreaterThan(0);
    const before = MIGRATIONS[at - 1]!.version;
    const f = file();
    const old = openRunsDb(f, { targetVersion: before });
    const qa = { question: 'q', gold: 'a', prediction: 'a' };
    insertOldSchemaRun(old, manifest('r1'), [qa, qa, qa]);
    const verdict = old.prepare(
      `INSERT INTO protocol_judge_scores (run_id, sample_id, test_index, question_index, protocol, model, prompt_sha256, mean, labels, error, unparseable)
       VALUES ('r1', 's', 0, ?, ?, ?, 'sha', ?, ?, ?, 0)`,
    );
    // mem0 was asked three times per answer (one verdict failed: no labels); strict once.
    verdict.run(0, 'mem0', 'gpt-old', 2 / 3, '[1,1,0]', null);
    verdict.run(1, 'mem0', 'gpt-old', null, '[]', 'HTTP 500');
    verdict.run(2, 'mem0', 'gpt-old', 1, '[1,1,1]', null);
    verdict.run(0, 'strict', 'other', 0, '[0]', null);
    old.close();

    const store = RunStore.open(f);
    const judges = store.protocolJudges('r1');
    expect(
      judges.map(({ protocol, model, origin, repeats, overall, errors }) => ({
        protocol,
        model,
        origin,
        repeats,
        overall,
        errors,
      })),
    ).toEqual([
      {
        protocol: 'mem0',
        model: 'gpt-old',
        origin: '',
        repeats: 3,
        overall: { mean: (2 / 3 + 1) / 2, n: 2 },
        errors: 1,
      },
      {
        protocol: 'strict',
        model: 'other',
        origin: '',
        repeats: 1,
        overall: { mean: 0, n: 1 },
        errors: 0,
      },
    ]);
    expect(store.judgeVerdictsOf('r1', judges[0]!).map((v) => v.labels)).toEqual([
      [1, 1, 0],
      [],
      [1, 1, 1],
    ]);
    // A second judge of the same protocol now sits beside the old one instead of replacing it.
    store.saveProtocolJudgeScores(
      'r1',
      {
        protocol: 'mem0',
        model: 'gpt-new',
        origin: 'http://127.0.0.1:1',
        repeats: 1,
        promptSha256: 'sha',
      },
      [
        {
          sampleId: 's',
          testIndex: 0,
          questionIndex: 0,
          judge: { mean: 0, std: 0, labels: [0], error: null },
        },
      ],
    );
    expect(store.protocolJudges('r1').map((j) => `${j.protocol}/${j.model}`)).toEqual([
      'mem0/gpt-new',
      'mem0/gpt-old',
      'strict/other',
    ]);
    store.close();
  });

  it('migration 8 adds judge verdicts per protocol to a v7 file, leaving its tables as they were', () => {
    const f = file();
    const v7 = openRunsDb(f, { targetVersion: 7 });
    const tablesOf = (db: ReturnType<typeof openSqlite>): string[] =>
      (
        db
          .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
          .all() as Array<{
          name: string;
        }>
      ).map((t) => t.name);
    const before = tablesOf(v7);
    const answerColumns = columns(v7, 'answers');
    v7.close();
    const db = openRunsDb(f, { targetVersion: 8 });
    expect(db.pragma('user_version', { simple: true })).toBe(8);
    expect(tablesOf(db)).toEqual([...before, 'protocol_judge_scores'].sort());
    expect(columns(db, 'answers')).toEqual(answerColumns);
    expect(columns(db, 'protocol_judge_scores')).toEqual([
      'run_id',
      'sample_id',
      'test_index',
      'question_index',
      'protocol',
      'model',
      'prompt_sha256',
      'mean',
      'labels',
      'error',
      'unparseable',
    ]);
    db.close();
  });

  it("migration 4 allows status 'degraded' and adds the call ledger, keeping every row of a v3 file", () => {
    const f = file();
    const old = openRunsDb(f, { targetVersion: 3 });
    old
      .prepare(
        "INSERT INTO runs (id, status, created_at, started_at, preset, config_hash, manifest, pid, resumes, answer_errors) VALUES ('r3', 'completed', 't', 't', 'p', 'h', ?, NULL, 2, 1)",
      )
      .run(JSON.stringify(manifest('r3')));
    old
      .prepare(
        "INSERT INTO run_samples (run_id, sample_id, position, status, total_packets, total_questions, threshold, planned_tests) VALUES ('r3', 's', 0, 'completed', 1, 1, 1, 1)",
      )
      .run();
    old
      .prepare(
        "INSERT INTO tests (run_id, sample_id, test_index, packet_idx, dialogs_inserted, visible_count, question_indices, committed_at) VALUES ('r3', 's', 0, 0, 2, 1, '[0]', 't')",
      )
      .run();
    old
      .prepare(
        `INSERT INTO answers (run_id, sample_id, test_index, question_index, category, question, gold, prediction, retrieved, official_f1, evidence_recall, retrieve_ms, answer_ms, error)
         VALUES ('r3', 's', 0, 0, 4, 'q', 'a', 'a', '[]', 1, NULL, 0, 0, NULL)`,
      )
      .run();
    expect(() => old.prepare("UPDATE runs SET status = 'degraded' WHERE id = 'r3'").run()).toThrow(
      /CHECK constraint failed/,
    );
    old.close();

    const db = openRunsDb(f, { targetVersion: 4 });
    expect(db.pragma('user_version', { simple: true })).toBe(4);
    // Rebuilding runs must not cascade into its children.
    expect(db.prepare('SELECT count(*) AS n FROM run_samples').get()).toEqual({ n: 1 });
    expect(db.prepare('SELECT count(*) AS n FROM answers').get()).toEqual({ n: 1 });
    expect(db.prepare('SELECT resumes, answer_errors FROM runs').get()).toEqual({
      resumes: 2,
      answer_errors: 1,
    });
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    db.prepare("UPDATE runs SET status = 'degraded' WHERE id = 'r3'").run();
    expect(columns(db, 'llm_calls')).toEqual([
      'run_id',
      'role',
      'model',
      'calls',
      'failures',
      'prompt_tokens',
      'completion_tokens',
    ]);
    // Still cascades after the rebuild: the foreign keys point at the new runs table.
    db.prepare(
      "INSERT INTO llm_calls (run_id, role, model, calls) VALUES ('r3', 'answer', 'm', 1)",
    ).run();
    db.prepare("DELETE FROM runs WHERE id = 'r3'").run();
    expect(db.prepare('SELECT count(*) AS n FROM run_samples').get()).toEqual({ n: 0 });
    expect(db.prepare('SELECT count(*) AS n FROM llm_calls').get()).toEqual({ n: 0 });
    db.close();
  });

  it('migrates a version-1 file with its data, and marks its pid-less running run interrupted', () => {
    const f = file();
    const old = openRunsDb(f, { targetVersion: 1 });
    old
      .prepare(
        "INSERT INTO runs (id, status, created_at, started_at, preset, config_hash, manifest) VALUES ('r1', 'running', 't', 't', 'p', 'h', ?)",
      )
      .run(JSON.stringify(manifest('r1')));
    old.close();
    const store = RunStore.open(f);
    expect(store.db.pragma('user_version', { simple: true })).toBe(RUNS_SCHEMA_VERSION);
    expect(store.getRun('r1')).toMatchObject({ id: 'r1', status: 'interrupted', resumes: 0 });
    store.close();
  });

  it('refuses random bytes and leaves them untouched', () => {
    const f = file();
    const bytes = randomBytes(4096);
    writeFileSync(f, bytes);
    expect(() => RunStore.open(f)).toThrow(
      `runs database ${f}: not a SQLite database (bad header); the file was not changed`,
    );
    expect(readFileSync(f).equals(bytes)).toBe(true);
  });

  it("refuses another program's SQLite database and leaves it untouched", () => {
    const f = file();
    const other = openSqlite(f);
    other.exec(
      "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('keep me');",
    );
    other.close();
    const before = readFileSync(f);
    expect(() => RunStore.open(f)).toThrow(
      `runs database ${f}: a SQLite database, but not a Memory Workbench runs database; the file was not changed`,
    );
    expect(readFileSync(f).equals(before)).toBe(true);
  });

  it('refuses a runs DB from a newer build', () => {
    const f = file();
    const db = openRunsDb(f);
    db.pragma(`user_version = ${RUNS_SCHEMA_VERSION + 1}`);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const before = readFileSync(f);
    expect(() => RunStore.open(f)).toThrow(
      `schema version ${RUNS_SCHEMA_VERSION + 1} is newer than this build understands (${RUNS_SCHEMA_VERSION})`,
    );
    expect(readFileSync(f).equals(before)).toBe(true);
  });

  it("migration 10 stores each stopped run's summary, computed as the finish path does; running and unreadable runs keep none", () => {
    const f = file();
    const v9 = openRunsDb(f, { targetVersion: 9 });
    const insertRun = v9.prepare(
      `INSERT INTO runs (id, status, created_at, started_at, preset, config_hash, manifest)
       VALUES (?, ?, 't0', 't0', 'p', 'h', ?)`,
    );
    insertRun.run('done', 'completed', JSON.stringify(manifest('done')));
    insertRun.run('live', 'running', JSON.stringify(manifest('live')));
    insertRun.run('odd', 'failed', '{"manifestVersion": 99}');
    for (const runId of ['done', 'live']) {
      v9.prepare(
        `INSERT INTO run_samples (run_id, sample_id, position, status, total_packets, total_questions, threshold, planned_tests)
         VALUES (?, 's', 0, 'completed', 1, 2, 1, 1)`,
      ).run(runId);
      v9.prepare(
        `INSERT INTO tests (run_id, sample_id, test_index, packet_idx, dialogs_inserted, visible_count, question_indices, committed_at)
         VALUES (?, 's', 0, 0, 1, 1, '[0,1]', 't0')`,
      ).run(runId);
      for (const [q, f1, error] of [
        [0, 1, null],
        [1, 0, 'answer: timeout'],
      ] as const) {
        v9.prepare(
          `INSERT INTO answers (run_id, sample_id, test_index, question_index, category, question, gold, prediction, retrieved, retrieve_ms, answer_ms, error)
           VALUES (?, 's', 0, ?, 1, 'q', 'g', 'p', '[]', 1, 1, ?)`,
        ).run(runId, q, error);
        v9.prepare(
          `INSERT INTO answer_scores (run_id, sample_id, test_index, question_index, metric, value)
           VALUES (?, 's', 0, ?, 'officialF1', ?)`,
        ).run(runId, q, f1);
      }
    }
    v9.close();

    const db = openRunsDb(f, { targetVersion: 10 });
    expect(db.pragma('user_version', { simple: true })).toBe(10);
    const stored = new Map(
      (
        db.prepare('SELECT id, summary FROM runs').all() as Array<{
          id: string;
          summary: string | null;
        }>
      ).map((r) => [r.id, r.summary === null ? null : (JSON.parse(r.summary) as RunSummary)]),
    );
    expect(stored.get('done')).toEqual(computeRunSummary(db, f, 'done'));
    expect(stored.get('done')).toMatchObject({
      questions: 2,
      errors: 1,
      overall: { all: { officialF1: { mean: 0.5, n: 2 } } },
    });
    expect(stored.get('live')).toBeNull();
    expect(stored.get('odd')).toBeNull();
    db.close();
  });

  it('keeps the migrations list append-only and numbered 1..n', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });
});

describe('RunStore', () => {
  it('marks a running run of a dead process interrupted on open, but not one of a live process', () => {
    const f = file();
    const store = RunStore.open(f);
    store.createRun(manifest('dead'), [], 999_999);
    store.createRun(manifest('alive'), [], 12345);
    store.close();
    const reopened = RunStore.open(f, { isPidAlive: (pid) => pid === 12345 });
    expect(reopened.getRun('dead').status).toBe('interrupted');
    expect(reopened.getRun('alive').status).toBe('running');
    reopened.close();
  });

  it('lists each stopped run with the summary stored at finish, without reading its answers; score writes make it stale until rewritten', () => {
    const store = RunStore.open(file());
    store.createRun(manifest('r'), [
      { sampleId: 's', totalPackets: 1, totalQuestions: 1, threshold: 1, plannedTests: 1 },
    ]);
    store.commitTest('r', {
      sampleId: 's',
      testIndex: 0,
      packetIdx: 0,
      dialogsInserted: 1,
      visibleCount: 1,
      questionIndices: [0],
      answers: [
        {
          sampleId: 's',
          testIndex: 0,
          questionIndex: 0,
          category: 1,
          question: 'q',
          gold: 'g',
          prediction: 'g',
          retrieved: [],
          scores: { officialF1: 0.75 },
          retrieveMs: 1,
          answerMs: 1,
          error: null,
          judge: null,
          usage: null,
        },
      ],
    });
    expect(store.listRuns()[0]?.summary).toBeNull();
    store.finishRun('r', 'completed');
    const finished = store.listRuns()[0]?.summary;
    expect(finished).toMatchObject({
      questions: 1,
      overall: { all: { officialF1: { mean: 0.75 } } },
    });

    // With the answers gone the list still answers from what finish stored: it computes nothing.
    store.db.prepare("DELETE FROM answers WHERE run_id = 'r'").run();
    expect(store.listRuns()[0]?.summary).toEqual(finished);
    expect(store.summary('r')).toEqual(finished);

    // A score write (rescore, judge) leaves no stale summary; writeSummary stores the new one.
    store.saveMetricScores('r', []);
    expect(store.listRuns()[0]?.summary).toBeNull();
    expect(store.writeSummary('r').questions).toBe(0);
    expect(store.listRuns()[0]?.summary).toMatchObject({ questions: 0 });
    store.saveJudgeScores('r', []);
    expect(store.listRuns()[0]?.summary).toBeNull();
    store.close();
  });

  it('commits a test with its answers atomically: a failing answer leaves no test row', () => {
    const store = RunStore.open(file());
    store.createRun(manifest('r'), [
      { sampleId: 's', totalPackets: 1, totalQuestions: 2, threshold: 1, plannedTests: 1 },
    ]);
    const good = {
      sampleId: 's',
      testIndex: 0,
      questionIndex: 0,
      category: 4 as const,
      question: 'q',
      gold: 'g',
      prediction: 'g',
      retrieved: [],
      scores: { officialF1: 1, evidenceRecall: 1, setF1: 1, bleu1: 1, judge: null },
      retrieveMs: 1,
      answerMs: 1,
      error: null,
      judge: null,
      usage: null,
    };
    const test = {
      sampleId: 's',
      testIndex: 0,
      packetIdx: 0,
      dialogsInserted: 2,
      visibleCount: 2,
      questionIndices: [0, 0],
    };
    // The same question twice violates the primary key on the second insert.
    expect(() => store.commitTest('r', { ...test, answers: [good, good] })).toThrow();
    expect(store.committedTests('r', 's')).toEqual([]);
    expect(store.answersByTest('r')).toEqual([]);
    store.commitTest('r', { ...test, questionIndices: [0], answers: [good] });
    expect(store.committedTests('r', 's')).toEqual([0]);
    expect(store.deleteRun('r')).toBe(true);
    expect(store.listRuns()).toEqual([]);
    store.close();
  });

  it('reads a manifest stored without a version as version 1 and refuses a newer one by name (the list names it damaged)', () => {
    const f = file();
    const store = RunStore.open(f);
    const { manifestVersion: _drop, ...unversioned } = manifest('old');
    store.createRun(manifest('old'), []);
    store.db
      .prepare('UPDATE runs SET manifest = ? WHERE id = ?')
      .run(JSON.stringify(unversioned), 'old');
    expect(store.getRun('old').manifest.manifestVersion).toBe(1);
    store.createRun(manifest('new'), []);
    store.db
      .prepare('UPDATE runs SET manifest = ? WHERE id = ?')
      .run(JSON.stringify({ ...manifest('new'), manifestVersion: 2 }), 'new');
    const refused = `runs database ${f}: run new manifest: manifest version 2 is newer than this build reads (1); use a newer Memory Workbench`;
    expect(() => store.getRun('new')).toThrow(refused);
    // One unreadable run must not hide the others: the list keeps it, named as damaged.
    const listed = store.listRuns();
    expect(listed.map((r) => r.id).sort()).toEqual(['new', 'old']);
    expect(listed.find((r) => r.id === 'new')?.damaged).toContain(
      'manifest version 2 is newer than this build reads (1)',
    );
    expect(listed.find((r) => r.id === 'old')?.damaged).toBeUndefined();
    store.close();
  });

  it('parses stored JSON columns with their schema: a wrong shape is a RUNS_DB error naming the row', () => {
    const f = file();
    const store = RunStore.open(f);
    store.createRun(manifest('r'), [
      { sampleId: 's', totalPackets: 1, totalQuestions: 1, threshold: 1, plannedTests: 1 },
    ]);
    store.db.prepare("UPDATE run_samples SET notes = '[1]' WHERE run_id = 'r'").run();
    expect(() => store.getRun('r')).toThrow(
      `runs database ${f}: run r sample s notes: [0]: Invalid input: expected string, received number`,
    );
    store.db.prepare("UPDATE run_samples SET notes = '[]' WHERE run_id = 'r'").run();
    store.db
      .prepare('UPDATE runs SET manifest = ? WHERE id = ?')
      .run(JSON.stringify({ ...manifest('r'), seed: 'x' }), 'r');
    expect(() => store.getRun('r')).toThrow(`runs database ${f}: run r manifest: seed:`);
    store.close();
  });
});
