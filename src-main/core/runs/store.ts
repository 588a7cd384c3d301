import { WorkbenchError } from '../../../src-shared/errors';
import type { JudgeIdentity } from '../../../src-shared/judges';
import type {
  JudgeScore,
  RunStatus,
  RunSummary,
  SampleStatus,
  TestRecord,
} from '../../../src-shared/experiment';
import type { JudgeCache, JudgeCacheEntry, JudgeVerdict } from '../answer/judge';
import type { SqliteDatabase } from '../sqlite';
import { openRunsDb, stampChecked, writeTransaction, type OpenRunsDbOptions } from './db';
import { SqliteRunReader, type RunReader } from './reader';
import type {
  LlmCallRecord,
  RoleWireShape,
  RunIdentity,
  RunManifest,
  SamplePlanRow,
} from '../../../src-shared/runs';
import { parseManifest, parseRequestShape } from './stored';
import { clearRunSummary, writeRunSummary, writeRunSummaryIfReadable } from './summaries';

/**
 * The runs database API. One writer per file: the thread that runs experiments (workers only
 * compute and send results). Every committed test is one transaction with all its answers, so a
 * killed process leaves whole tests or nothing. Reads live in reader.ts (RunReader); the writer
 * reads through the same queries, so a write is visible to its next read. Several processes may
 * write one file (two CLI runs, the app): every write goes through `write`, which takes the lock
 * up front and waits for it, so sharing a file never fails a run.
 */

export type { RunInfo, RunListItem, RunSampleInfo, SamplePlanRow } from '../../../src-shared/runs';
export type { RunReader } from './reader';

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

/** Identifies one answer row of a run. */
export interface AnswerKey {
  sampleId: string;
  testIndex: number;
  questionIndex: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The write side of the runs database: only the main thread (the coordinator) holds one. */
export interface RunWriter {
  /** A run left 'running' by a process that no longer exists was killed: say so. */
  markInterrupted(isAlive: (pid: number) => boolean): string[];
  createRun(manifest: RunManifest, samples: readonly SamplePlanRow[], pid?: number): void;
  /** Takes a stopped run back for `resume`: status running, owned by this process. */
  reopenRun(runId: string, pid?: number): void;
  /** One transaction: the test row and all its answers, or nothing. */
  commitTest(runId: string, test: TestRecord): void;
  markSample(runId: string, sampleId: string, update: SampleUpdate): void;
  finishRun(
    runId: string,
    status: Exclude<RunStatus, 'running'>,
    options?: { error?: string | null; manifest?: (m: RunManifest) => RunManifest },
  ): void;
  /** Records judge verdicts (null clears one), in one transaction; the stored summary goes stale. */
  saveJudgeScores(
    runId: string,
    scores: ReadonlyArray<AnswerKey & { judge: JudgeScore | null }>,
  ): void;
  /**
   * Stores the run's summary over its current final answers and returns it: `finishRun` does
   * this itself; a write path that changes scores of a stopped run (rescore) calls it when done.
   */
  writeSummary(runId: string): RunSummary;
  /** Records one judge's verdicts beside the run's own J (`rescore --judge`). */
  saveProtocolJudgeScores(
    runId: string,
    judge: JudgeIdentity & { promptSha256: string },
    scores: ReadonlyArray<AnswerKey & { judge: JudgeScore }>,
  ): void;
  /** Writes metric values (one row per answer and metric; rewriting one replaces it), in one transaction; the stored summary goes stale. */
  saveMetricScores(
    runId: string,
    scores: ReadonlyArray<AnswerKey & { metric: string; value: number | null }>,
  ): void;
  /** The judge cache in this database: verdicts survive the process, so re-scoring is free. */
  judgeCache(): JudgeCache;
  /** Rewrites a run's manifest (provenance that is only known later: judge, token totals). */
  updateManifest(runId: string, update: (m: RunManifest) => RunManifest): RunManifest;
  /** Deletes a run and everything it recorded; false when there was no such run. */
  deleteRun(runId: string): boolean;
  /** Sets a run's name, tags and notes (what the patch names; the rest stays). */
  setRunIdentity(runId: string, patch: Partial<RunIdentity>): RunIdentity;
  /** Adds to the run's LLM call ledger (a request counts when sent, so a kill loses none filed). */
  recordCalls(runId: string, record: LlmCallRecord): void;
  /** Adds several ledger rows' deltas in one write (a run files its CallTally this way). */
  recordCallBatch(runId: string, records: readonly LlmCallRecord[]): void;
}

export interface SampleUpdate {
  status: SampleStatus;
  insertErrors?: number;
  insertErrorMessages?: string[];
  notes?: string[];
  error?: string | null;
}

export class RunStore extends SqliteRunReader implements RunReader, RunWriter {
  private readonly now: () => number;
  private readonly statements;

