import { z } from 'zod';
import type { CategoryId } from '../../../src-shared/dataset';
import { WorkbenchError, formatPath } from '../../../src-shared/errors';
import {
  curveOf,
  lexicalScores,
  summarizeAnswers,
  type JudgeScore,
  type AnswerRecord,
  type CurvePoint,
  type RetrievedRef,
  type RunStatus,
  type RunSummary,
  type SampleStatus,
  type TestRecord,
} from '../../../src-shared/experiment';
import type { JudgeCache, JudgeCacheEntry, JudgeVerdict } from '../answer/judge';
import type { SqliteDatabase } from '../sqlite';
import { openRunsDb, type OpenRunsDbOptions } from './db';
import { usageOf } from './usage';
import {
  ManifestListViewSchema,
  RunManifestSchema,
  checkManifestVersion,
  type LlmCallRecord,
  type LlmCallRole,
  type RunInfo,
  type RunListItem,
  type RunManifest,
  type SamplePlanRow,
} from '../../../src-shared/runs';

/**
 * The runs database API. One writer per file: the thread that runs experiments (workers only
 * compute and send results). Every committed test is one transaction with all its answers, so a
 * killed process leaves whole tests or nothing.
 */

export type { RunInfo, RunListItem, RunSampleInfo, SamplePlanRow } from '../../../src-shared/runs';

export interface RunStoreOptions extends OpenRunsDbOptions {
  now?: () => number;
  /** Whether a process id is alive; replaced in tests. */
  isPidAlive?: (pid: number) => boolean;
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface AnswerRow {
  sample_id: string;
  test_index: number;
  question_index: number;
  category: number;
  question: string;
  gold: string | null;
  prediction: string;
  retrieved: string;
  official_f1: number;
  evidence_recall: number | null;
  retrieve_ms: number;
  answer_ms: number;
  error: string | null;
  set_f1: number | null;
  bleu1: number | null;
  judge_mean: number | null;
  judge_std: number | null;
  judge_labels: string | null;
  judge_error: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
}

/**
 * Reads a JSON column through its schema: a value this build cannot read fails with RUNS_DB naming
 * the file, the row and the column, never as a wrong-typed object deep inside a view.
 */
function parseStoredJson<S extends z.ZodType>(schema: S, text: string, where: string): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new WorkbenchError(
      'RUNS_DB',
      `${where}: not valid JSON (${error instanceof Error ? error.message : String(error)})`,
      { where },
    );
  }
  return checkStored(schema, value, where);
}

function checkStored<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = (issue?.path ?? []).map((p) => (typeof p === 'symbol' ? String(p) : p));
  throw new WorkbenchError(
    'RUNS_DB',
    `${where}: ${formatPath(path)}: ${issue?.message ?? 'invalid'}`,
    {
      where,
    },
  );
}

const RetrievedSchema = z.array(
  z.object({ id: z.string(), diaId: z.string().nullable(), score: z.number() }),
) satisfies z.ZodType<RetrievedRef[]>;
const JudgeLabelsSchema = z.array(z.number());
const StringListSchema = z.array(z.string());

/** A stored manifest: version checked first (absent = 1, newer refused), then the schema. */
function parseManifest(file: string, runId: string, text: string): RunManifest {
  const where = `runs database ${file}: run ${runId} manifest`;
  const value = parseStoredJson(z.unknown(), text, where);
  checkManifestVersion(value, where);
  const versioned =
    value !== null && typeof value === 'object' ? { manifestVersion: 1, ...value } : value;
  return checkStored(RunManifestSchema, versioned, where);
}

function answerWhere(file: string, r: AnswerRow, column: string): string {
  return `runs database ${file}: answer ${r.sample_id} test ${r.test_index} question ${r.question_index} ${column}`;
}

function judgeOf(file: string, r: AnswerRow): JudgeScore | null {
  if (r.judge_labels === null && r.judge_error === null) return null;
  return {
    mean: r.judge_mean,
    std: r.judge_std,
    labels:
      r.judge_labels === null
        ? []
        : parseStoredJson(JudgeLabelsSchema, r.judge_labels, answerWhere(file, r, 'judge_labels')),
    error: r.judge_error,
  };
}