  private constructor(file: string, db: SqliteDatabase, options: RunStoreOptions) {
    super(file, db);
    this.now = options.now ?? Date.now;
    this.statements = {
      insertTest: db.prepare(
        `INSERT INTO tests (run_id, sample_id, test_index, packet_idx, dialogs_inserted, visible_count, question_indices, committed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertAnswer: db.prepare(
        `INSERT INTO answers (run_id, sample_id, test_index, question_index, category, question, gold, prediction,
           retrieved, retrieve_ms, answer_ms, error,
           judge_std, judge_labels, judge_error, prompt_tokens, completion_tokens, memory_tokens, scoring_ranking)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      putScore: db.prepare(
        `INSERT OR REPLACE INTO answer_scores (run_id, sample_id, test_index, question_index, metric, value)
         VALUES (?, ?, ?, ?, ?, ?)`,
      ),
      setJudge: db.prepare(
        `UPDATE answers SET judge_std = ?, judge_labels = ?, judge_error = ?
         WHERE run_id = ? AND sample_id = ? AND test_index = ? AND question_index = ?`,
      ),
      cacheGet: db.prepare('SELECT label, reason FROM judge_cache WHERE key = ?'),
      cachePut: db.prepare(
        `INSERT OR REPLACE INTO judge_cache (key, model, prompt_sha256, repeat, label, reason, prompt_tokens, completion_tokens, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      recordCalls: db.prepare(
        `INSERT INTO llm_calls (run_id, role, model, calls, failures, prompt_tokens, completion_tokens, cache_hits, cache_misses)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (run_id, role, model) DO UPDATE SET
           calls = calls + excluded.calls, failures = failures + excluded.failures,
           prompt_tokens = prompt_tokens + excluded.prompt_tokens,
           completion_tokens = completion_tokens + excluded.completion_tokens,
           cache_hits = cache_hits + excluded.cache_hits,
           cache_misses = cache_misses + excluded.cache_misses`,
      ),
      recordShape: db.prepare(
        'INSERT OR IGNORE INTO llm_request_shapes (run_id, role, step, params) VALUES (?, ?, ?, ?)',
      ),
      bumpAnswerErrors: db.prepare(
        'UPDATE runs SET answer_errors = answer_errors + ? WHERE id = ?',
      ),
    };
  }

  /** One write transaction under the file's write lock (db.ts `writeTransaction`). */
  private write<T>(fn: () => T): T {
    return writeTransaction(this.db, this.file, fn);
  }

  /** Closes the file and stamps it as checked (db.ts): the next command need not check it again. */
  override close(): void {
    super.close();
    stampChecked(this.file);
  }

  /** Opens (creating or migrating) a runs DB and marks runs whose process is gone as interrupted. */
  static open(file: string, options: RunStoreOptions = {}): RunStore {
    const store = new RunStore(file, openRunsDb(file, options), options);
    store.markInterrupted(options.isPidAlive ?? pidAlive);
    return store;
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
    this.write(() => {
      for (const r of dead) {
        mark.run(iso(this.now()), r.id);
        markSamples.run(r.id);
        writeRunSummaryIfReadable(this.db, this.file, r.id);
      }
    });
    return dead.map((r) => r.id);
  }

  createRun(
    manifest: RunManifest,
    samples: readonly SamplePlanRow[],
    pid: number = process.pid,
  ): void {
    const at = manifest.startedAt;
    this.write(() => {
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
    });
  }

  /** Takes a stopped run back for `resume`: status running, owned by this process. */
  reopenRun(runId: string, pid: number = process.pid): void {
    const info = this.write(() =>
      this.db
        .prepare(
          "UPDATE runs SET status = 'running', pid = ?, ended_at = NULL, error = NULL, summary = NULL, resumes = resumes + 1 WHERE id = ? AND status IN ('interrupted','cancelled','failed','paused')",
        )
        .run(pid, runId),
    );
    if (info.changes !== 1) {
      const run = this.getRun(runId);
      throw new WorkbenchError(
        'CONFLICT',
        `run ${runId} is ${run.status}; only interrupted, cancelled, failed or paused runs can be resumed`,
      );
    }
  }

  /** One transaction: the test row and all its answers, or nothing. */
  commitTest(runId: string, test: TestRecord): void {
    const s = this.statements;
    const committedAt = iso(this.now());
    this.write(() => {
      clearRunSummary(this.db, runId);
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
          a.retrieveMs,
          a.answerMs,
          a.error,
          a.judge?.std ?? null,
          a.judge ? JSON.stringify(a.judge.labels) : null,
          a.judge?.error ?? null,
          a.usage?.promptTokens ?? null,
          a.usage?.completionTokens ?? null,
          a.memoryTokens ?? null,
          a.scoringRanking ? JSON.stringify(a.scoringRanking) : null,
        );
        for (const [metric, value] of Object.entries(a.scores)) {
          s.putScore.run(runId, test.sampleId, test.testIndex, a.questionIndex, metric, value);
        }
      }
      if (errors > 0) s.bumpAnswerErrors.run(errors, runId);
    });
  }

  markSample(runId: string, sampleId: string, update: SampleUpdate): void {
    const at = iso(this.now());
    const started = update.status === 'running';
    const ended = update.status !== 'running' && update.status !== 'pending';
    this.write(() => {
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
    });
  }

  finishRun(
    runId: string,
    status: Exclude<RunStatus, 'running'>,
    options: { error?: string | null; manifest?: (m: RunManifest) => RunManifest } = {},
  ): void {
    const at = iso(this.now());
    this.write(() => {
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
      writeRunSummary(this.db, this.file, runId);
    });
  }

  writeSummary(runId: string): RunSummary {
    return this.write(() => writeRunSummary(this.db, this.file, runId));
  }

  /** Records judge verdicts (null clears one), in one transaction. */
  saveJudgeScores(
    runId: string,
    scores: ReadonlyArray<AnswerKey & { judge: JudgeScore | null }>,
  ): void {
    const s = this.statements;
    this.write(() => {
      clearRunSummary(this.db, runId);
      for (const { sampleId, testIndex, questionIndex, judge } of scores) {
        s.putScore.run(runId, sampleId, testIndex, questionIndex, 'judge', judge?.mean ?? null);
        s.setJudge.run(
          judge?.std ?? null,
          judge ? JSON.stringify(judge.labels) : null,
          judge?.error ?? null,
          runId,
          sampleId,
          testIndex,
          questionIndex,
        );
      }
    });
  }

  /**
   * Records one judge's verdicts (`rescore --judge`) beside the run's own J, in one transaction;
   * a row per (answer, judge identity) is replaced, so judging again with the same judge
   * overwrites and another model, endpoint or repeat count adds a judge.
   */
  saveProtocolJudgeScores(
    runId: string,
    judge: JudgeIdentity & { promptSha256: string },
    scores: ReadonlyArray<AnswerKey & { judge: JudgeScore }>,
  ): void {
    const put = this.db.prepare(
      `INSERT OR REPLACE INTO protocol_judge_scores (run_id, sample_id, test_index, question_index,
         protocol, model, origin, repeats, prompt_sha256, mean, labels, error, unparseable)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.write(() => {
      for (const { sampleId, testIndex, questionIndex, judge: score } of scores) {
        put.run(
          runId,
          sampleId,
          testIndex,
          questionIndex,
          judge.protocol,
          judge.model,
          judge.origin,
          judge.repeats,
          judge.promptSha256,
          score.mean,
          JSON.stringify(score.labels),
          score.error,
          score.unparseable ?? 0,
        );
      }
    });
  }

  saveMetricScores(
    runId: string,
    scores: ReadonlyArray<AnswerKey & { metric: string; value: number | null }>,
  ): void {
    const put = this.statements.putScore;
    this.write(() => {
      clearRunSummary(this.db, runId);
      for (const { sampleId, testIndex, questionIndex, metric, value } of scores)
        put.run(runId, sampleId, testIndex, questionIndex, metric, value);
    });
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
        this.write(() =>
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
          ),
        );
      },
    };
  }

  /** Rewrites a run's manifest (provenance that is only known later: judge, token totals). */
  recordCalls(runId: string, record: LlmCallRecord): void {
    this.recordCallBatch(runId, [record]);
  }

  recordCallBatch(runId: string, records: readonly LlmCallRecord[]): void {
    if (records.length === 0) return;
    this.write(() => {
      for (const record of records) {
        this.statements.recordCalls.run(
          runId,
          record.role,
          record.model,
          record.calls,
          record.failures,
          record.promptTokens,
          record.completionTokens,
          record.cacheHits ?? 0,
          record.cacheMisses ?? 0,
        );
        for (const shape of record.shapes ?? []) {
          this.statements.recordShape.run(
            runId,
            record.role,
            shape.step,
            JSON.stringify(shape.params),
          );
        }
      }
    });
  }

  /** Each kind of request the run's roles sent, over every launch, in the order first filed. */
  requestShapes(runId: string): RoleWireShape[] {
    const rows = this.db
      .prepare('SELECT role, step, params FROM llm_request_shapes WHERE run_id = ? ORDER BY rowid')
      .all(runId);
    return rows.map((row) => parseRequestShape(this.file, runId, row));
  }

  updateManifest(runId: string, update: (m: RunManifest) => RunManifest): RunManifest {
    return this.write(() => {
      const row = this.db.prepare('SELECT manifest FROM runs WHERE id = ?').get(runId) as
        { manifest: string } | undefined;
      if (!row) throw new WorkbenchError('NOT_FOUND', `no run ${runId}`);
      const manifest = update(parseManifest(this.file, runId, row.manifest));
      this.db
        .prepare('UPDATE runs SET manifest = ? WHERE id = ?')
        .run(JSON.stringify(manifest), runId);
      return manifest;
    });
  }