function toAnswer(file: string, r: AnswerRow): AnswerRecord {
  // Rows from before schema 3 have no Mem0-style scores; they are pure functions of what the row
  // holds, so compute them rather than show a hole.
  const lexical =
    r.category !== 5 && (r.set_f1 === null || r.bleu1 === null)
      ? lexicalScores(r.prediction, r.gold, r.category as CategoryId, r.error !== null)
      : { setF1: r.set_f1, bleu1: r.bleu1 };
  return {
    sampleId: r.sample_id,
    testIndex: r.test_index,
    questionIndex: r.question_index,
    category: r.category as CategoryId,
    question: r.question,
    gold: r.gold,
    prediction: r.prediction,
    retrieved: parseStoredJson(RetrievedSchema, r.retrieved, answerWhere(file, r, 'retrieved')),
    officialF1: r.official_f1,
    evidenceRecall: r.evidence_recall,
    retrieveMs: r.retrieve_ms,
    answerMs: r.answer_ms,
    error: r.error,
    setF1: lexical.setF1,
    bleu1: lexical.bleu1,
    judge: judgeOf(file, r),
    usage:
      r.prompt_tokens === null && r.completion_tokens === null
        ? null
        : { promptTokens: r.prompt_tokens ?? 0, completionTokens: r.completion_tokens ?? 0 },
  };
}