  setRunIdentity(runId: string, patch: Partial<RunIdentity>): RunIdentity {
    return this.write(() => {
      const run = this.getRun(runId);
      const next: RunIdentity = {
        name: patch.name ?? run.name,
        tags: patch.tags ?? run.tags,
        notes: patch.notes ?? run.notes,
      };
      this.db
        .prepare('UPDATE runs SET name = ?, tags = ?, notes = ? WHERE id = ?')
        .run(next.name, JSON.stringify(next.tags), next.notes, runId);
      return next;
    });
  }

  /** Deletes a run and everything it recorded; false when there was no such run. */
  deleteRun(runId: string): boolean {
    return this.write(() => {
      // Explicit, child first: does not depend on foreign_keys being on for an older connection.
      this.db.prepare('DELETE FROM llm_calls WHERE run_id = ?').run(runId);
      this.db.prepare('DELETE FROM answer_scores WHERE run_id = ?').run(runId);
      this.db.prepare('DELETE FROM protocol_judge_scores WHERE run_id = ?').run(runId);
      this.db.prepare('DELETE FROM answers WHERE run_id = ?').run(runId);
      this.db.prepare('DELETE FROM tests WHERE run_id = ?').run(runId);
      this.db.prepare('DELETE FROM run_samples WHERE run_id = ?').run(runId);
      return this.db.prepare('DELETE FROM runs WHERE id = ?').run(runId).changes === 1;
    });
  }
}