/** Identifies one answer row of a run. */
export interface AnswerKey {
  sampleId: string;
  testIndex: number;
  questionIndex: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export class RunStore {
  readonly file: string;
  readonly db: SqliteDatabase;
  private readonly now: () => number;
  private readonly statements;

  private constructor(file: string, db: SqliteDatabase, options: RunStoreOptions) {
    this.file = file;
    this.db = db;
    this.now = options.now ?? Date.now;
    this.statements = {
      insertTest: db.prepare(
        `INSERT INTO tests (run_id, sample_id, test_index, packet_idx, dialogs_inserted, visible_count, question_indices, committed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertAnswer: db.prepare(
        `INSERT INTO answers (run_id, sample_id, test_index, question_index, category, question, gold, prediction,
           retrieved, official_f1, evidence_recall, retrieve_ms, answer_ms, error,
           set_f1, bleu1, judge_mean, judge_std, judge_labels, judge_error, prompt_tokens, completion_tokens)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      setJudge: db.prepare(
        `UPDATE answers SET judge_mean = ?, judge_std = ?, judge_labels = ?, judge_error = ?
         WHERE run_id = ? AND sample_id = ? AND test_index = ? AND question_index = ?`,
      ),
      cacheGet: db.prepare('SELECT label, reason FROM judge_cache WHERE key = ?'),
      cachePut: db.prepare(
        `INSERT OR REPLACE INTO judge_cache (key, model, prompt_sha256, repeat, label, reason, prompt_tokens, completion_tokens, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      recordCalls: db.prepare(
        `INSERT INTO llm_calls (run_id, role, model, calls, failures, prompt_tokens, completion_tokens)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (run_id, role, model) DO UPDATE SET
           calls = calls + excluded.calls, failures = failures + excluded.failures,
           prompt_tokens = prompt_tokens + excluded.prompt_tokens,
           completion_tokens = completion_tokens + excluded.completion_tokens`,
      ),
      bumpAnswerErrors: db.prepare(
        'UPDATE runs SET answer_errors = answer_errors + ? WHERE id = ?',
      ),
    };
  }

  /** Opens (creating or migrating) a runs DB and marks runs whose process is gone as interrupted. */
  static open(file: string, options: RunStoreOptions = {}): RunStore {
    const store = new RunStore(file, openRunsDb(file, options), options);
    store.markInterrupted(options.isPidAlive ?? pidAlive);
    return store;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /** A run left 'running' by a process that no longer exists was killed: say so. */
  markInterrupted(isAlive: (pid: number) => boolean): string[] {
    const rows = this.db
      .prepare("SELECT id, pid FROM runs WHERE status = 'running'")
      .all() as Array<{ id: string; pid: number | null }>;
    const dead = rows.filter((r) => r.pid === null || (r.pid !== process.pid && !isAlive(r.pid)));
    const mark = this.db.prepare(
      "UPDATE runs SET status = 'interrupted', ended_at = COALESCE(ended_at, ?) WHERE id = ? AND status = 'running'",
    );
    const markSamples = this.db.prepare(
      "UPDATE run_samples SET status = 'pending' WHERE run_id = ? AND status = 'running'",
    );
    this.db.transaction(() => {
      for (const r of dead) {
        mark.run(iso(this.now()), r.id);
        markSamples.run(r.id);
      }
    })();
    return dead.map((r) => r.id);
  }

  createRun(
    manifest: RunManifest,
    samples: readonly SamplePlanRow[],
    pid: number = process.pid,
  ): void {
    const at = manifest.startedAt;
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO runs (id, status, created_at, started_at, preset, config_hash, dataset_sha256, manifest, pid)
           VALUES (?, 'running', ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          manifest.runId,
          at,
          at,
          manifest.memory.preset,
          manifest.configHash,
          manifest.dataset.sha256,
          JSON.stringify(manifest),
          pid,
        );
      const insert = this.db.prepare(
        `INSERT INTO run_samples (run_id, sample_id, position, status, total_packets, total_questions, threshold, planned_tests)
         VALUES (?, ?, ?, 'pending', ?, ?, ?, ?)`,
      );
      samples.forEach((s, i) =>
        insert.run(
          manifest.runId,
          s.sampleId,
          i,
          s.totalPackets,
          s.totalQuestions,
          s.threshold,
          s.plannedTests,
        ),
      );
    })();
  }

  /** Takes a stopped run back for `resume`: status running, owned by this process. */
  reopenRun(runId: string, pid: number = process.pid): void {
    const info = this.db
      .prepare(
        "UPDATE runs SET status = 'running', pid = ?, ended_at = NULL, error = NULL, resumes = resumes + 1 WHERE id = ? AND status IN ('interrupted','cancelled','failed')",
      )
      .run(pid, runId);
    if (info.changes !== 1) {
      const run = this.getRun(runId);
      throw new WorkbenchError(
        'CONFLICT',
        `run ${runId} is ${run.status}; only interrupted, cancelled or failed runs can be resumed`,
      );
    }
  }

  /** One transaction: the test row and all its answers, or nothing. */
  commitTest(runId: string, test: TestRecord): void {
    const s = this.statements;
    const committedAt = iso(this.now());
    this.db.transaction(() => {
      s.insertTest.run(
        runId,
        test.sampleId,
        test.testIndex,
        test.packetIdx,
        test.dialogsInserted,
        test.visibleCount,
        JSON.stringify(test.questionIndices),
        committedAt,
      );
      let errors = 0;
      for (const a of test.answers) {
        if (a.error !== null) errors++;
        s.insertAnswer.run(
          runId,
          test.sampleId,
          test.testIndex,
          a.questionIndex,
          a.category,
          a.question,
          a.gold,
          a.prediction,
          JSON.stringify(a.retrieved),
          a.officialF1,
          a.evidenceRecall,
          a.retrieveMs,
          a.answerMs,
          a.error,
          a.setF1,
          a.bleu1,
          a.judge?.mean ?? null,
          a.judge?.std ?? null,
          a.judge ? JSON.stringify(a.judge.labels) : null,
          a.judge?.error ?? null,
          a.usage?.promptTokens ?? null,
          a.usage?.completionTokens ?? null,
        );
      }
      if (errors > 0) s.bumpAnswerErrors.run(errors, runId);
    })();
  }

  markSample(
    runId: string,
    sampleId: string,
    update: {
      status: SampleStatus;
      insertErrors?: number;
      insertErrorMessages?: string[];
      notes?: string[];
      error?: string | null;
    },
  ): void {
    const at = iso(this.now());
    const started = update.status === 'running';
    const ended = update.status !== 'running' && update.status !== 'pending';
    this.db.transaction(() => {
      const previous = this.db
        .prepare('SELECT insert_errors FROM run_samples WHERE run_id = ? AND sample_id = ?')
        .get(runId, sampleId) as { insert_errors: number } | undefined;
      if (!previous)
        throw new WorkbenchError('NOT_FOUND', `run ${runId} has no sample ${sampleId}`);
      this.db
        .prepare(
          `UPDATE run_samples SET status = ?,
             insert_errors = COALESCE(?, insert_errors),
             insert_error_messages = COALESCE(?, insert_error_messages),
             notes = COALESCE(?, notes),
             error = ?,
             started_at = CASE WHEN ? THEN ? ELSE started_at END,
             ended_at = CASE WHEN ? THEN ? ELSE NULL END
           WHERE run_id = ? AND sample_id = ?`,
        )
        .run(
          update.status,
          update.insertErrors ?? null,
          update.insertErrorMessages ? JSON.stringify(update.insertErrorMessages) : null,
          update.notes ? JSON.stringify(update.notes) : null,
          update.error ?? null,
          started ? 1 : 0,
          at,
          ended ? 1 : 0,
          at,
          runId,
          sampleId,
        );
      // A replayed sample (resume) re-counts its insert errors from scratch: replace, don't add.
      if (update.insertErrors !== undefined) {
        this.db
          .prepare('UPDATE runs SET insert_errors = insert_errors + ? WHERE id = ?')
          .run(update.insertErrors - previous.insert_errors, runId);
      }
    })();
  }

  finishRun(
    runId: string,
    status: Exclude<RunStatus, 'running'>,
    options: { error?: string | null; manifest?: (m: RunManifest) => RunManifest } = {},
  ): void {
    const at = iso(this.now());
    this.db.transaction(() => {
      const row = this.db
        .prepare('SELECT manifest, insert_errors, answer_errors FROM runs WHERE id = ?')
        .get(runId) as
        { manifest: string; insert_errors: number; answer_errors: number } | undefined;
      if (!row) throw new WorkbenchError('NOT_FOUND', `no run ${runId}`);
      let manifest = parseManifest(this.file, runId, row.manifest);
      manifest = {
        ...manifest,
        endedAt: at,
        errors: { insert: row.insert_errors, answer: row.answer_errors },
      };
      if (options.manifest) manifest = options.manifest(manifest);
      this.db
        .prepare(
          'UPDATE runs SET status = ?, ended_at = ?, error = ?, manifest = ?, pid = NULL WHERE id = ?',
        )
        .run(status, at, options.error ?? null, JSON.stringify(manifest), runId);
    })();
  }

  listRuns(): RunListItem[] {
    const rows = this.db
      .prepare(
        `SELECT r.*, (SELECT count(*) FROM run_samples s WHERE s.run_id = r.id) AS sample_count
         FROM runs r ORDER BY r.id DESC`,
      )
      .all() as RunRow[];
    return rows.map((r) => this.listItem(r));
  }

  hasRun(runId: string): boolean {
    return this.db.prepare('SELECT 1 FROM runs WHERE id = ?').get(runId) !== undefined;
  }

  getRun(runId: string): RunInfo {
    const r = this.db
      .prepare(
        `SELECT r.*, (SELECT count(*) FROM run_samples s WHERE s.run_id = r.id) AS sample_count
         FROM runs r WHERE r.id = ?`,
      )
      .get(runId) as RunRow | undefined;
    if (!r)
      throw new WorkbenchError('NOT_FOUND', `no run ${runId} in ${this.file}`, {
        where: this.file,
      });
    const samples = this.db
      .prepare(
        `SELECT s.*, (SELECT count(*) FROM tests t WHERE t.run_id = s.run_id AND t.sample_id = s.sample_id) AS tests_committed
         FROM run_samples s WHERE s.run_id = ? ORDER BY s.position`,
      )
      .all(runId) as SampleRow[];
    const manifest = parseManifest(this.file, r.id, r.manifest);
    // The stored totals are written when a run stops; a running or killed run's are in the ledger.
    const ledger =
      r.status === 'running' || r.status === 'interrupted' ? this.callLedger(runId) : [];
    return {
      ...this.listItem(r),
      manifest:
        ledger.length === 0
          ? manifest
          : { ...manifest, usage: usageOf(manifest.config, ledger, manifest.judge?.model ?? null) },
      pid: r.pid,
      error: r.error,
      sampleInfo: samples.map((s) => ({
        sampleId: s.sample_id,
        status: s.status,
        totalPackets: s.total_packets,
        totalQuestions: s.total_questions,
        threshold: s.threshold,
        plannedTests: s.planned_tests,
        testsCommitted: s.tests_committed,
        insertErrors: s.insert_errors,
        insertErrorMessages: parseStoredJson(
          StringListSchema,
          s.insert_error_messages,
          `runs database ${this.file}: run ${runId} sample ${s.sample_id} insert_error_messages`,
        ),
        notes: parseStoredJson(
          StringListSchema,
          s.notes,
          `runs database ${this.file}: run ${runId} sample ${s.sample_id} notes`,
        ),
        error: s.error,
        startedAt: s.started_at,
        endedAt: s.ended_at,
      })),
    };
  }

  /** Test indices already committed for a sample (resume skips answering them). */
  committedTests(runId: string, sampleId: string): number[] {
    return (
      this.db
        .prepare(
          'SELECT test_index FROM tests WHERE run_id = ? AND sample_id = ? ORDER BY test_index',
        )
        .all(runId, sampleId) as Array<{ test_index: number }>
    ).map((r) => r.test_index);
  }

  /** Every answer of every test, by sample, test, question. */
  answersByTest(
    runId: string,
    filter: { sampleId?: string; testIndex?: number } = {},
  ): AnswerRecord[] {
    this.requireRun(runId);
    const rows = this.db
      .prepare(
        `SELECT * FROM answers WHERE run_id = ?
           AND (? IS NULL OR sample_id = ?) AND (? IS NULL OR test_index = ?)
         ORDER BY sample_id, test_index, question_index`,
      )
      .all(
        runId,
        filter.sampleId ?? null,
        filter.sampleId ?? null,
        filter.testIndex ?? null,
        filter.testIndex ?? null,
      ) as AnswerRow[];
    return rows.map((r) => toAnswer(this.file, r));
  }

  /** The headline: each question's answer at the last test that asked it. */
  finalAnswers(runId: string): AnswerRecord[] {
    this.requireRun(runId);
    const rows = this.db
      .prepare(
        `SELECT a.* FROM answers a
         JOIN (SELECT sample_id, question_index, MAX(test_index) AS last_test FROM answers
               WHERE run_id = ? GROUP BY sample_id, question_index) f
           ON a.sample_id = f.sample_id AND a.question_index = f.question_index AND a.test_index = f.last_test
         WHERE a.run_id = ?
         ORDER BY a.sample_id, a.question_index`,
      )
      .all(runId, runId) as AnswerRow[];
    return rows.map((r) => toAnswer(this.file, r));
  }

  /**
   * Answers a judge pass should score: categories 1-4 not judged yet or whose judge failed
   * (`all`: every one of them, to re-judge with another judge or prompt).
   */
  answersToJudge(runId: string, options: { all?: boolean } = {}): AnswerRecord[] {
    this.requireRun(runId);
    const rows = this.db
      .prepare(
        `SELECT * FROM answers WHERE run_id = ? AND category != 5
           AND (? OR judge_labels IS NULL OR judge_error IS NOT NULL)
         ORDER BY sample_id, test_index, question_index`,
      )
      .all(runId, options.all ? 1 : 0) as AnswerRow[];
    return rows.map((r) => toAnswer(this.file, r));
  }

  /** Records judge verdicts (null clears one), in one transaction. */
  saveJudgeScores(
    runId: string,
    scores: ReadonlyArray<AnswerKey & { judge: JudgeScore | null }>,
  ): void {
    const s = this.statements;
    this.db.transaction(() => {
      for (const { sampleId, testIndex, questionIndex, judge } of scores) {
        s.setJudge.run(
          judge?.mean ?? null,
          judge?.std ?? null,
          judge ? JSON.stringify(judge.labels) : null,
          judge?.error ?? null,
          runId,
          sampleId,
          testIndex,
          questionIndex,
        );
      }
    })();
  }

  /** The judge cache in this database: verdicts survive the process, so re-scoring is free. */
  judgeCache(): JudgeCache {
    const s = this.statements;
    return {
      get: (key: string): JudgeVerdict | undefined => {
        const row = s.cacheGet.get(key) as JudgeVerdict | undefined;
        return row ? { label: row.label, reason: row.reason } : undefined;
      },
      put: (key: string, entry: JudgeCacheEntry): void => {
        s.cachePut.run(
          key,
          entry.model,
          entry.promptSha256,
          entry.repeat,
          entry.verdict.label,
          entry.verdict.reason,
          entry.usage?.promptTokens ?? null,
          entry.usage?.completionTokens ?? null,
          iso(this.now()),
        );
      },
    };
  }

  /**
   * Adds one request's share to the run's call ledger. Written at once, in its own statement: a
   * call is on disk as soon as it is made, so a killed run still counts every call it paid for.
   */
  recordCalls(runId: string, record: LlmCallRecord): void {
    this.statements.recordCalls.run(
      runId,
      record.role,
      record.model,
      record.calls,
      record.failures,
      record.promptTokens,
      record.completionTokens,
    );
  }

  /** Every (role, model) of the run's call ledger; empty for runs made before the ledger. */
  callLedger(runId: string): LlmCallRecord[] {
    const rows = this.db
      .prepare(
        'SELECT role, model, calls, failures, prompt_tokens, completion_tokens FROM llm_calls WHERE run_id = ? ORDER BY role, model',
      )
      .all(runId) as Array<{
      role: LlmCallRole;
      model: string;
      calls: number;
      failures: number;
      prompt_tokens: number;
      completion_tokens: number;
    }>;
    return rows.map((r) => ({
      role: r.role,
      model: r.model,
      calls: r.calls,
      failures: r.failures,
      promptTokens: r.prompt_tokens,
      completionTokens: r.completion_tokens,
    }));
  }

  /** Rewrites a run's manifest (provenance that is only known later: judge, token totals). */
  updateManifest(runId: string, update: (m: RunManifest) => RunManifest): RunManifest {
    return this.db.transaction(() => {
      const row = this.db.prepare('SELECT manifest FROM runs WHERE id = ?').get(runId) as
        { manifest: string } | undefined;
      if (!row) throw new WorkbenchError('NOT_FOUND', `no run ${runId}`);
      const manifest = update(parseManifest(this.file, runId, row.manifest));
      this.db
        .prepare('UPDATE runs SET manifest = ? WHERE id = ?')
        .run(JSON.stringify(manifest), runId);
      return manifest;
    })();
  }

  summary(runId: string): RunSummary {
    return summarizeAnswers(this.finalAnswers(runId));
  }

  curve(runId: string): CurvePoint[] {
    this.requireRun(runId);
    const tests = this.db
      .prepare('SELECT * FROM tests WHERE run_id = ? ORDER BY sample_id, test_index')
      .all(runId) as TestRow[];
    const answers = this.answersByTest(runId);
    const byTest = new Map<string, AnswerRecord[]>();
    for (const a of answers) {
      const key = `${a.sampleId}\u0000${a.testIndex}`;
      const list = byTest.get(key);
      if (list) list.push(a);
      else byTest.set(key, [a]);
    }
    return curveOf(
      tests.map((t) => ({
        sampleId: t.sample_id,
        testIndex: t.test_index,
        packetIdx: t.packet_idx,
        dialogsInserted: t.dialogs_inserted,
        visibleCount: t.visible_count,
        answers: byTest.get(`${t.sample_id}\u0000${t.test_index}`) ?? [],
      })),
    );
  }

  /** Deletes a run and everything it recorded; false when there was no such run. */
  deleteRun(runId: string): boolean {
    return this.db.transaction(() => {
      // Explicit, child first: does not depend on foreign_keys being on for an older connection.
      this.db.prepare('DELETE FROM llm_calls WHERE run_id = ?').run(runId);
      this.db.prepare('DELETE FROM answers WHERE run_id = ?').run(runId);
      this.db.prepare('DELETE FROM tests WHERE run_id = ?').run(runId);
      this.db.prepare('DELETE FROM run_samples WHERE run_id = ?').run(runId);
      return this.db.prepare('DELETE FROM runs WHERE id = ?').run(runId).changes === 1;
    })();
  }

  private requireRun(runId: string): void {
    if (!this.hasRun(runId)) {
      throw new WorkbenchError('NOT_FOUND', `no run ${runId} in ${this.file}`, {
        where: this.file,
      });
    }
  }

  private listItem(r: RunRow): RunListItem {
    const where = `runs database ${this.file}: run ${r.id} manifest`;
    const manifest = parseStoredJson(ManifestListViewSchema, r.manifest, where);
    checkManifestVersion(manifest, where);
    return {
      id: r.id,
      status: r.status,
      preset: r.preset,
      datasetPath: manifest.dataset.path,
      samples: r.sample_count,
      createdAt: r.created_at,
      endedAt: r.ended_at,
      insertErrors: r.insert_errors,
      answerErrors: r.answer_errors,
      resumes: r.resumes,
    };
  }
}

interface RunRow {
  id: string;
  status: RunStatus;
  created_at: string;
  started_at: string;
  ended_at: string | null;
  preset: string;
  config_hash: string;
  dataset_sha256: string | null;
  manifest: string;
  error: string | null;
  insert_errors: number;
  answer_errors: number;
  pid: number | null;
  resumes: number;
  sample_count: number;
}

interface SampleRow {
  sample_id: string;
  status: SampleStatus;
  total_packets: number;
  total_questions: number;
  threshold: number;
  planned_tests: number;
  insert_errors: number;
  insert_error_messages: string;
  notes: string;
  error: string | null;
  started_at: string | null;
  ended_at: string | null;
  tests_committed: number;
}

interface TestRow {
  sample_id: string;
  test_index: number;
  packet_idx: number;
  dialogs_inserted: number;
  visible_count: number;
}
